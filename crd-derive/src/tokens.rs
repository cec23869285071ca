//! Token helpers shared by the checks and the code generator: where the runtime
//! is, JSON values as Rust expressions, spans.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote;

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
