//! Code that applies node keywords to a `JSONSchemaProps` being built.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

use crate::attr::node::{Entry, Kind, NodeAttrs, Required, Rule, Val};
use crate::attr::value::{Json, Num, num_literal};

/// Where the generated code finds the runtime (`::crd_runtime` or `crate = ...`).
#[derive(Clone)]
pub struct Rt(pub TokenStream);

impl Rt {
    /// `<rt>::__private`.
    pub fn private(&self) -> TokenStream {
        let rt = &self.0;
        quote!(#rt::__private)
    }

    /// An expression building `v` as a `serde_json::Value`.
    ///
    /// Built value by value rather than with `serde_json::json!`: that macro recurses
    /// once per token of an object, so a large schema fragment (crd-gen emits whole
    /// property schemas) would hit the compiler's recursion limit.
    pub fn json(&self, v: &Json) -> TokenStream {
        let p = self.private();
        let value = quote!(#p::serde_json::Value);
        match v {
            Json::Null => quote!(#value::Null),
            Json::Bool(b) => quote!(#value::Bool(#b)),
            Json::Num(n) => {
                let n = self.number(n);
                quote!(#value::Number(#n))
            }
            Json::Str(s) => quote!(#value::String(::std::string::String::from(#s))),
            Json::Array(items) => {
                let items = items.iter().map(|i| self.json(i));
                quote!(#value::Array(::std::vec![#(#items),*]))
            }
            Json::Object(entries) => {
                let inserts = entries.iter().map(|(k, v)| {
                    let v = self.json(v);
                    quote!(__m.insert(::std::string::String::from(#k), #v);)
                });
                quote!(#value::Object({
                    let mut __m = #p::serde_json::Map::new();
                    #(#inserts)*
                    __m
                }))
            }
        }
    }

    /// A `serde_json::Number` expression.
    pub fn number(&self, n: &Num) -> TokenStream {
        let p = self.private();
        let lit = num_literal(n);
        match n {
            Num::Int(i) if *i >= 0 && *i <= i128::from(u64::MAX) => {
                quote!(#p::serde_json::Number::from(#lit as u64))
            }
            Num::Int(_) => quote!(#p::serde_json::Number::from(#lit as i64)),
            Num::Float(_) => quote!(#p::number(#lit)),
        }
    }
}

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
            (Kind::OneOf, Val::StrList(list)) => {
                let kind = match e.kw.key {
                    "exactly_one_of" => quote!(ExactlyOne),
                    "at_most_one_of" => quote!(AtMostOne),
                    _ => quote!(AtLeastOne),
                };
                let names = list.value.iter().map(|s| &s.value);
                rules.push(quote!(#p::one_of_rule(#p::OneOfKind::#kind, &[#(#names),*])));
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
        quote!(#p::check_default::<#ty, #rtp::derive_support::literal::#marker>();),
        span,
    )
}

/// `ts` with every token at `span`, so that rustc reports errors in it (failed trait
/// bounds, failed const evaluation) at the attribute value that caused them.
pub fn respan(ts: TokenStream, span: Span) -> TokenStream {
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), respan(g.stream(), span));
                ng.set_span(span);
                TokenTree::Group(ng)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
