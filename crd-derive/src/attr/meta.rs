//! Splitting `#[crd(...)]` contents into `key`, `key = value` and `key(...)` items.
//!
//! Each item is split off independently and a malformed one is reported and skipped,
//! so that one typo does not hide the other mistakes of the same attribute.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use serde_derive_internals::Ctxt;
use syn::Ident;

/// One item of an attribute list.
pub struct Item {
    /// The key (keywords such as `type` and `enum` are accepted as keys).
    pub key: Ident,
    /// What follows the key.
    pub value: ItemValue,
}

/// The three item forms.
pub enum ItemValue {
    /// `key`
    Flag,
    /// `key = tokens` (everything up to the next top-level comma).
    Value(TokenStream),
    /// `key(tokens)`
    List(TokenStream, Span),
}

impl Item {
    /// Span of the whole value (or of the key for flags), for error messages.
    pub fn value_span(&self) -> Span {
        match &self.value {
            ItemValue::Flag => self.key.span(),
            ItemValue::Value(ts) => span_of(ts).unwrap_or_else(|| self.key.span()),
            ItemValue::List(_, span) => *span,
        }
    }

    /// The key as a string, without a raw-identifier prefix.
    pub fn name(&self) -> String {
        let s = self.key.to_string();
        s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
    }
}

/// The span from the first to the last token of `ts`.
pub fn span_of(ts: &TokenStream) -> Option<Span> {
    let mut it = ts.clone().into_iter();
    let first = it.next()?.span();
    let last = it.last().map(|t| t.span()).unwrap_or(first);
    Some(first.join(last).unwrap_or(first))
}

/// Splits attribute contents into items, reporting malformed ones.
pub fn parse_items(cx: &Ctxt, tokens: TokenStream) -> Vec<Item> {
    let mut out = Vec::new();
    let mut it = tokens.into_iter().peekable();
    while let Some(tt) = it.next() {
        let key = match tt {
            TokenTree::Ident(id) => id,
            other => {
                cx.syn_error(syn::Error::new(
                    other.span(),
                    "expected an attribute name such as `group = \"...\"`",
                ));
                skip_to_comma(&mut it);
                continue;
            }
        };
        let value = match it.peek() {
            None => ItemValue::Flag,
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => ItemValue::Flag,
            Some(TokenTree::Punct(p)) if p.as_char() == '=' => {
                it.next();
                let mut value = TokenStream::new();
                while let Some(t) = it.peek() {
                    if matches!(t, TokenTree::Punct(p) if p.as_char() == ',') {
                        break;
                    }
                    value.extend(it.next());
                }
                if value.is_empty() {
                    cx.syn_error(syn::Error::new(
                        key.span(),
                        format!("`{key} =` needs a value"),
                    ));
                    skip_to_comma(&mut it);
                    continue;
                }
                ItemValue::Value(value)
            }
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                let g = g.clone();
                it.next();
                ItemValue::List(g.stream(), g.span())
            }
            Some(other) => {
                cx.syn_error(syn::Error::new(
                    other.span(),
                    format!("expected `,`, `=` or `(...)` after `{key}`"),
                ));
                skip_to_comma(&mut it);
                continue;
            }
        };
        match it.next() {
            None => {}
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => {}
            Some(other) => {
                cx.syn_error(syn::Error::new(other.span(), "expected `,`"));
                skip_to_comma(&mut it);
            }
        }
        out.push(Item { key, value });
    }
    out
}

fn skip_to_comma(it: &mut impl Iterator<Item = TokenTree>) {
    for t in it {
        if matches!(t, TokenTree::Punct(ref p) if p.as_char() == ',') {
            return;
        }
    }
}

/// Items of every `#[crd(...)]` attribute in `attrs`.
pub fn crd_items(cx: &Ctxt, attrs: &[syn::Attribute]) -> Vec<Item> {
    let mut out = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("crd") {
            continue;
        }
        match &attr.meta {
            syn::Meta::List(list) => out.extend(parse_items(cx, list.tokens.clone())),
            other => cx.error_spanned_by(other, "expected `#[crd(...)]`"),
        }
    }
    out
}

/// The edit distance between two keys, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// "unknown attribute `x`" with the closest known key as a hint.
pub fn unknown_key(cx: &Ctxt, item: &Item, what: &str, known: &[&str]) {
    let name = item.name();
    let best = known
        .iter()
        .map(|k| (distance(&name, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min();
    let msg = match best {
        Some((_, k)) => format!("unknown {what} `{name}`; did you mean `{k}`?"),
        None => format!(
            "unknown {what} `{name}`; expected one of: {}",
            known.join(", ")
        ),
    };
    cx.syn_error(syn::Error::new(item.key.span(), msg));
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn splits_all_three_forms_and_keeps_going_after_errors() {
        let cx = Ctxt::new();
        let items = parse_items(
            &cx,
            quote!(a, b = "x", c(d = 1), 5, e = json!({"k": [1, 2]}), f =),
        );
        let names: Vec<String> = items.iter().map(Item::name).collect();
        assert_eq!(names, ["a", "b", "c", "e"]);
        assert!(matches!(items[0].value, ItemValue::Flag));
        assert!(matches!(items[2].value, ItemValue::List(..)));
        let err = cx.check().unwrap_err();
        assert_eq!(err.into_iter().count(), 2);
    }

    #[test]
    fn did_you_mean() {
        assert_eq!(distance("shortnames", "short_names"), 1);
        let cx = Ctxt::new();
        let items = parse_items(&cx, quote!(shortname = 1));
        unknown_key(&cx, &items[0], "attribute", &["short_names", "singular"]);
        let err = cx.check().unwrap_err().to_string();
        assert!(err.contains("did you mean `short_names`"), "{err}");
    }
}
