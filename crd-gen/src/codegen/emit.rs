//! Type space → Rust items (`quote!`): structs, string enums, fields and their
//! `#[serde]`/`#[crd]` attributes.
//!
//! Paths are spelled by [`Paths`]: short names with `use` lines where no generated type
//! of the module shadows them, fully qualified paths where one does.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::docs::{doc_attrs, docs_roundtrip};
use super::ir::{DefKind, Field, Ty, TyKind, TypeDef, TypeSpace};
use super::keywords::{Implied, Skip, node_keywords};
use super::naming::RustName;
use super::paths::{Import, Paths, Prelude};
use super::{MapType, Options};

/// What the spec struct carries instead of a plain `CrdSchema` derive.
pub struct Resource {
    /// `crd_runtime::CustomResource`.
    pub derive: TokenStream,
    /// The `#[crd(...)]` resource attribute.
    pub attr: TokenStream,
    /// Doc comments (the root description).
    pub docs: TokenStream,
}

/// Emission context for one type space.
pub struct Emitter<'a> {
    /// The type space.
    pub space: &'a TypeSpace,
    /// Generator options.
    pub opts: &'a Options,
    /// How std, serde and runtime items are spelled in this module.
    pub paths: Paths,
}

/// An identifier token for a (possibly raw) name chosen by the naming policy.
pub fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

impl Emitter<'_> {
    /// The derives every generated type gets, plus the configured extra ones.
    pub fn derives(&self, schema_derive: TokenStream) -> TokenStream {
        let extra = self.opts.extra_derives.iter().map(|d| {
            let path: TokenStream = d.parse().unwrap_or_else(|_| quote!(compile_error!(#d)));
            quote!(, #path)
        });
        let ser = self.paths.import(Import::Serialize);
        let de = self.paths.import(Import::Deserialize);
        // Derive macros live in the macro namespace: a generated type called `Clone`
        // does not shadow the prelude's `Clone` derive.
        quote! {
            #[derive(Clone, Debug, PartialEq, #ser, #de, #schema_derive #(#extra)*)]
        }
    }

    /// Doc comments (and, when they would not reproduce it, an explicit keyword) for
    /// a description.
    pub fn docs(&self, description: Option<&str>) -> (TokenStream, bool) {
        match description {
            Some(d) if self.opts.docs && docs_roundtrip(d) => (doc_attrs(d), true),
            _ => (TokenStream::new(), false),
        }
    }

    /// Every definition except the ones in `skip` (emitted elsewhere), in order.
    pub fn defs(&self, skip: &[usize]) -> TokenStream {
        let mut defs: Vec<&TypeDef> = self
            .space
            .defs
            .iter()
            .enumerate()
            .filter(|(i, _)| !skip.contains(i))
            .map(|(_, def)| def)
            .collect();
        defs.sort_by_key(|d| d.seq);
        let items = defs.into_iter().map(|def| self.def(def, None));
        quote!(#(#items)*)
    }

    /// One definition. `resource` replaces the schema derive, node keywords and docs
    /// of the spec struct (`#[derive(CustomResource)] #[crd(...)]`).
    pub fn def(&self, def: &TypeDef, resource: Option<Resource>) -> TokenStream {
        let name = ident(&def.name);
        let (schema_derive, type_attr, docs) = match resource {
            Some(r) => (r.derive, r.attr, r.docs),
            None => {
                let (docs, documented) = self.docs(def.residual.description.as_deref());
                let kws = node_keywords(
                    &def.residual,
                    implied_def(def),
                    Skip {
                        description: documented,
                    },
                );
                let attr = if kws.is_empty() {
                    TokenStream::new()
                } else {
                    quote!(#[crd(#(#kws),*)])
                };
                (self.paths.import(Import::CrdSchema), attr, docs)
            }
        };
        let derives = self.derives(schema_derive);
        match &def.kind {
            DefKind::Struct { fields, catch_all } => {
                let fields = fields.iter().map(|f| self.field(f));
                let catch_all = catch_all.as_deref().map(|(n, ty)| {
                    let fname = ident(&n.ident);
                    let map = self.map_of(self.ty(ty));
                    quote! {
                        /// Properties not declared in the schema, kept as they are.
                        #[serde(flatten)]
                        pub #fname: #map,
                    }
                });
                quote! {
                    #docs
                    #derives
                    #type_attr
                    pub struct #name {
                        #(#fields)*
                        #catch_all
                    }
                }
            }
            DefKind::StringEnum { variants } => {
                let variants = variants.iter().map(|v| {
                    let vname = ident(&v.name.ident);
                    let rename = rename_attr(&v.name);
                    quote!(#rename #vname,)
                });
                // Variant names are the CRD's values (`AzurePublicCloud`, `AzureChinaCloud`):
                // a shared prefix is the schema's, not something to rename.
                quote! {
                    #docs
                    #derives
                    #type_attr
                    #[allow(clippy::enum_variant_names)]
                    pub enum #name {
                        #(#variants)*
                    }
                }
            }
        }
    }

    fn field(&self, f: &Field) -> TokenStream {
        let name = ident(&f.name.ident);
        let inner = self.ty(&f.ty);
        let nullable = self.is_nullable(&f.ty);
        let option = self.paths.prelude(Prelude::Option);
        let (ty, serde_extra) = if f.required && !nullable {
            (inner, TokenStream::new())
        } else if f.required {
            // Present but possibly `null`: keep the key when serializing.
            (quote!(#option<#inner>), TokenStream::new())
        } else {
            let is_none = self.paths.is_none();
            (
                quote!(#option<#inner>),
                quote!(skip_serializing_if = #is_none),
            )
        };
        let mut serde_parts = Vec::new();
        if let Some(r) = &f.name.rename {
            serde_parts.push(quote!(rename = #r));
        }
        if !serde_extra.is_empty() {
            serde_parts.push(quote!(default));
            serde_parts.push(serde_extra);
        }
        let serde_attr = if serde_parts.is_empty() {
            TokenStream::new()
        } else {
            quote!(#[serde(#(#serde_parts),*)])
        };

        let named = self.named(&f.ty);
        let description = match named {
            Some(def) => def.residual.description.as_deref(),
            None => f.ty.residual.description.as_deref(),
        };
        let (docs, documented) = self.docs(description);
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
        let crd_attr = if kws.is_empty() {
            TokenStream::new()
        } else {
            quote!(#[crd(#(#kws),*)])
        };
        quote! {
            #docs
            #serde_attr
            #crd_attr
            pub #name: #ty,
        }
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
            _ => {}
        }
        kws
    }

    fn named(&self, ty: &Ty) -> Option<&TypeDef> {
        match ty.kind {
            TyKind::Named(id) => Some(self.space.get(id)),
            _ => None,
        }
    }

    fn is_nullable(&self, ty: &Ty) -> bool {
        match self.named(ty) {
            Some(def) => def.residual.is_nullable(),
            None => ty.residual.is_nullable(),
        }
    }

    /// The Rust type of a node (without the `Option` of an optional field).
    pub fn ty(&self, ty: &Ty) -> TokenStream {
        let p = &self.paths;
        match &ty.kind {
            TyKind::Bool => quote!(bool),
            TyKind::I32 => quote!(i32),
            TyKind::I64 => quote!(i64),
            TyKind::F64 => quote!(f64),
            TyKind::String => p.prelude(Prelude::String),
            TyKind::IntOrString => p.import(Import::IntOrString),
            TyKind::Json | TyKind::AbsentItems => p.import(Import::Value),
            TyKind::JsonObject => {
                let (map, string, value) = (
                    p.import(Import::Map),
                    p.prelude(Prelude::String),
                    p.import(Import::Value),
                );
                quote!(#map<#string, #value>)
            }
            TyKind::Embedded => p.import(Import::EmbeddedObject),
            TyKind::Vec(inner) => {
                let t = self.element(inner);
                let vec = p.prelude(Prelude::Vec);
                quote!(#vec<#t>)
            }
            TyKind::Map(inner) => {
                let t = self.element(inner);
                self.map_of(t)
            }
            TyKind::Named(id) => {
                let name = ident(&self.space.get(*id).name);
                quote!(#name)
            }
        }
    }

    /// List items and map values that may be `null` are `Option`s.
    fn element(&self, ty: &Ty) -> TokenStream {
        let t = self.ty(ty);
        if self.is_nullable(ty) {
            let option = self.paths.prelude(Prelude::Option);
            quote!(#option<#t>)
        } else {
            t
        }
    }

    fn map_of(&self, value: TokenStream) -> TokenStream {
        let map = self.paths.import(match self.opts.map_type {
            MapType::BTreeMap => Import::BTreeMap,
            MapType::HashMap => Import::HashMap,
        });
        let string = self.paths.prelude(Prelude::String);
        quote!(#map<#string, #value>)
    }
}

fn rename_attr(name: &RustName) -> TokenStream {
    match &name.rename {
        Some(r) => quote!(#[serde(rename = #r)]),
        None => TokenStream::new(),
    }
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
    }
}
