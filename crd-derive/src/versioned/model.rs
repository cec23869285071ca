//! The versioned module as a typed model: its versions, the kind (group, root type,
//! status), and every type with the life of each field or variant across the versions
//! (present or not, its name and type in each). `check` holds the rules; the emitters
//! only read this model.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use serde_derive_internals::Ctxt;
use syn::{DeriveInput, Ident, Type};

use super::attr::{Action, VersionDef};
use super::module::{ModItem, Module};
use super::spec::{KindInfo, is_spec, kind_info};
use crate::attr::value::Sp;

/// One version of the kind.
pub struct Version {
    /// `v1beta1`.
    pub name: String,
    /// The version's module, `v1beta1`.
    pub ident: Ident,
    /// Where the version was named.
    pub span: Span,
    /// Served by the API.
    pub served: bool,
    /// The storage version (exactly one).
    pub storage: bool,
    /// Deprecated, with the warning text if any.
    pub deprecated: Option<Option<String>>,
}

/// Where a field or variant starts or stops existing.
pub struct Bound {
    /// The version index.
    pub index: usize,
    /// The `since` literal.
    pub span: Span,
    /// The value for objects converted from a version without the member.
    pub default: Option<syn::Path>,
}

/// A `changed(...)` or `deprecated(...)` action.
pub struct Change {
    /// The version index it happens in.
    pub index: usize,
    /// The `since` literal.
    pub span: Span,
    /// The name before `index` (for `deprecated`, the name without `deprecated_`).
    pub from_name: Option<Sp<String>>,
    /// The type before `index`.
    pub from_type: Option<Type>,
    /// `fn(Old) -> New`.
    pub upgrade_with: Option<syn::Path>,
    /// `fn(New) -> Old`.
    pub downgrade_with: Option<syn::Path>,
    /// `deprecated(note = ...)`: `Some` for a deprecation.
    pub deprecation: Option<Option<String>>,
}

/// A field of a struct or a variant of an enum, across versions.
pub struct Member {
    /// The name as written (its name in the last version that has it).
    pub ident: Ident,
    /// The field's type as written (`None` for variants).
    pub ty: Option<Type>,
    /// `added(...)`.
    pub added: Option<Bound>,
    /// `removed(...)`.
    pub removed: Option<Bound>,
    /// `changed(...)` and `deprecated(...)`, in the order written.
    pub changes: Vec<Change>,
}

/// Turns a `from_name` into an identifier (raw when it is a keyword).
pub fn ident_of(name: &Sp<String>) -> Ident {
    syn::parse_str::<Ident>(&name.value)
        .map(|mut i| {
            i.set_span(name.span);
            i
        })
        .unwrap_or_else(|_| Ident::new_raw(&name.value, name.span))
}

impl Member {
    /// The name the versioned module gives it, the key of its kept values.
    pub fn key(&self) -> String {
        let s = self.ident.to_string();
        s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
    }

    /// Whether version `v` has it.
    pub fn present(&self, v: usize) -> bool {
        self.added.as_ref().is_none_or(|a| v >= a.index)
            && self.removed.as_ref().is_none_or(|r| v < r.index)
    }

    fn undone_after(&self, v: usize) -> impl Iterator<Item = &Change> {
        let mut later: Vec<&Change> = self.changes.iter().filter(|c| c.index > v).collect();
        later.sort_by_key(|c| std::cmp::Reverse(c.index));
        later.into_iter()
    }

    /// Its name in version `v`.
    pub fn ident_at(&self, v: usize) -> Ident {
        let mut ident = self.ident.clone();
        for c in self.undone_after(v) {
            if let Some(n) = &c.from_name {
                ident = ident_of(n);
            }
        }
        ident
    }

    /// Its type in version `v` (fields only).
    pub fn ty_at(&self, v: usize) -> Option<Type> {
        let mut ty = self.ty.clone()?;
        for c in self.undone_after(v) {
            if let Some(t) = &c.from_type {
                ty = t.clone();
            }
        }
        Some(ty)
    }

    /// The retyping that happens in version `v`, if any.
    pub fn retype_in(&self, v: usize) -> Option<&Change> {
        self.changes
            .iter()
            .find(|c| c.index == v && c.from_type.is_some())
    }

    /// The deprecation in effect in version `v`, if any.
    pub fn deprecation_at(&self, v: usize) -> Option<&Option<String>> {
        self.changes
            .iter()
            .filter(|c| c.index <= v)
            .find_map(|c| c.deprecation.as_ref())
    }

    /// The value of the member for an object converted across `bound` without a kept
    /// value: the bound's `default` function, else `Default::default()`.
    pub fn default_expr(bound: Option<&Bound>) -> TokenStream {
        match bound.and_then(|b| b.default.as_ref()) {
            Some(path) => quote!(#path()),
            None => quote!(::core::default::Default::default()),
        }
    }
}

/// One struct or enum of the module.
pub struct VType {
    /// The type as written, without `#[versioned]` attributes.
    pub input: DeriveInput,
    /// Its fields (struct) or variants (enum).
    pub members: Vec<Member>,
}

impl VType {
    /// Whether the type is an enum.
    pub fn is_enum(&self) -> bool {
        matches!(self.input.data, syn::Data::Enum(_))
    }
}

/// The whole module.
pub struct Model {
    /// The versions, in order.
    pub versions: Vec<Version>,
    /// The storage version's index (the hub of the conversions).
    pub hub: usize,
    /// The kind's types.
    pub types: Vec<VType>,
    /// The kind, when the module has exactly one spec struct.
    pub kind: Option<KindInfo>,
    /// `impl` blocks, copied into every version.
    pub impls: Vec<TokenStream>,
    /// Everything else, kept once in the outer module.
    pub others: Vec<TokenStream>,
}

/// The index of the version named `since`, or an error at it.
pub fn resolve(cx: &Ctxt, versions: &[Version], since: &Sp<String>) -> Option<usize> {
    let found = versions.iter().position(|v| v.name == since.value);
    if found.is_none() {
        let names: Vec<&str> = versions.iter().map(|v| v.name.as_str()).collect();
        cx.syn_error(syn::Error::new(
            since.span,
            format!(
                "unknown version `{}` in `since`: the module's versions are {}",
                since.value,
                names.join(", ")
            ),
        ));
    }
    found
}

fn member(
    cx: &Ctxt,
    versions: &[Version],
    ident: Ident,
    ty: Option<Type>,
    actions: Vec<Action>,
) -> Member {
    let mut m = Member {
        ident,
        ty,
        added: None,
        removed: None,
        changes: Vec::new(),
    };
    for action in actions {
        let since = action.since().clone();
        let Some(index) = resolve(cx, versions, &since) else {
            continue;
        };
        let span = since.span;
        let is_added = matches!(action, Action::Added { .. });
        match action {
            Action::Added { default, .. } | Action::Removed { default, .. } => {
                let slot = if is_added {
                    &mut m.added
                } else {
                    &mut m.removed
                };
                if slot.is_some() {
                    let which = if is_added { "added" } else { "removed" };
                    cx.syn_error(syn::Error::new(
                        span,
                        format!("`{}` is `{which}(...)` twice", m.ident),
                    ));
                }
                *slot = Some(Bound {
                    index,
                    span,
                    default,
                });
            }
            Action::Changed {
                from_name,
                from_type,
                upgrade_with,
                downgrade_with,
                ..
            } => m.changes.push(Change {
                index,
                span,
                from_name,
                from_type: from_type.map(|t| *t),
                upgrade_with,
                downgrade_with,
                deprecation: None,
            }),
            Action::Deprecated { note, .. } => {
                let name = m.key();
                let from_name = name.strip_prefix("deprecated_").map(|n| Sp {
                    value: n.to_string(),
                    span: m.ident.span(),
                });
                m.changes.push(Change {
                    index,
                    span,
                    from_name,
                    from_type: None,
                    upgrade_with: None,
                    downgrade_with: None,
                    deprecation: Some(note),
                });
            }
        }
    }
    m
}

fn versions(cx: &Ctxt, defs: Vec<VersionDef>) -> (Vec<Version>, usize) {
    let mut out: Vec<Version> = Vec::new();
    let mut storage = Vec::new();
    for d in defs {
        if out.iter().any(|v| v.name == d.name.value) {
            cx.syn_error(syn::Error::new(
                d.name.span,
                format!("version `{}` is listed twice", d.name.value),
            ));
            continue;
        }
        let ident = match syn::parse_str::<Ident>(&d.name.value) {
            Ok(mut i) => {
                i.set_span(d.name.span);
                i
            }
            _ => {
                cx.syn_error(syn::Error::new(
                    d.name.span,
                    format!(
                        "`{}` is not a Kubernetes version name like `v1`, `v1beta1` or `v2alpha3`",
                        d.name.value
                    ),
                ));
                continue;
            }
        };
        if let Some(span) = d.storage {
            storage.push((out.len(), span));
        }
        out.push(Version {
            name: d.name.value,
            ident,
            span: d.name.span,
            served: d.served,
            storage: false,
            deprecated: d.deprecated,
        });
    }
    if let [_, (_, second), ..] = storage.as_slice() {
        cx.syn_error(syn::Error::new(
            *second,
            "two versions are `storage`: exactly one version stores objects",
        ));
    }
    let hub = storage
        .first()
        .map(|(i, _)| *i)
        .unwrap_or(out.len().saturating_sub(1));
    if let Some(v) = out.get_mut(hub) {
        v.storage = true;
    }
    (out, hub)
}

/// Builds the model, reporting what cannot be read.
pub fn build(cx: &Ctxt, defs: Vec<VersionDef>, module: Module) -> Model {
    let (versions, hub) = versions(cx, defs);
    let mut types = Vec::new();
    let (mut impls, mut others) = (Vec::new(), Vec::new());
    let mut specs = Vec::new();
    for item in module.items {
        let mut input = match item {
            ModItem::Type(input) => *input,
            ModItem::Impl(ts) => {
                impls.push(ts);
                continue;
            }
            ModItem::Inner(ts) | ModItem::Other(ts) => {
                others.push(ts);
                continue;
            }
        };
        let own = super::attr::actions(cx, &mut input.attrs);
        if !own.is_empty() {
            cx.error_spanned_by(
                &input.ident,
                "`#[versioned(...)]` goes on fields and variants; every type exists in every version",
            );
        }
        let mut members = Vec::new();
        match &mut input.data {
            syn::Data::Struct(s) => {
                for (i, f) in s.fields.iter_mut().enumerate() {
                    let actions = super::attr::actions(cx, &mut f.attrs);
                    let Some(ident) = f.ident.clone() else {
                        if !actions.is_empty() || i == 0 {
                            cx.error_spanned_by(&f.ty, "a versioned type needs named fields");
                        }
                        continue;
                    };
                    members.push(member(cx, &versions, ident, Some(f.ty.clone()), actions));
                }
            }
            syn::Data::Enum(e) => {
                for v in e.variants.iter_mut() {
                    let actions = super::attr::actions(cx, &mut v.attrs);
                    for f in v.fields.iter_mut() {
                        if !super::attr::actions(cx, &mut f.attrs).is_empty() {
                            cx.error_spanned_by(
                                &f.ty,
                                "`#[versioned(...)]` on a field of a variant is not supported: version the variant",
                            );
                        }
                    }
                    members.push(member(cx, &versions, v.ident.clone(), None, actions));
                }
            }
            syn::Data::Union(_) => cx.error_spanned_by(
                &input.ident,
                "a versioned module holds structs and enums, not unions",
            ),
        }
        if is_spec(&input) {
            specs.push(types.len());
        }
        types.push(VType { input, members });
    }
    let kind = match specs.as_slice() {
        [spec] => kind_info(cx, *spec, &types[*spec].input),
        [] => {
            cx.error_spanned_by(
                &module.ident,
                "a versioned module needs the kind's spec struct: a struct with `#[crd(group = \"...\", kind = \"...\")]`",
            );
            None
        }
        [_, second, ..] => {
            cx.error_spanned_by(
                &types[*second].input.ident,
                "a versioned module holds one kind: a second struct has `#[crd(kind = ...)]`",
            );
            None
        }
    };
    Model {
        versions,
        hub,
        types,
        kind,
        impls,
        others,
    }
}
