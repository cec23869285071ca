//! Type space → Rust items (`syn` trees, attribute contents by `quote!`): structs,
//! string enums, fields and their `#[serde]`/`#[crd]` attributes.
//!
//! Paths are spelled by [`Paths`]: short names with `use` lines where no generated type
//! of the module shadows them, fully qualified paths where one does.

use std::cell::{OnceCell, RefCell};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote};

use super::ast;
use super::derives::{self, Capabilities, Traits};
use super::docs::docs_roundtrip;
use super::ir::{DefKind, Field, Ty, TyKind, TypeDef, TypeId, TypeSpace};
use super::keywords::{Implied, Skip, node_keywords};
use super::leads::{Leads, Repeated};
use super::naming::RustName;
use super::paths::{Import, Paths, Prelude};
use super::{MapType, Options};

/// What the spec struct carries instead of a plain `CrdSchema` derive.
pub struct Resource {
    /// `crd_runtime::CustomResource`.
    pub derive: TokenStream,
    /// The contents of the `#[crd(...)]` resource attribute.
    pub attr: TokenStream,
    /// Doc comments (the root description).
    pub docs: Vec<syn::Attribute>,
}

/// Emission context for one type space.
pub struct Emitter<'a> {
    /// The type space.
    pub space: &'a TypeSpace,
    /// Generator options.
    pub opts: &'a Options,
    /// How std, serde and runtime items are spelled in this module.
    pub paths: Paths,
    /// Where leading attributes (doc comments, repeated attributes) go.
    pub leads: &'a Leads,
    /// What each definition can derive, when extra std derives are configured.
    capabilities: Option<Capabilities>,
    /// Attribute contents that repeat on most items, built on first use (that use
    /// also records their imports); a token stream clone only bumps a count. The
    /// derive list is one per set of derivable traits (one without extra derives).
    schema_derives: RefCell<Vec<(u8, Repeated)>>,
    optional_serde: OnceCell<TokenStream>,
    optional_serde_attr: OnceCell<Repeated>,
}

/// An identifier token for a (possibly raw) name chosen by the naming policy.
pub fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

impl<'a> Emitter<'a> {
    /// An emitter for `space`, spelling paths with `paths`.
    pub fn new(
        space: &'a TypeSpace,
        opts: &'a Options,
        paths: Paths,
        leads: &'a Leads,
    ) -> Emitter<'a> {
        let std_derives = opts
            .extra_derives
            .iter()
            .any(|d| derives::std_trait(d).is_some());
        Emitter {
            space,
            opts,
            paths,
            leads,
            capabilities: std_derives.then(|| Capabilities::of(space, opts.map_type)),
            schema_derives: RefCell::new(Vec::new()),
            optional_serde: OnceCell::new(),
            optional_serde_attr: OnceCell::new(),
        }
    }

    /// What the definition `id` can derive (everything without extra std derives).
    pub fn traits(&self, id: TypeId) -> Traits {
        self.capabilities
            .as_ref()
            .map_or(Traits::ALL, |c| c.def(id))
    }

    /// The configured extra derives a type implementing `traits` in its fields can
    /// take, as paths.
    pub fn extra_derives(&self, traits: Traits) -> impl Iterator<Item = TokenStream> + '_ {
        self.opts
            .extra_derives
            .iter()
            .filter(move |d| derives::allowed(d, traits))
            .map(|d| d.parse().unwrap_or_else(|_| quote!(compile_error!(#d))))
    }

    /// The derives every generated type gets, plus the configured extra ones that a
    /// type implementing `traits` in its fields can take (the `derive(...)` list
    /// contents).
    pub fn derives(&self, schema_derive: TokenStream, traits: Traits) -> TokenStream {
        let extra = self.extra_derives(traits).map(|path| quote!(, #path));
        let ser = self.paths.import(Import::Serialize);
        let de = self.paths.import(Import::Deserialize);
        // Derive macros live in the macro namespace: a generated type called `Clone`
        // does not shadow the prelude's `Clone` derive.
        quote!(Clone, Debug, PartialEq, #ser, #de, #schema_derive #(#extra)*)
    }

    /// The leading attributes: doc comments for a description (unless they would not
    /// reproduce it: then it becomes an explicit keyword), then `repeated`; and
    /// whether the description is documented.
    pub fn lead(
        &self,
        description: Option<&str>,
        repeated: Option<&Repeated>,
    ) -> (Vec<syn::Attribute>, bool) {
        let documented = description.filter(|d| self.opts.docs && docs_roundtrip(d));
        (self.leads.lead(documented, repeated), documented.is_some())
    }

    /// Every definition except the ones in `skip` (emitted elsewhere), in order.
    pub fn defs(&self, skip: &[usize]) -> Vec<syn::Item> {
        let mut defs: Vec<(usize, &TypeDef)> = self
            .space
            .defs
            .iter()
            .enumerate()
            .filter(|(i, _)| !skip.contains(i))
            .collect();
        defs.sort_by_key(|(_, d)| d.seq);
        defs.into_iter()
            .map(|(id, _)| self.def(TypeId(id), None))
            .collect()
    }

    /// One definition. `resource` replaces the schema derive, node keywords and docs
    /// of the spec struct (`#[derive(CustomResource)] #[crd(...)]`).
    pub fn def(&self, id: TypeId, resource: Option<Resource>) -> syn::Item {
        let def = self.space.get(id);
        let name = ident(&def.name);
        let traits = self.traits(id);
        let (mut attrs, type_attr) = match resource {
            Some(r) => {
                let mut attrs = r.docs;
                attrs.push(ast::list("derive", self.derives(r.derive, traits)));
                (attrs, Some(r.attr))
            }
            None => {
                let derive = self.schema_derive(traits);
                let (attrs, documented) =
                    self.lead(def.residual.description.as_deref(), Some(&derive));
                let kws = node_keywords(
                    &def.residual,
                    implied_def(def),
                    Skip {
                        description: documented,
                    },
                );
                let attr = (!kws.is_empty()).then(|| quote!(#(#kws),*));
                (attrs, attr)
            }
        };
        if let Some(a) = type_attr {
            attrs.push(ast::list("crd", a));
        }
        match &def.kind {
            DefKind::Struct { fields, catch_all } => {
                let mut named: Vec<syn::Field> = fields.iter().map(|f| self.field(f)).collect();
                if let Some((n, ty)) = catch_all.as_deref() {
                    let map = self.map_of_syn(self.ty_syn(ty));
                    let mut attrs = vec![
                        ast::doc(" Properties not declared in the schema, kept as they are."),
                        ast::list("serde", quote!(flatten)),
                    ];
                    attrs.extend(complexity_allow(&map));
                    named.push(field(attrs, ident(&n.ident), map));
                }
                syn::Item::Struct(syn::ItemStruct {
                    attrs,
                    vis: ast::public(),
                    struct_token: Default::default(),
                    ident: name,
                    generics: Default::default(),
                    fields: syn::Fields::Named(syn::FieldsNamed {
                        brace_token: ast::brace(),
                        named: ast::punctuated(named),
                    }),
                    semi_token: None,
                })
            }
            DefKind::Newtype { inner } => {
                let kws = match self.named(inner) {
                    Some(_) => Vec::new(),
                    None => self.node_keywords_deep(inner, false),
                };
                let mut field_attrs = Vec::new();
                if !kws.is_empty() {
                    field_attrs.push(ast::list("crd", quote!(#(#kws),*)));
                }
                let mut ty = self.ty_syn(inner);
                // A nullable spec may be `null`.
                if self.is_nullable(inner) {
                    ty = ast::generic(self.paths.prelude_path(Prelude::Option), vec![ty]);
                }
                field_attrs.extend(complexity_allow(&ty));
                syn::Item::Struct(syn::ItemStruct {
                    attrs,
                    vis: ast::public(),
                    struct_token: Default::default(),
                    ident: name,
                    generics: Default::default(),
                    fields: syn::Fields::Unnamed(syn::FieldsUnnamed {
                        paren_token: Default::default(),
                        unnamed: ast::punctuated::<_, syn::Token![,]>([syn::Field {
                            ident: None,
                            colon_token: None,
                            ..field(field_attrs, ident("value"), ty)
                        }]),
                    }),
                    semi_token: Some(Default::default()),
                })
            }
            DefKind::StringEnum { variants } => {
                // `derive(Default)` on an enum needs a `#[default]` variant: the
                // schema's default, else the first.
                let default = self
                    .opts
                    .extra_derives
                    .iter()
                    .any(|d| derives::std_trait(d) == Some(Traits::DEFAULT))
                    .then(|| {
                        let wanted = def.residual.default.as_ref().and_then(|d| d.as_str());
                        variants
                            .iter()
                            .position(|v| Some(v.json.as_str()) == wanted)
                            .unwrap_or(0)
                    });
                let variants = variants.iter().enumerate().map(|(i, v)| syn::Variant {
                    attrs: (default == Some(i))
                        .then(|| ast::path_attr("default"))
                        .into_iter()
                        .chain(rename_attr(&v.name))
                        .collect(),
                    ident: ident(&v.name.ident),
                    fields: syn::Fields::Unit,
                    discriminant: None,
                });
                // Variant names are the CRD's values (`AzurePublicCloud`, `AzureChinaCloud`):
                // a shared prefix is the schema's, not something to rename.
                attrs.push(ast::list("allow", quote!(clippy::enum_variant_names)));
                syn::Item::Enum(syn::ItemEnum {
                    attrs,
                    vis: ast::public(),
                    enum_token: Default::default(),
                    ident: name,
                    generics: Default::default(),
                    brace_token: ast::brace(),
                    variants: ast::punctuated(variants),
                })
            }
        }
    }

    /// The `#[derive(...)]` of a definition that can derive `traits`, laid out once
    /// per distinct list.
    fn schema_derive(&self, traits: Traits) -> Repeated {
        let key = traits.bits();
        if let Some((_, r)) = self.schema_derives.borrow().iter().find(|(k, _)| *k == key) {
            return r.clone();
        }
        let derives = self.derives(self.paths.import(Import::CrdSchema), traits);
        let repeated = self.leads.repeated(ast::list("derive", derives));
        self.schema_derives
            .borrow_mut()
            .push((key, repeated.clone()));
        repeated
    }

    fn field(&self, f: &Field) -> syn::Field {
        let name = ident(&f.name.ident);
        let inner = self.ty_syn(&f.ty);
        let nullable = self.is_nullable(&f.ty);
        let option = |inner| ast::generic(self.paths.prelude_path(Prelude::Option), vec![inner]);
        let (ty, optional) = if f.required && !nullable {
            (inner, false)
        } else {
            // Required but nullable: present but possibly `null`, so the key is
            // kept when serializing.
            (option(inner), !f.required)
        };
        let optional_serde = || {
            self.optional_serde
                .get_or_init(|| {
                    let is_none = self.paths.is_none();
                    quote!(default, skip_serializing_if = #is_none)
                })
                .clone()
        };
        // The plain optional field's `serde` attribute leads most fields.
        let (serde, repeated) = match (f.name.rename.as_deref().map(ast::str_lit), optional) {
            (None, false) => (None, None),
            (None, true) => {
                let attr = self
                    .optional_serde_attr
                    .get_or_init(|| self.leads.repeated(ast::list("serde", optional_serde())));
                (None, Some(attr))
            }
            (Some(r), false) => (Some(quote!(rename = #r)), None),
            (Some(r), true) => {
                let rest = optional_serde();
                (Some(quote!(rename = #r, #rest)), None)
            }
        };

        let named = self.named(&f.ty);
        let description = match named {
            Some(def) => def.residual.description.as_deref(),
            None => f.ty.residual.description.as_deref(),
        };
        let (mut attrs, documented) = self.lead(description, repeated);
        if let Some(serde) = serde {
            attrs.push(ast::list("serde", serde));
        }
        let mut kws = match named {
            // The definition carries the node's keywords.
            Some(_) => Vec::new(),
            None => self.node_keywords_deep(&f.ty, documented),
        };
        // crd-derive treats `Option`, `#[serde(default)]` and a `default` as
        // optional; say so when the schema lists the property anyway.
        let has_default = match named {
            Some(def) => def.residual.default.is_some(),
            None => f.ty.residual.default.is_some(),
        };
        if f.required && (nullable || has_default) {
            kws.push(quote!(required));
        }
        if !kws.is_empty() {
            attrs.push(ast::list("crd", quote!(#(#kws),*)));
        }
        attrs.extend(complexity_allow(&ty));
        field(attrs, name, ty)
    }

    /// Keywords of a non-named node plus `items(...)`/`values(...)` for the nodes
    /// inside lists and maps.
    pub fn node_keywords_deep(&self, ty: &Ty, documented: bool) -> Vec<proc_macro2::TokenStream> {
        let mut kws = node_keywords(
            &ty.residual,
            implied(&ty.kind),
            Skip {
                description: documented,
            },
        );
        match &ty.kind {
            // `Vec<Value>` derives an `items` schema; this list has none.
            TyKind::Vec(inner) if inner.kind == TyKind::AbsentItems => {
                let array = super::json::json_tokens(&serde_json::json!({"type": "array"}));
                kws.insert(0, quote!(schema = #array));
            }
            TyKind::Vec(inner) if self.named(inner).is_none() => {
                let inner_kws = self.node_keywords_deep(inner, false);
                if !inner_kws.is_empty() {
                    kws.push(quote!(items(#(#inner_kws),*)));
                }
            }
            TyKind::Map(inner) if self.named(inner).is_none() => {
                let inner_kws = self.node_keywords_deep(inner, false);
                if !inner_kws.is_empty() {
                    kws.push(quote!(values(#(#inner_kws),*)));
                }
            }
            TyKind::K8s(k8s) => {
                if k8s.remove_own {
                    kws.push(quote!(description = null));
                }
                if k8s.strip_nested {
                    kws.push(quote!(no_descriptions));
                }
                if k8s.descriptions.is_empty() {
                    return kws;
                }
                let map: serde_json::Map<String, serde_json::Value> = k8s
                    .descriptions
                    .iter()
                    .map(|(pointer, text)| (pointer.clone(), text.clone().into()))
                    .collect();
                let map = super::json::json_tokens(&serde_json::Value::Object(map));
                kws.push(quote!(descriptions = #map));
            }
            _ => {}
        }
        kws
    }

    /// [`Emitter::node_keywords_deep`] for a node whose Rust type crd-derive cannot
    /// see (the status behind an alias): `None` when its items or values need
    /// keywords of their own, which only a field can carry.
    pub fn node_keywords_typeless(&self, ty: &Ty) -> Option<Vec<proc_macro2::TokenStream>> {
        match &ty.kind {
            TyKind::Vec(inner) | TyKind::Map(inner)
                if inner.kind != TyKind::AbsentItems
                    && self.named(inner).is_none()
                    && !self.node_keywords_deep(inner, false).is_empty() =>
            {
                None
            }
            _ => Some(self.node_keywords_deep(ty, false)),
        }
    }

    fn named(&self, ty: &Ty) -> Option<&TypeDef> {
        match ty.kind {
            TyKind::Named(id) => Some(self.space.get(id)),
            _ => None,
        }
    }

    fn is_nullable(&self, ty: &Ty) -> bool {
        self.space.is_nullable(ty)
    }

    /// The Rust type of a node (without the `Option` of an optional field), as tokens.
    pub fn ty(&self, ty: &Ty) -> TokenStream {
        self.ty_syn(ty).into_token_stream()
    }

    /// The Rust type of a node (without the `Option` of an optional field).
    pub fn ty_syn(&self, ty: &Ty) -> syn::Type {
        let p = &self.paths;
        let prim = |name: &str| ast::ty(ast::path(false, &[name]));
        match &ty.kind {
            TyKind::Bool => prim("bool"),
            TyKind::I32 => prim("i32"),
            TyKind::I64 => prim("i64"),
            TyKind::F64 => prim("f64"),
            TyKind::String => ast::ty(p.prelude_path(Prelude::String)),
            TyKind::IntOrString => ast::ty(p.import_path(Import::IntOrString)),
            TyKind::Json | TyKind::AbsentItems => ast::ty(p.import_path(Import::Value)),
            TyKind::JsonObject => {
                let (map, string, value) = (
                    p.import_path(Import::Map),
                    p.prelude_path(Prelude::String),
                    p.import_path(Import::Value),
                );
                ast::generic(map, vec![ast::ty(string), ast::ty(value)])
            }
            TyKind::Embedded => ast::ty(p.import_path(Import::EmbeddedObject)),
            TyKind::Vec(inner) => {
                let t = self.element_syn(inner);
                ast::generic(p.prelude_path(Prelude::Vec), vec![t])
            }
            TyKind::Map(inner) => {
                let t = self.element_syn(inner);
                self.map_of_syn(t)
            }
            TyKind::Named(id) => ast::ty(ast::ident_path(ident(&self.space.get(*id).name))),
            TyKind::K8s(k8s) => {
                let segments: Vec<&str> = k8s.path.split("::").collect();
                ast::ty(ast::path(true, &segments))
            }
        }
    }

    /// List items and map values that may be `null` are `Option`s.
    fn element_syn(&self, ty: &Ty) -> syn::Type {
        let t = self.ty_syn(ty);
        if self.is_nullable(ty) {
            ast::generic(self.paths.prelude_path(Prelude::Option), vec![t])
        } else {
            t
        }
    }

    fn map_of_syn(&self, value: syn::Type) -> syn::Type {
        let map = self.paths.import_path(match self.opts.map_type {
            MapType::BTreeMap => Import::BTreeMap,
            MapType::HashMap => Import::HashMap,
        });
        let string = ast::ty(self.paths.prelude_path(Prelude::String));
        ast::generic(map, vec![string, value])
    }
}

fn rename_attr(name: &RustName) -> Option<syn::Attribute> {
    name.rename.as_ref().map(|r| {
        let r = ast::str_lit(r);
        ast::list("serde", quote!(rename = #r))
    })
}

/// `attrs pub name: ty`.
fn field(attrs: Vec<syn::Attribute>, name: Ident, ty: syn::Type) -> syn::Field {
    syn::Field {
        attrs,
        vis: ast::public(),
        modifiers: Default::default(),
        ident: Some(name),
        colon_token: Some(Default::default()),
        ty,
        default: None,
    }
}

/// `#[allow(clippy::type_complexity)]` for a field of type `ty` that clippy would find
/// too complex (deep lists of lists of maps): the narrowest allow, on the field.
fn complexity_allow(ty: &syn::Type) -> Option<syn::Attribute> {
    (ast::type_complexity(ty) > ast::CLIPPY_TYPE_COMPLEXITY)
        .then(|| ast::list("allow", quote!(clippy::type_complexity)))
}

/// What crd-derive writes by itself for a structural shape (ATTRIBUTES.md § 4).
pub fn implied(kind: &TyKind) -> Implied {
    let t = |type_: &'static str, format: Option<&'static str>| Implied {
        type_: Some(type_),
        format,
        ..Implied::default()
    };
    match kind {
        TyKind::Bool => t("boolean", None),
        // crd-derive writes a plain `type` for these; the width is a `format` keyword.
        TyKind::I32 => t("integer", None),
        TyKind::I64 => t("integer", None),
        TyKind::F64 => t("number", None),
        TyKind::String => t("string", None),
        TyKind::IntOrString => Implied {
            int_or_string: true,
            ..Implied::default()
        },
        TyKind::Json | TyKind::AbsentItems => Implied {
            preserve: true,
            ..Implied::default()
        },
        TyKind::JsonObject => Implied {
            type_: Some("object"),
            preserve: true,
            ..Implied::default()
        },
        TyKind::Embedded => Implied {
            type_: Some("object"),
            preserve: true,
            embedded: true,
            ..Implied::default()
        },
        TyKind::Vec(_) => t("array", None),
        TyKind::Map(_) => t("object", None),
        // Named types are handled through their definition.
        TyKind::Named(_) => Implied::default(),
        // The residual holds only the node's description.
        TyKind::K8s(_) => Implied::default(),
    }
}

/// What a definition's derive writes by itself.
pub fn implied_def(def: &TypeDef) -> Implied {
    match &def.kind {
        DefKind::Struct { catch_all, .. } => Implied {
            type_: Some("object"),
            // A flattened map makes crd-derive keep unknown fields.
            preserve: catch_all.is_some(),
            ..Implied::default()
        },
        DefKind::StringEnum { .. } => Implied {
            type_: Some("string"),
            ..Implied::default()
        },
        // The inner field carries the node's keywords; the newtype adds none.
        DefKind::Newtype { .. } => Implied::default(),
    }
}
