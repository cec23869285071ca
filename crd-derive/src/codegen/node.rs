//! Code that applies node keywords to a `JSONSchemaProps` being built.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::attr::node::{Entry, Kind, NodeAttrs, Required, Rule, Val};
use crate::attr::value::Json;
use crate::tokens::{Rt, respan};

fn opt_str(v: &Option<String>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// Tokens building one CEL rule.
pub fn rule_tokens(rt: &Rt, r: &Rule) -> TokenStream {
    let p = rt.private();
    let rule = &r.rule;
    let (m, me, re, fp) = (
        opt_str(&r.message),
        opt_str(&r.message_expression),
        opt_str(&r.reason),
        opt_str(&r.field_path),
    );
    let oos = match r.optional_old_self {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    quote!(#p::rule(#rule, #m, #me, #re, #fp, #oos))
}

/// Statements applying `attrs` to the node in variable `target` (a
/// `&mut JSONSchemaProps`). `ty` is the Rust type of the node, when there is one: it
/// types `items(...)`/`values(...)` and the compile-time `default` check.
pub fn apply(
    rt: &Rt,
    attrs: &NodeAttrs,
    target: &syn::Ident,
    ty: Option<&TokenStream>,
) -> TokenStream {
    let mut out = base(rt, attrs, target);
    out.extend(keywords(rt, attrs, target, ty));
    out
}

/// The `schema = ...` replacement of the node's base schema, if any: it goes before
/// the doc comment and every other keyword, which apply on top of it.
pub fn base(rt: &Rt, attrs: &NodeAttrs, target: &syn::Ident) -> TokenStream {
    let p = rt.private();
    let mut out = TokenStream::new();
    for e in &attrs.entries {
        if let (Kind::Base, Val::Json(j)) = (&e.kw.kind, &e.val) {
            let j = rt.json(&j.value);
            out.extend(quote!(*#target = #p::fragment(#j);));
        }
    }
    out
}

/// [`apply`] without the [`base`] replacement.
pub fn keywords(
    rt: &Rt,
    attrs: &NodeAttrs,
    target: &syn::Ident,
    ty: Option<&TokenStream>,
) -> TokenStream {
    let p = rt.private();
    let mut out = TokenStream::new();
    let mut rules = Vec::new();
    for e in &attrs.entries {
        let field = format_ident!(
            "{}",
            if e.kw.field.is_empty() {
                "unused"
            } else {
                e.kw.field
            }
        );
        let some = quote!(::core::option::Option::Some);
        let set = |v: TokenStream| quote!(#target.#field = #some(#v););
        let stmt = match (&e.kw.kind, &e.val) {
            (Kind::Str, Val::Str(s)) => {
                let v = &s.value;
                set(quote!(::std::string::String::from(#v)))
            }
            (Kind::Str, Val::Unset) => quote!(#target.#field = ::core::option::Option::None;),
            (Kind::Count, Val::Count(c)) => {
                let v = c.value;
                set(quote!(#v))
            }
            (Kind::Num, Val::Num(n)) => set(rt.number(&n.value)),
            (Kind::Flag, Val::Flag(b)) if e.kw.key == "no_descriptions" && b.value => {
                quote!(#p::strip_nested_descriptions(#target);)
            }
            (Kind::Flag, Val::Flag(b)) if e.kw.key == "immutable" => {
                if b.value {
                    rules.push(super::markers::rule_tokens(
                        rt,
                        super::markers::IMMUTABLE_RULE,
                        super::markers::IMMUTABLE_MESSAGE,
                    ));
                }
                TokenStream::new()
            }
            // `schemars` picks the base schema; handled by the caller.
            (Kind::Flag, _) if e.kw.field.is_empty() => TokenStream::new(),
            (Kind::Flag, Val::Flag(b)) => {
                let v = b.value;
                set(quote!(#v))
            }
            (Kind::Json, Val::Json(j)) => {
                let mut s = set(rt.json(&j.value));
                if e.kw.key == "default"
                    && let Some(ty) = ty
                {
                    s.extend(default_check(rt, ty, &j.value, j.span));
                }
                s
            }
            (Kind::JsonList, Val::JsonList(list)) => {
                let items = list.value.iter().map(|v| rt.json(v));
                set(quote!(::std::vec![#(#items),*]))
            }
            (Kind::Fragments, Val::JsonList(list)) => {
                let items = list.value.iter().map(|v| {
                    let j = rt.json(v);
                    quote!(#p::fragment(#j))
                });
                set(quote!(::std::vec![#(#items),*]))
            }
            (Kind::Fragment, Val::Json(j)) => {
                let j = rt.json(&j.value);
                set(quote!(::std::boxed::Box::new(#p::fragment(#j))))
            }
            (Kind::StrList, Val::StrList(list)) => {
                let items = list.value.iter().map(|s| &s.value);
                set(quote!(
                    ::std::vec![#(::std::string::String::from(#items)),*]
                ))
            }
            (Kind::Rule, Val::Rule(r)) => {
                rules.push(rule_tokens(rt, r));
                TokenStream::new()
            }
            (Kind::OneOf, Val::StrList(list) | Val::FieldIdents(list)) => {
                let names: Vec<String> = list.value.iter().map(|s| s.value.clone()).collect();
                let (rule, message) = super::markers::one_of_rule(e.kw.key, &names);
                rules.push(super::markers::rule_tokens(rt, &rule, &message));
                TokenStream::new()
            }
            (Kind::Required, Val::Required(Required::List(list))) => {
                let names = list.iter().map(|s| &s.value);
                quote!(#p::set_required(#target, &[#(#names),*] as &[&str]);)
            }
            // The field flag form is read by the struct codegen.
            (Kind::Required, Val::Required(Required::Flag(_))) => TokenStream::new(),
            (Kind::ExtDocs, Val::ExtDocs(url, desc)) => {
                let (u, d) = (opt_str(url), opt_str(desc));
                set(quote!(#p::external_docs(#u, #d)))
            }
            (Kind::Nested, Val::Nested(inner)) => nested(rt, e, inner, target, ty),
            // `schema_with` replaces the base schema; handled by the caller.
            (Kind::Path, _) => TokenStream::new(),
            (_, Val::Unset) => quote!(#target.#field = ::core::option::Option::None;),
            (Kind::RawItems, Val::Json(j)) => {
                let j = rt.json(&j.value);
                quote!(#target.items = #p::raw_items(#j);)
            }
            (Kind::RawAdditional, Val::Json(j)) => {
                let j = rt.json(&j.value);
                quote!(#target.additional_properties = #p::raw_additional(#j);)
            }
            (Kind::Merge, Val::Json(j)) => {
                let j = rt.json(&j.value);
                quote!(#p::merge_fragment(#target, #j);)
            }
            (Kind::Descriptions, Val::Json(j)) => {
                let entries = match &j.value {
                    Json::Object(entries) => entries.as_slice(),
                    _ => &[],
                };
                let entries = entries.iter().map(|(pointer, text)| match text {
                    Json::Str(text) => quote!((#pointer, ::core::option::Option::Some(#text))),
                    _ => quote!((#pointer, ::core::option::Option::None)),
                });
                quote!(#p::set_descriptions(#target, &[#(#entries),*]);)
            }
            // Emitted first, by `base`.
            (Kind::Base, _) => TokenStream::new(),
            _ => TokenStream::new(),
        };
        out.extend(stmt);
    }
    if !rules.is_empty() {
        out.extend(quote!(#p::add_rules(#target, ::std::vec![#(#rules),*]);));
    }
    out
}

fn nested(
    rt: &Rt,
    e: &Entry,
    inner: &NodeAttrs,
    target: &syn::Ident,
    ty: Option<&TokenStream>,
) -> TokenStream {
    let p = rt.private();
    let rtp = &rt.0;
    let span = e.key.span();
    let Some(ty) = ty else {
        return quote_spanned!(span=> ::core::compile_error!("`items(...)`/`values(...)` can only be used where the Rust type is known (on a field)"););
    };
    let inner_target = syn::Ident::new("__node", Span::mixed_site());
    if e.kw.key == "items" {
        let item_ty = quote!(<#ty as #rtp::derive_support::ListSchema>::Item);
        let body = apply(rt, inner, &inner_target, Some(&item_ty));
        quote_spanned!(span=> #p::with_items::<#ty>(#target, |#inner_target| { #body });)
    } else {
        let value_ty = quote!(<#ty as #rtp::derive_support::MapSchema>::Value);
        let body = apply(rt, inner, &inner_target, Some(&value_ty));
        quote_spanned!(span=> #p::with_values::<#ty>(#target, |#inner_target| { #body });)
    }
}

/// A compile-time check that a field of type `ty` can hold `default` (error at the literal).
fn default_check(rt: &Rt, ty: &TokenStream, v: &Json, span: Span) -> TokenStream {
    let p = rt.private();
    let rtp = &rt.0;
    let marker = format_ident!("{}", v.literal_marker());
    respan(
        quote!(#p::check_default::<#ty, #rtp::__private::literal::#marker>();),
        span,
    )
}
