//! Typed attribute values: strings, numbers, booleans, string lists and JSON values
//! written as Rust tokens (literals, `[...]`, `null`, `json!(...)`).

use proc_macro2::{Delimiter, Literal, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use serde_derive_internals::Ctxt;

use super::meta::{Item, ItemValue, span_of};

/// A value with the span it was written at.
#[derive(Clone, Debug)]
pub struct Sp<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

/// A number literal.
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    /// An integer (kept wide so that `u64::MAX` fits).
    Int(i128),
    /// A finite float.
    Float(f64),
}

impl Num {
    /// The value as `f64`, for range comparisons.
    pub fn as_f64(&self) -> f64 {
        match self {
            Num::Int(i) => *i as f64,
            Num::Float(f) => *f,
        }
    }
}

/// A JSON value written as Rust tokens.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number.
    Num(Num),
    /// A string.
    Str(String),
    /// `[...]`
    Array(Vec<Json>),
    /// `{ "k": v, ... }` (order kept as written)
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The JSON kind, as used in messages and by `AcceptsDefault`.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Num(Num::Int(_)) => "integer",
            Json::Num(Num::Float(_)) => "number",
            Json::Str(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// The `crd_runtime::__private::literal` marker type for this kind.
    pub fn literal_marker(&self) -> &'static str {
        match self {
            Json::Null => "Null",
            Json::Bool(_) => "Bool",
            Json::Num(Num::Int(_)) => "Integer",
            Json::Num(Num::Float(_)) => "Float",
            Json::Str(_) => "Str",
            Json::Array(_) => "Array",
            Json::Object(_) => "Object",
        }
    }

    /// Tokens for the body of `serde_json::json!(...)` (tests compare parsed values
    /// through it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn to_json_tokens(&self) -> TokenStream {
        match self {
            Json::Null => quote!(null),
            Json::Bool(b) => quote!(#b),
            Json::Num(n) => num_literal(n).into_token_stream(),
            Json::Str(s) => Literal::string(s).into_token_stream(),
            Json::Array(items) => {
                let items = items.iter().map(Json::to_json_tokens);
                quote!([ #(#items),* ])
            }
            Json::Object(entries) => {
                let entries = entries.iter().map(|(k, v)| {
                    let v = v.to_json_tokens();
                    quote!(#k: #v)
                });
                quote!({ #(#entries),* })
            }
        }
    }
}

/// An unsuffixed literal for `n` (negative numbers become a negative literal).
pub fn num_literal(n: &Num) -> Literal {
    match n {
        Num::Int(i) => Literal::i128_unsuffixed(*i),
        Num::Float(f) => Literal::f64_unsuffixed(*f),
    }
}

fn err(cx: &Ctxt, span: Span, msg: impl std::fmt::Display) {
    cx.syn_error(syn::Error::new(span, msg));
}

/// The `= value` tokens of an item, or an error naming the expected form.
fn value_tokens<'a>(cx: &Ctxt, item: &'a Item, expected: &str) -> Option<&'a TokenStream> {
    match &item.value {
        ItemValue::Value(ts) => Some(ts),
        _ => {
            err(
                cx,
                item.key.span(),
                format!(
                    "`{}` expects {expected}: `{} = ...`",
                    item.name(),
                    item.name()
                ),
            );
            None
        }
    }
}

/// `key = "string"`.
pub fn string(cx: &Ctxt, item: &Item) -> Option<Sp<String>> {
    let ts = value_tokens(cx, item, "a string literal")?;
    match syn::parse2::<syn::LitStr>(ts.clone()) {
        Ok(lit) => Some(Sp {
            value: lit.value(),
            span: lit.span(),
        }),
        Err(_) => {
            err(
                cx,
                item.value_span(),
                format!("`{}` expects a string literal", item.name()),
            );
            None
        }
    }
}

/// `key = 1` / `key = -2.5`.
pub fn number(cx: &Ctxt, item: &Item) -> Option<Sp<Num>> {
    let ts = value_tokens(cx, item, "a number")?;
    match parse_json(ts.clone()) {
        Ok(Json::Num(n)) => Some(Sp {
            value: n,
            span: item.value_span(),
        }),
        _ => {
            err(
                cx,
                item.value_span(),
                format!("`{}` expects a number literal", item.name()),
            );
            None
        }
    }
}

/// `key = 3` (a non-negative integer that fits `i64`).
pub fn count(cx: &Ctxt, item: &Item) -> Option<Sp<i64>> {
    let n = number(cx, item)?;
    match n.value {
        Num::Int(i) if (0..=i128::from(i64::MAX)).contains(&i) => Some(Sp {
            value: i as i64,
            span: n.span,
        }),
        _ => {
            err(
                cx,
                n.span,
                format!("`{}` expects a non-negative integer", item.name()),
            );
            None
        }
    }
}

/// `key` (true), `key = true` or `key = false`.
pub fn flag(cx: &Ctxt, item: &Item) -> Option<Sp<bool>> {
    match &item.value {
        ItemValue::Flag => Some(Sp {
            value: true,
            span: item.key.span(),
        }),
        ItemValue::Value(ts) => match syn::parse2::<syn::LitBool>(ts.clone()) {
            Ok(b) => Some(Sp {
                value: b.value,
                span: b.span,
            }),
            Err(_) => {
                err(
                    cx,
                    item.value_span(),
                    format!(
                        "`{}` expects `true` or `false` (or nothing, meaning true)",
                        item.name()
                    ),
                );
                None
            }
        },
        ItemValue::List(_, span) => {
            err(
                cx,
                *span,
                format!(
                    "`{}` is a flag: write `{}` or `{} = false`",
                    item.name(),
                    item.name(),
                    item.name()
                ),
            );
            None
        }
    }
}

/// `key = ["a", "b"]`.
pub fn string_list(cx: &Ctxt, item: &Item) -> Option<Sp<Vec<Sp<String>>>> {
    let ts = value_tokens(cx, item, "a list of strings")?;
    let span = item.value_span();
    let bad = || {
        err(
            cx,
            span,
            format!(
                "`{}` expects a list of string literals: `[\"a\", \"b\"]`",
                item.name()
            ),
        )
    };
    let mut it = ts.clone().into_iter();
    let (Some(TokenTree::Group(g)), None) = (it.next(), it.next()) else {
        bad();
        return None;
    };
    if g.delimiter() != Delimiter::Bracket {
        bad();
        return None;
    }
    let parser = syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated;
    match syn::parse::Parser::parse2(parser, g.stream()) {
        Ok(list) => Some(Sp {
            value: list
                .into_iter()
                .map(|l| Sp {
                    value: l.value(),
                    span: l.span(),
                })
                .collect(),
            span,
        }),
        Err(_) => {
            bad();
            None
        }
    }
}

/// `key = <JSON value>`.
pub fn json(cx: &Ctxt, item: &Item) -> Option<Sp<Json>> {
    let ts = value_tokens(cx, item, "a JSON value")?;
    match parse_json(ts.clone()) {
        Ok(v) => Some(Sp {
            value: v,
            span: item.value_span(),
        }),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

/// `key = [v, ...]` or `key = json!([...])`: a list of JSON values.
pub fn json_list(cx: &Ctxt, item: &Item) -> Option<Sp<Vec<Json>>> {
    let v = json(cx, item)?;
    match v.value {
        Json::Array(items) => Some(Sp {
            value: items,
            span: v.span,
        }),
        other => {
            err(
                cx,
                v.span,
                format!(
                    "`{}` expects a list, found a JSON {}",
                    item.name(),
                    other.kind()
                ),
            );
            None
        }
    }
}

/// `key = some::path`.
pub fn path(cx: &Ctxt, item: &Item) -> Option<syn::Path> {
    let ts = value_tokens(cx, item, "a path")?;
    match syn::parse2::<syn::Path>(ts.clone()) {
        Ok(p) => Some(p),
        Err(_) => {
            err(
                cx,
                item.value_span(),
                format!("`{}` expects a path", item.name()),
            );
            None
        }
    }
}

/// `key = Type`.
pub fn ty(cx: &Ctxt, item: &Item) -> Option<syn::Type> {
    let ts = value_tokens(cx, item, "a type")?;
    match syn::parse2::<syn::Type>(ts.clone()) {
        Ok(t) => Some(t),
        Err(_) => {
            err(
                cx,
                item.value_span(),
                format!("`{}` expects a type", item.name()),
            );
            None
        }
    }
}

/// Deepest nesting of `[...]` and `{...}` a JSON attribute value may have. The
/// parser, the keyword checks and the code generated for the value recurse once per
/// level, in rustc's process; a deeper value is refused before any of them runs.
/// (serde_json's own `json!` stops far earlier, at the 128 macro expansions of
/// rustc's default `recursion_limit`.)
pub const MAX_JSON_DEPTH: usize = 128;

/// The bracket or brace opening level [`MAX_JSON_DEPTH`]` + 1` of `ts`, found
/// without recursion.
fn too_deep(ts: &TokenStream) -> Option<Span> {
    let mut open: Vec<(proc_macro2::token_stream::IntoIter, usize)> =
        vec![(ts.clone().into_iter(), 0)];
    while let Some((tokens, depth)) = open.last_mut() {
        let depth = *depth;
        let Some(tok) = tokens.next() else {
            open.pop();
            continue;
        };
        if let TokenTree::Group(g) = tok {
            let level = match g.delimiter() {
                Delimiter::Brace | Delimiter::Bracket => depth + 1,
                Delimiter::Parenthesis | Delimiter::None => depth,
            };
            if level > MAX_JSON_DEPTH {
                return Some(g.span_open());
            }
            open.push((g.stream().into_iter(), level));
        }
    }
    None
}

/// Parses JSON written as Rust tokens.
pub fn parse_json(ts: TokenStream) -> syn::Result<Json> {
    if let Some(span) = too_deep(&ts) {
        return Err(syn::Error::new(
            span,
            format!(
                "this JSON value nests deeper than {MAX_JSON_DEPTH} levels: crd-derive reads \
                 attribute values at most {MAX_JSON_DEPTH} levels deep (a crd-derive limit; \
                 build deeper schemas from nested Rust types)"
            ),
        ));
    }
    parse_json_checked(ts)
}

/// [`parse_json`] of tokens whose depth was checked.
fn parse_json_checked(ts: TokenStream) -> syn::Result<Json> {
    let span = span_of(&ts).unwrap_or_else(Span::call_site);
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    // `json!(...)` / `serde_json::json!(...)`: unwrap the macro call.
    if let [
        ..,
        TokenTree::Ident(name),
        TokenTree::Punct(bang),
        TokenTree::Group(g),
    ] = tokens.as_slice()
        && name == "json"
        && bang.as_char() == '!'
    {
        return parse_json_checked(g.stream());
    }
    let mut pos = 0;
    let v = parse_value(&tokens, &mut pos, span)?;
    if pos != tokens.len() {
        return Err(syn::Error::new(
            tokens[pos].span(),
            "unexpected tokens after the JSON value",
        ));
    }
    Ok(v)
}

fn parse_value(t: &[TokenTree], pos: &mut usize, span: Span) -> syn::Result<Json> {
    let Some(tok) = t.get(*pos) else {
        return Err(syn::Error::new(span, "expected a JSON value"));
    };
    *pos += 1;
    match tok {
        TokenTree::Ident(id) if id == "null" => Ok(Json::Null),
        TokenTree::Ident(id) if id == "json" || id == "serde_json" => {
            // `json!(...)` (or `serde_json::json!(...)`) nested inside a list.
            while let Some(TokenTree::Punct(p)) = t.get(*pos)
                && p.as_char() == ':'
            {
                *pos += 1;
            }
            if id == "serde_json" {
                match t.get(*pos) {
                    Some(TokenTree::Ident(j)) if j == "json" => *pos += 1,
                    _ => {
                        return Err(syn::Error::new(
                            id.span(),
                            "expected `serde_json::json!(...)`",
                        ));
                    }
                }
            }
            match (t.get(*pos), t.get(*pos + 1)) {
                (Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g)))
                    if bang.as_char() == '!' =>
                {
                    *pos += 2;
                    parse_json_checked(g.stream())
                }
                _ => Err(syn::Error::new(id.span(), "expected `json!(...)`")),
            }
        }
        TokenTree::Ident(id) if id == "true" => Ok(Json::Bool(true)),
        TokenTree::Ident(id) if id == "false" => Ok(Json::Bool(false)),
        // A sign applies to the number literal right after it (no recursion, so a
        // run of `-` cannot nest).
        TokenTree::Punct(p) if p.as_char() == '-' => {
            let negated = match t.get(*pos) {
                Some(TokenTree::Literal(lit)) => match parse_literal(lit)? {
                    Json::Num(Num::Int(i)) => Some(Json::Num(Num::Int(-i))),
                    Json::Num(Num::Float(f)) => Some(Json::Num(Num::Float(-f))),
                    _ => None,
                },
                _ => None,
            };
            *pos += 1;
            negated.ok_or_else(|| syn::Error::new(p.span(), "`-` must be followed by a number"))
        }
        TokenTree::Literal(lit) => parse_literal(lit),
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let mut items = Vec::new();
            let mut p = 0;
            while p < inner.len() {
                items.push(parse_value(&inner, &mut p, g.span())?);
                expect_comma(&inner, &mut p)?;
            }
            Ok(Json::Array(items))
        }
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let mut entries: Vec<(String, Json)> = Vec::new();
            let mut p = 0;
            while p < inner.len() {
                let key = match parse_value(&inner, &mut p, g.span())? {
                    Json::Str(s) => s,
                    _ => {
                        return Err(syn::Error::new(
                            inner[p - 1].span(),
                            "JSON object keys must be string literals",
                        ));
                    }
                };
                let key_span = inner[p - 1].span();
                match inner.get(p) {
                    Some(TokenTree::Punct(c)) if c.as_char() == ':' => p += 1,
                    _ => return Err(syn::Error::new(key_span, "expected `:` after the key")),
                }
                let v = parse_value(&inner, &mut p, key_span)?;
                if entries.iter().any(|(k, _)| *k == key) {
                    return Err(syn::Error::new(key_span, format!("duplicate key {key:?}")));
                }
                entries.push((key, v));
                expect_comma(&inner, &mut p)?;
            }
            Ok(Json::Object(entries))
        }
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => parse_json_checked(g.stream()),
        other => Err(syn::Error::new(
            other.span(),
            "expected a JSON value: a literal, `null`, `[...]` or `json!({...})`",
        )),
    }
}

fn expect_comma(t: &[TokenTree], p: &mut usize) -> syn::Result<()> {
    match t.get(*p) {
        None => Ok(()),
        Some(TokenTree::Punct(c)) if c.as_char() == ',' => {
            *p += 1;
            Ok(())
        }
        Some(other) => Err(syn::Error::new(other.span(), "expected `,`")),
    }
}

fn parse_literal(lit: &Literal) -> syn::Result<Json> {
    let span = lit.span();
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(s) => Ok(Json::Str(s.value())),
        syn::Lit::Int(i) => {
            if !i.suffix().is_empty() {
                return Err(syn::Error::new(span, "write numbers without a type suffix"));
            }
            i.base10_parse::<i128>()
                .map(|v| Json::Num(Num::Int(v)))
                .map_err(|e| syn::Error::new(span, e))
        }
        syn::Lit::Float(f) => {
            if !f.suffix().is_empty() {
                return Err(syn::Error::new(span, "write numbers without a type suffix"));
            }
            match f.base10_parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(Json::Num(Num::Float(v))),
                Ok(_) => Err(syn::Error::new(span, "the number is not finite")),
                Err(e) => Err(syn::Error::new(span, e)),
            }
        }
        syn::Lit::Bool(b) => Ok(Json::Bool(b.value)),
        _ => Err(syn::Error::new(
            span,
            "expected a JSON value: a string, number, `true`, `false` or `null`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_literals_lists_and_json_macro() {
        assert_eq!(parse_json(quote!(1)).unwrap(), Json::Num(Num::Int(1)));
        assert_eq!(
            parse_json(quote!(-2.5)).unwrap(),
            Json::Num(Num::Float(-2.5))
        );
        assert_eq!(
            parse_json(quote!(["a", null, true])).unwrap(),
            Json::Array(vec![Json::Str("a".into()), Json::Null, Json::Bool(true)])
        );
        let v = parse_json(quote!(json!({"a": {"b": [1, 2]}, "c": "d"}))).unwrap();
        assert_eq!(
            v.to_json_tokens().to_string(),
            quote!({"a": {"b": [1, 2]}, "c": "d"}).to_string()
        );
        assert!(parse_json(quote!({"a" 1})).is_err());
        assert!(parse_json(quote!({"a": 1, "a": 2})).is_err());
        assert!(parse_json(quote!(1u8)).is_err());
        assert!(parse_json(quote!(foo)).is_err());
        assert_eq!(
            parse_json(quote!([json!({"a": 1}), serde_json::json!(2)])).unwrap(),
            Json::Array(vec![
                Json::Object(vec![("a".into(), Json::Num(Num::Int(1)))]),
                Json::Num(Num::Int(2))
            ])
        );
        assert!(parse_json(quote!(--1)).is_err());
    }

    /// `levels` nested `{"type": "array", "items": ...}` objects, as tokens.
    fn nested(levels: usize) -> TokenStream {
        let text = format!(
            "json!({}{{\"type\": \"string\"}}{})",
            r#"{"type": "array", "items": "#.repeat(levels),
            "}".repeat(levels)
        );
        text.parse().unwrap()
    }

    #[test]
    fn json_at_the_depth_limit_is_read() {
        let v = parse_json(nested(MAX_JSON_DEPTH - 1)).unwrap();
        assert_eq!(v.kind(), "object");
    }

    /// 2,000 and 10,000 levels are refused at the bracket past the limit, before any
    /// recursive walk, on a thread smaller than rustc's.
    #[test]
    fn deeper_json_is_a_compile_error_not_a_crash() {
        std::thread::Builder::new()
            .stack_size(512 << 10)
            .spawn(|| {
                for levels in [MAX_JSON_DEPTH, 2_000, 10_000] {
                    let err = parse_json(nested(levels)).unwrap_err().to_string();
                    assert!(
                        err.starts_with("this JSON value nests deeper than 128 levels"),
                        "{err}"
                    );
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
