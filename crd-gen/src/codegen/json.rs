//! JSON values → attribute value tokens: literals for scalars, `[...]` for lists of
//! scalars, `json!(...)` for anything holding an object.
//!
//! Strings become string literals (proc-macro2 escapes them), numbers keep their
//! exact JSON spelling (`1` stays an integer, `0.5` a float), so a value written in
//! a CRD reaches the derive unchanged and can never become code.

use std::str::FromStr;

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, TokenStreamExt, quote};
use serde_json::{Number, Value};

use super::ast::str_lit;

/// Tokens for a JSON value as crd-derive's "JSON value" attribute form.
pub fn json_tokens(v: &Value) -> TokenStream {
    let mut out = TokenStream::new();
    if holds_object(v) {
        let mut inner = TokenStream::new();
        raw(v, &mut inner);
        out.append(Ident::new("json", Span::call_site()));
        out.append(Punct::new('!', Spacing::Alone));
        out.append(Group::new(Delimiter::Parenthesis, inner));
    } else {
        raw(v, &mut out);
    }
    out
}

fn holds_object(v: &Value) -> bool {
    match v {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(holds_object),
        _ => false,
    }
}

/// serde_json `json!` syntax (also valid for scalars and scalar lists), appended to
/// `out` (the same tokens `quote!` would build, without a stream per value).
fn raw(v: &Value, out: &mut TokenStream) {
    match v {
        Value::Null => out.append(Ident::new("null", Span::call_site())),
        Value::Bool(b) => b.to_tokens(out),
        Value::Number(n) => out.extend(number(n)),
        Value::String(s) => out.append(str_lit(s)),
        Value::Array(items) => {
            let mut inner = TokenStream::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    inner.append(Punct::new(',', Spacing::Alone));
                }
                raw(item, &mut inner);
            }
            out.append(Group::new(Delimiter::Bracket, inner));
        }
        Value::Object(map) => {
            let mut inner = TokenStream::new();
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    inner.append(Punct::new(',', Spacing::Alone));
                }
                inner.append(str_lit(k));
                inner.append(Punct::new(':', Spacing::Alone));
                raw(v, &mut inner);
            }
            out.append(Group::new(Delimiter::Brace, inner));
        }
    }
}

/// A number literal in the number's own JSON spelling; negative numbers are a `-`
/// followed by the literal, as Rust writes them.
pub fn number(n: &Number) -> TokenStream {
    let text = n.to_string();
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, text),
    };
    // serde_json prints floats like `1e20`, `1.5`, `0.001`: all valid Rust literals.
    // A float without `.` or exponent cannot happen, but make sure it stays a float.
    let digits = if n.is_f64() && !digits.contains(['.', 'e', 'E']) {
        format!("{digits}.0")
    } else {
        digits
    };
    let lit = Literal::from_str(&digits).unwrap_or_else(|_| Literal::string(&digits));
    if neg { quote!(-#lit) } else { quote!(#lit) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(v: Value) -> String {
        json_tokens(&v).to_string()
    }

    #[test]
    fn scalars_and_lists() {
        assert_eq!(t(json!("a\"b\\c")), r#""a\"b\\c""#);
        assert_eq!(t(json!(1)), "1");
        assert_eq!(t(json!(-5)), "- 5");
        assert_eq!(t(json!(0.5)), "0.5");
        assert_eq!(t(json!(1.0)), "1.0");
        assert_eq!(t(json!(1e-7)), "1e-7");
        assert_eq!(t(json!(null)), "null");
        assert_eq!(t(json!([true, "x"])), r#"[true , "x"]"#);
    }

    #[test]
    fn objects_use_json_macro() {
        assert_eq!(t(json!({"a": [1, {}]})), r#"json ! ({ "a" : [1 , { }] })"#);
        assert_eq!(t(json!([{"b": null}])), r#"json ! ([{ "b" : null }])"#);
    }

    #[test]
    fn large_numbers_keep_their_spelling() {
        assert_eq!(t(json!(u64::MAX)), "18446744073709551615");
        assert_eq!(t(json!(i64::MIN)), "- 9223372036854775808");
    }
}
