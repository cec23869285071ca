//! The spec struct of a versioned module: which struct it is (its `#[crd(...)]` names the
//! `kind`), and what its `#[crd(...)]` says that the conversions need. The per-version keys
//! belong to the module's `version(...)` and are errors here.

use proc_macro2::TokenStream;
use quote::quote;
use serde_derive_internals::Ctxt;
use syn::{DeriveInput, Ident, Type};

use crate::attr::meta::{ItemValue, crd_items};
use crate::attr::value;

/// The kind: what the spec struct's `#[crd(...)]` says that the conversions need.
pub struct KindInfo {
    /// The index of the spec struct in `types`.
    pub spec: usize,
    /// `group`.
    pub group: String,
    /// The generated root type (`root_type`, else the kind).
    pub root: Ident,
    /// `status = T`.
    pub status: Option<Type>,
    /// `crate = path`, else `::crd_runtime`.
    pub rt: TokenStream,
}

/// The kind's settings from the spec struct's `#[crd(...)]`; reports the per-version
/// keys, which the module's `version(...)` sets.
pub fn kind_info(cx: &Ctxt, spec: usize, input: &DeriveInput) -> Option<KindInfo> {
    let items = crd_items(cx, &input.attrs);
    let (mut group, mut kind, mut root, mut status, mut rt) = (None, None, None, None, None);
    for item in &items {
        match item.name().as_str() {
            "group" => group = value::string(cx, item),
            "kind" => kind = value::string(cx, item),
            "root_type" => root = value::path(cx, item).and_then(|p| p.get_ident().cloned()),
            "status" => status = value::ty(cx, item),
            "crate" => rt = value::path(cx, item),
            key @ ("version" | "storage" | "served" | "deprecated" | "deprecation_warning") => {
                cx.syn_error(syn::Error::new(
                    item.key.span(),
                    format!(
                        "`{key}` is set per version by the module's `#[versioned(version(...))]`, not on the spec struct"
                    ),
                ));
            }
            "root" => {
                if let ItemValue::List(ts, span) = &item.value
                    && let Some(name) = extra_property(ts.clone())
                {
                    cx.syn_error(syn::Error::new(
                        *span,
                        format!(
                            "`root(property(name = \"{name}\"))` is not supported in a versioned module: top-level properties other than `apiVersion`, `kind` and `metadata` are not converted between versions"
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    let kind = kind?;
    Some(KindInfo {
        spec,
        group: group.map(|g| g.value).unwrap_or_default(),
        root: root.unwrap_or_else(|| Ident::new(&kind.value, kind.span)),
        status,
        rt: rt
            .map(|p| quote!(#p))
            .unwrap_or_else(|| quote!(::crd_runtime)),
    })
}

/// A `name = "x"` inside `root(...)` other than `apiVersion`, `kind`, `metadata`: a
/// top-level property the root type keeps in its `extra` map.
fn extra_property(ts: TokenStream) -> Option<String> {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                if let Some(name) = extra_property(g.stream()) {
                    return Some(name);
                }
            }
            TokenTree::Ident(id) if id == "name" => {
                if let (Some(TokenTree::Punct(eq)), Some(TokenTree::Literal(lit))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                    && eq.as_char() == '='
                    && let Ok(lit) = syn::parse_str::<syn::LitStr>(&lit.to_string())
                    && !["apiVersion", "kind", "metadata"].contains(&lit.value().as_str())
                {
                    return Some(lit.value());
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `#[crd(...)]` names the `kind`: the spec struct.
pub fn is_spec(input: &DeriveInput) -> bool {
    input.attrs.iter().any(|a| {
        a.path().is_ident("crd")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.clone().into_iter().any(
                |t| matches!(t, proc_macro2::TokenTree::Ident(i) if i == "kind")))
    })
}
