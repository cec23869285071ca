//! The derive input as the code generators see it: serde's view of the type (names,
//! flatten, tags, defaults, skips — from `serde_derive_internals`, so they agree with
//! serde by construction) plus our `#[crd(...)]` node keywords and doc comments.

use serde_derive_internals::ast::{Container, Field, Variant};
use serde_derive_internals::{Ctxt, Derive};
use syn::DeriveInput;

use crate::attr::meta::{Item, crd_items};
use crate::attr::node::NodeAttrs;

/// `#[crd(...)]` and docs of one field.
pub struct FieldExtra {
    /// Node keywords.
    pub node: NodeAttrs,
    /// Doc comment.
    pub doc: Option<String>,
}

/// The parsed input.
pub struct Input<'a> {
    /// serde's view.
    pub serde: Container<'a>,
    /// Container-level `#[crd(...)]` items (interpreted by the derive).
    pub items: Vec<Item>,
    /// Container doc comment.
    pub doc: Option<String>,
}

/// The doc comment of `attrs`, lines joined with `\n`, one leading space removed per line.
pub fn doc_of(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let v = s.value();
            for line in v.split('\n') {
                lines.push(
                    line.strip_prefix(' ')
                        .unwrap_or(line)
                        .trim_end()
                        .to_string(),
                );
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Reads serde's attributes. Serde reports its own attribute errors, so ours would only
/// duplicate them: they are dropped here, and `None` means "emit nothing".
pub fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<Input<'a>> {
    let serde_cx = Ctxt::new();
    let private = syn::Ident::new("__private", proc_macro2::Span::call_site());
    let container = Container::from_ast(&serde_cx, input, Derive::Deserialize, &private);
    if serde_cx.check().is_err() {
        return None;
    }
    let container = container?;
    Some(Input {
        serde: container,
        items: crd_items(cx, &input.attrs),
        doc: doc_of(&input.attrs),
    })
}

/// `#[crd(...)]` node keywords and docs of a field.
pub fn field_extra(cx: &Ctxt, field: &Field) -> FieldExtra {
    let items = crd_items(cx, &field.original.attrs);
    FieldExtra {
        node: NodeAttrs::from_items(cx, &items),
        doc: doc_of(&field.original.attrs),
    }
}

/// The wire name of a field or variant; a compile error when serialize and
/// deserialize names differ (a CRD property has one name).
pub fn wire_name(
    cx: &Ctxt,
    name: &serde_derive_internals::name::MultiName,
    span: &dyn quote::ToTokens,
) -> String {
    let ser = &name.serialize_name().value;
    let de = &name.deserialize_name().value;
    if ser != de {
        cx.error_spanned_by(
            span.to_token_stream(),
            format!(
                "serialize name {ser:?} differs from deserialize name {de:?}: a CRD property has one name"
            ),
        );
    }
    de.clone()
}

/// Fields that appear on the wire when reading (skipped fields have no schema).
pub fn wire_fields<'a, 'b>(fields: &'b [Field<'a>]) -> impl Iterator<Item = &'b Field<'a>> {
    fields
        .iter()
        .filter(|f| !(f.attrs.skip_deserializing() && f.attrs.skip_serializing()))
}

/// Variants that can appear on the wire.
pub fn wire_variants<'a, 'b>(variants: &'b [Variant<'a>]) -> impl Iterator<Item = &'b Variant<'a>> {
    variants
        .iter()
        .filter(|v| !(v.attrs.skip_deserializing() && v.attrs.skip_serializing()))
}
