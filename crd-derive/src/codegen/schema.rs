//! `impl CrdSchema`: the schema of a struct or enum, following serde's representation.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use serde_derive_internals::Ctxt;
use serde_derive_internals::ast::{Data, Field, Style, Variant};
use serde_derive_internals::attr::TagType;

use super::markers::{self, FieldNames};
use super::node;
use crate::ast::{FieldExtra, Input, field_extra, wire_fields, wire_name, wire_variants};
use crate::attr::node::NodeAttrs;
use crate::check;
use crate::tokens::Rt;

/// What the generated `CrdSchema` impl needs besides the body.
pub struct Schema {
    /// An expression of type `JSONSchemaProps`.
    pub body: TokenStream,
    /// `Some([(name, required expr)])` for plain structs: `CrdSchema::FIELDS`.
    pub fields: Option<Vec<(String, TokenStream)>>,
    /// Item-level compile-time checks (`const _: () = ...;`).
    pub checks: Vec<TokenStream>,
    /// The `literal` marker of the JSON kind of values (`Object`, `Str`).
    pub literal: &'static str,
    /// Serde names of the direct properties (plain structs only), for JSONPath checks.
    pub property_names: Option<Vec<String>>,
    /// The properties of a struct, for resolving one-of groups on its node.
    pub names: Option<FieldNames>,
}

/// What walking the fields of an object collects besides the statements.
#[derive(Default)]
struct Collect {
    /// (serde name, required expression) of every non-flattened property.
    fields: Vec<(String, TokenStream)>,
    /// Item-level compile-time checks.
    checks: Vec<TokenStream>,
    /// Whether a `#[serde(flatten)]` field was seen.
    flattened: bool,
    /// (Rust name, serde name) of every non-flattened property.
    names: Vec<(String, String)>,
    /// Where `immutable` was written on a field.
    immutable: Vec<Span>,
}

fn node_var() -> syn::Ident {
    syn::Ident::new("__node", Span::mixed_site())
}

/// Statements adding the properties of `fields` to the object in `__node`.
fn object_fields(
    cx: &Ctxt,
    rt: &Rt,
    fields: &[Field],
    container_default: bool,
    generic: bool,
    col: &mut Collect,
) -> TokenStream {
    let rtp = &rt.0;
    let p = rt.private();
    let node = node_var();
    let mut stmts = TokenStream::new();
    let mut once_set = Vec::new();
    for field in wire_fields(fields) {
        let extra = field_extra(cx, field);
        let ty = field.ty;
        let ty_tokens = quote!(#ty);
        if field.attrs.flatten() {
            col.flattened = true;
            if !extra.node.is_empty() {
                cx.error_spanned_by(
                    field.original,
                    "`#[crd(...)]` keywords do not apply to a `#[serde(flatten)]` field: put them on the flattened type",
                );
            }
            stmts.extend(quote! {
                #p::flatten(#node, <#ty as #rtp::CrdSchema>::crd_field_schema(), <#ty as #rtp::CrdSchema>::OPTIONAL);
            });
            continue;
        }
        let name = wire_name(cx, field.attrs.name(), &field.original);
        check::field(cx, &extra, field);
        let mut extra = extra;
        extra.node = markers::resolve(cx, &extra.node, None);
        if let Some(ident) = &field.original.ident {
            let rust = syn::ext::IdentExt::unraw(ident).to_string();
            col.names.push((rust, name.clone()));
        }
        let required = required_expr(rt, field, &extra, container_default);
        optional_check(cx, rt, field, &extra, container_default, generic, col);
        if let Some(e) = extra.node.get("immutable")
            && extra.node.flag("immutable") == Some(true)
        {
            col.immutable.push(e.key.span());
            let (rule, message) = markers::once_set_rule(&name);
            let rule = markers::rule_tokens(rt, &rule, &message);
            once_set.push(quote!(if !(#required) { __once_set.push(#rule); }));
        }
        // A list-map key must be required or carry a schema default (the API server's
        // rule); serde's own defaults do not count, the server never fills them in.
        let always_present = if extra.node.get("default").is_some() {
            quote!(true)
        } else {
            required.clone()
        };
        col.fields.push((name.clone(), always_present));
        if !generic {
            col.checks
                .extend(check::list_map_key_consts(rt, &extra.node, &ty_tokens));
        }
        let prop = property_schema(rt, &extra, &ty_tokens);
        let aliases: Vec<&str> = field
            .attrs
            .aliases()
            .iter()
            .map(|a| a.value.as_str())
            .filter(|a| *a != name)
            .collect();
        stmts.extend(if aliases.is_empty() {
            quote!(#p::add_property(#node, #name, #prop, #required);)
        } else {
            quote!(#p::add_aliased_property(#node, #name, &[#(#aliases),*], #prop, #required);)
        });
    }
    if !once_set.is_empty() {
        // After every property, like controller-gen (before the type's own rules).
        stmts.extend(quote! {
            let mut __once_set = ::std::vec::Vec::new();
            #(#once_set)*
            #p::add_rules(#node, __once_set);
        });
    }
    stmts
}

/// `optional` (controller-gen's `+optional`) on a field serde cannot do without would
/// admit objects the Rust type cannot read: refuse it, at the attribute.
fn optional_check(
    cx: &Ctxt,
    rt: &Rt,
    field: &Field,
    extra: &FieldExtra,
    container_default: bool,
    generic: bool,
    col: &mut Collect,
) {
    let Some(span) = extra.node.optional() else {
        return;
    };
    if let Some(e) = extra.node.get("required") {
        cx.syn_error(syn::Error::new(
            e.key.span(),
            "`required` and `optional` contradict each other",
        ));
        return;
    }
    let serde_fills = !field.attrs.default().is_none()
        || container_default
        || field.attrs.skip_deserializing()
        || extra.node.get("default").is_some();
    if serde_fills {
        return;
    }
    const HINT: &str = "`optional` on a field serde requires: the API server would admit objects \
                        without it that the type cannot read; make it an `Option<T>`, or add \
                        `#[serde(default)]` or `#[crd(default = ...)]`";
    if extra.node.schemars().is_some() {
        if !is_option(field.ty) {
            cx.syn_error(syn::Error::new(span, HINT));
        }
        return;
    }
    if generic {
        return;
    }
    let (rtp, ty) = (&rt.0, field.ty);
    col.checks.push(crate::tokens::respan(
        quote!(
            const _: () = ::core::assert!(<#ty as #rtp::CrdSchema>::OPTIONAL, #HINT);
        ),
        span,
    ));
}

/// The `required` expression of a field: serde needs the field unless it has a default
/// (serde's, or the schema's, which the API server fills in) or is an `Option`.
fn required_expr(
    rt: &Rt,
    field: &Field,
    extra: &FieldExtra,
    container_default: bool,
) -> TokenStream {
    let rtp = &rt.0;
    if let Some(b) = extra.node.required_flag() {
        return quote!(#b);
    }
    if extra.node.optional().is_some() {
        return quote!(false);
    }
    let defaulted = !field.attrs.default().is_none()
        || container_default
        || extra.node.get("default").is_some()
        || field.attrs.skip_deserializing();
    if defaulted {
        quote!(false)
    } else if extra.node.schemars().is_some() {
        // The type has no `CrdSchema` impl to ask; serde reads a missing `Option` as None.
        let optional = is_option(field.ty);
        quote!(!#optional)
    } else {
        let ty = field.ty;
        quote!(!<#ty as #rtp::CrdSchema>::OPTIONAL)
    }
}

/// Whether `ty` is written `Option<...>` (for `#[crd(schemars)]` fields, whose type has
/// no `CrdSchema::OPTIONAL` to ask).
fn is_option(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Option"),
        _ => false,
    }
}

/// An expression: the schema of one property (base schema, doc, keywords).
fn property_schema(rt: &Rt, extra: &FieldExtra, ty: &TokenStream) -> TokenStream {
    let rtp = &rt.0;
    let node = node_var();
    let base = match (
        extra.node.get("schema_with").map(|e| &e.val),
        extra.node.schemars(),
    ) {
        (Some(crate::attr::node::Val::Path(path)), _) => quote!(#path()),
        // Spanned at the attribute: without crd-runtime's `schemars` feature the macro is
        // a `compile_error!` that points there.
        (_, Some(span)) => quote_spanned!(span=> #rtp::__schemars_field_schema!(#ty)),
        _ => quote!(<#ty as #rtp::CrdSchema>::crd_field_schema()),
    };
    let doc = match (&extra.doc, extra.node.get("description")) {
        (Some(d), None) => {
            quote!(#node.description = ::core::option::Option::Some(::std::string::String::from(#d));)
        }
        _ => TokenStream::new(),
    };
    // `schema = ...` replaces the base; the doc comment applies on top, like a keyword.
    let replace = node::base(rt, &extra.node, &node);
    let kws = node::keywords(rt, &extra.node, &node, Some(ty));
    if replace.is_empty() && doc.is_empty() && kws.is_empty() {
        return base;
    }
    quote!({
        let mut __schema = #base;
        {
            let #node = &mut __schema;
            #replace
            #doc
            #kws
        }
        __schema
    })
}

/// The schema of a derive input. `doc` is put on the node when given (`CrdSchema`);
/// `CustomResource` passes `None` because its doc describes the whole object.
pub fn schema(
    cx: &Ctxt,
    rt: &Rt,
    input: &Input,
    node_attrs: &NodeAttrs,
    doc: Option<&str>,
) -> Schema {
    let p = rt.private();
    let node = node_var();
    let generic = !input.serde.generics.params.is_empty();
    let container_default = !input.serde.attrs.default().is_none();
    let mut col = Collect::default();
    let plain_struct = matches!(&input.serde.data, Data::Struct(Style::Struct, _));
    let (body, literal, plain) = match &input.serde.data {
        Data::Struct(Style::Struct, fields) => {
            let stmts = object_fields(cx, rt, fields, container_default, generic, &mut col);
            (
                quote!({
                    let mut __schema = #p::object();
                    {
                        let #node = &mut __schema;
                        #stmts
                    }
                    __schema
                }),
                "Object",
                !col.flattened,
            )
        }
        Data::Struct(Style::Newtype, fields) => {
            let field = &fields[0];
            let extra = field_extra(cx, field);
            let ty = field.ty;
            (property_schema(rt, &extra, &quote!(#ty)), "Newtype", false)
        }
        Data::Struct(Style::Tuple, _) => {
            cx.error_spanned_by(
                input.serde.original,
                "a tuple struct is a JSON array of mixed items, which a structural schema cannot describe; \
                 hint: use named fields, or a newtype around one type",
            );
            (quote!(#p::object()), "Object", false)
        }
        Data::Struct(Style::Unit, _) => {
            cx.error_spanned_by(
                input.serde.original,
                "a unit struct serializes as `null`, which a structural schema cannot describe; \
                 hint: use `struct Name {}`",
            );
            (quote!(#p::object()), "Object", false)
        }
        Data::Enum(variants) => {
            let (body, literal) = enum_schema(cx, rt, input, variants, generic, &mut col.checks);
            (body, literal, false)
        }
    };
    let doc = match (doc, node_attrs.get("description")) {
        (Some(d), None) => {
            quote!(#node.description = ::core::option::Option::Some(::std::string::String::from(#d));)
        }
        _ => TokenStream::new(),
    };
    let names = plain_struct.then(|| FieldNames {
        fields: std::mem::take(&mut col.names),
        complete: !col.flattened,
    });
    let node_attrs = &markers::resolve(cx, node_attrs, names.as_ref());
    let replace = node::base(rt, node_attrs, &node);
    let kws = node::keywords(rt, node_attrs, &node, None);
    let body = if replace.is_empty() && doc.is_empty() && kws.is_empty() {
        body
    } else {
        quote!({
            let mut __schema = #body;
            {
                let #node = &mut __schema;
                #replace
                #doc
                #kws
            }
            __schema
        })
    };
    let property_names = plain.then(|| col.fields.iter().map(|(n, _)| n.clone()).collect());
    Schema {
        body,
        fields: plain.then_some(col.fields),
        checks: col.checks,
        literal,
        property_names,
        names,
    }
}

fn variant_schema(
    cx: &Ctxt,
    rt: &Rt,
    v: &Variant,
    generic: bool,
    checks: &mut Vec<TokenStream>,
) -> TokenStream {
    let p = rt.private();
    let node = node_var();
    match v.style {
        Style::Unit => quote!(#p::object()),
        Style::Newtype => {
            let field = &v.fields[0];
            let extra = field_extra(cx, field);
            let ty = field.ty;
            property_schema(rt, &extra, &quote!(#ty))
        }
        Style::Struct => {
            let mut col = Collect::default();
            let stmts = object_fields(cx, rt, &v.fields, false, generic, &mut col);
            checks.append(&mut col.checks);
            // The variants' objects are merged into one schema, which keeps their
            // properties but not the rules a variant's own node would carry.
            for span in col.immutable {
                cx.syn_error(syn::Error::new(
                    span,
                    "`immutable` on a field of an enum variant: the rule that keeps an optional \
                     field set would be lost when the variants are merged; mark the enum type \
                     (`#[crd(immutable)]`) or the field that holds it",
                ));
            }
            quote!({
                let mut __schema = #p::object();
                {
                    let #node = &mut __schema;
                    #stmts
                }
                __schema
            })
        }
        Style::Tuple => {
            cx.error_spanned_by(
                v.original,
                "a tuple variant is a JSON array of mixed items, which a structural schema cannot describe; \
                 hint: use a struct variant `Name { .. }` or a newtype variant",
            );
            quote!(#p::object())
        }
    }
}

fn with_variant_doc(rt: &Rt, v: &Variant, schema: TokenStream) -> TokenStream {
    let _ = rt;
    let node = node_var();
    match crate::ast::doc_of(&v.original.attrs) {
        Some(d) if !matches!(v.style, Style::Unit) => quote!({
            let mut __schema = #schema;
            {
                let #node = &mut __schema;
                if #node.description.is_none() {
                    #node.description = ::core::option::Option::Some(::std::string::String::from(#d));
                }
            }
            __schema
        }),
        _ => schema,
    }
}

fn enum_schema(
    cx: &Ctxt,
    rt: &Rt,
    input: &Input,
    variants: &[Variant],
    generic: bool,
    checks: &mut Vec<TokenStream>,
) -> (TokenStream, &'static str) {
    let p = rt.private();
    let wire: Vec<&Variant> = wire_variants(variants).collect();
    for v in &wire {
        let items = crate::attr::meta::crd_items(cx, &v.original.attrs);
        if let Some(item) = items.first() {
            cx.syn_error(syn::Error::new(
                item.key.span(),
                "`#[crd(...)]` is not supported on variants: put keywords on the variant's fields or type",
            ));
        }
    }
    let names: Vec<String> = wire
        .iter()
        .map(|v| wire_name(cx, v.attrs.name(), &v.original.ident))
        .collect();
    let all_unit = wire.iter().all(|v| matches!(v.style, Style::Unit));
    let span = input.serde.original.ident.span();
    match input.serde.attrs.tag() {
        TagType::External if all_unit => (quote!(#p::string_enum(&[#(#names),*])), "Str"),
        TagType::External => {
            if let Some(unit) = wire.iter().find(|v| matches!(v.style, Style::Unit)) {
                cx.error_spanned_by(
                    &unit.original.ident,
                    "this enum mixes unit variants (written as strings) with data variants (written as objects); \
                     a structural schema cannot describe both. hint: write the unit variant as `Name {}`, \
                     or use `#[serde(tag = \"type\")]`",
                );
            }
            let entries = wire.iter().zip(&names).map(|(v, n)| {
                let s = with_variant_doc(rt, v, variant_schema(cx, rt, v, generic, checks));
                quote!((#n, #s))
            });
            (
                quote!(#p::external_enum(::std::vec![#(#entries),*])),
                "Object",
            )
        }
        TagType::Internal { tag } => {
            let entries = wire.iter().zip(&names).map(|(v, n)| {
                let s = variant_schema(cx, rt, v, generic, checks);
                quote!((#n, #s))
            });
            (
                quote!(#p::internal_enum(#tag, ::std::vec![#(#entries),*])),
                "Object",
            )
        }
        TagType::Adjacent { tag, content } => {
            let entries = wire.iter().zip(&names).map(|(v, n)| {
                if matches!(v.style, Style::Unit) {
                    quote!((#n, ::core::option::Option::None))
                } else {
                    let s = variant_schema(cx, rt, v, generic, checks);
                    quote!((#n, ::core::option::Option::Some(#s)))
                }
            });
            (
                quote!(#p::adjacent_enum(#tag, #content, ::std::vec![#(#entries),*])),
                "Object",
            )
        }
        TagType::None => {
            if let Some(unit) = wire.iter().find(|v| matches!(v.style, Style::Unit)) {
                cx.error_spanned_by(
                    &unit.original.ident,
                    "an untagged unit variant is written as `null`, which a structural schema cannot describe; \
                     hint: remove it and wrap the field in `Option`",
                );
            }
            let bodies: Vec<TokenStream> = wire
                .iter()
                .map(|v| variant_schema(cx, rt, v, generic, checks))
                .collect();
            (
                quote_spanned!(span=> #p::untagged_enum(::std::vec![#(#bodies),*])),
                "Object",
            )
        }
    }
}
