//! Small constructors for `syn` syntax trees, so item skeletons are built directly
//! instead of being quoted and parsed back.

use proc_macro2::{Ident, Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::{
    AngleBracketedGenericArguments, AttrStyle, Attribute, Expr, ExprLit, GenericArgument, Lit,
    LitStr, MacroDelimiter, Meta, MetaList, MetaNameValue, Path, PathArguments, PathSegment, Type,
    TypePath, Visibility, token,
};

/// A path from identifiers, with or without a leading `::`.
pub fn path(leading_colon: bool, segments: &[&str]) -> Path {
    Path {
        leading_colon: leading_colon.then(Default::default),
        segments: segments
            .iter()
            .map(|s| PathSegment::from(Ident::new(s, Span::call_site())))
            .collect(),
    }
}

/// A single-identifier path.
pub fn ident_path(ident: Ident) -> Path {
    Path {
        leading_colon: None,
        segments: std::iter::once(PathSegment::from(ident)).collect(),
    }
}

/// `path` as a type.
pub fn ty(path: Path) -> Type {
    Type::Path(TypePath {
        attrs: Vec::new(),
        qself: None,
        path,
    })
}

/// `path<args...>` as a type.
pub fn generic(mut path: Path, args: Vec<Type>) -> Type {
    let last = path.segments.last_mut().expect("non-empty path");
    last.arguments = PathArguments::AngleBracketed(AngleBracketedGenericArguments {
        colon2_token: None,
        lt_token: Default::default(),
        args: args.into_iter().map(GenericArgument::Type).collect(),
        gt_token: Default::default(),
    });
    ty(path)
}

/// `pub`.
pub fn public() -> Visibility {
    Visibility::Public(Default::default())
}

thread_local! {
    /// Delimiter tokens are `Copy`, but a new one builds a token group for its span;
    /// every attribute needs one or two.
    static DELIMITERS: (token::Bracket, token::Paren, token::Brace) = Default::default();
}

/// `{ }` for an item body.
pub fn brace() -> token::Brace {
    DELIMITERS.with(|d| d.2)
}

fn outer(meta: Meta) -> Attribute {
    Attribute {
        pound_token: Default::default(),
        style: AttrStyle::Outer,
        bracket_token: DELIMITERS.with(|d| d.0),
        meta,
    }
}

/// `#[doc = "text"]`.
pub fn doc(text: &str) -> Attribute {
    doc_lit(match raw_str(text) {
        Some(Lit::Str(raw)) => raw,
        _ => LitStr::new(text, Span::call_site()),
    })
}

/// `#[doc = literal]`.
pub fn doc_lit(literal: LitStr) -> Attribute {
    outer(Meta::NameValue(MetaNameValue {
        path: path(false, &["doc"]),
        eq_token: Default::default(),
        value: Expr::Lit(ExprLit {
            attrs: Vec::new(),
            lit: Lit::Str(literal),
        }),
    }))
}

/// `text` as a string literal token, the same as `Literal::string(text)`. Text that
/// needs no escape (printable ASCII without `"` or `\\`, most names, patterns and
/// descriptions) is quoted as is and checked by proc-macro2's lexer, which is much
/// cheaper than escaping it character by character.
pub fn str_lit(text: &str) -> proc_macro2::Literal {
    let plain = text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
    if plain {
        let mut repr = String::with_capacity(text.len() + 2);
        repr.push('"');
        repr.push_str(text);
        repr.push('"');
        if let Ok(literal) = repr.parse() {
            return literal;
        }
    }
    proc_macro2::Literal::string(text)
}

/// `text` as a raw string literal (`r#"..."#`), or `None` when it cannot be one (a
/// carriage return). Doc text is long and printed back through `LitStr::value`:
/// a raw literal skips escaping it and unescaping it again, and prettyplease prints
/// the same `///` line either way. The text still only ever becomes a literal token,
/// checked by proc-macro2's lexer.
fn raw_str(text: &str) -> Option<Lit> {
    let bytes = text.as_bytes();
    if memchr::memchr(b'\r', bytes).is_some() {
        return None;
    }
    let hashes = match memchr::memchr(b'"', bytes) {
        None => 0,
        Some(_) => longest_hash_run_after_quote(text) + 1,
    };
    let mut repr = String::with_capacity(text.len() + 2 * hashes + 3);
    repr.push('r');
    repr.extend(std::iter::repeat_n('#', hashes));
    repr.push('"');
    repr.push_str(text);
    repr.push('"');
    repr.extend(std::iter::repeat_n('#', hashes));
    let literal: proc_macro2::Literal = repr.parse().ok()?;
    Some(Lit::new(literal))
}

/// The longest run of `#` right after a `"` in `text` (a raw literal needs one more
/// `#` than that in its delimiter).
fn longest_hash_run_after_quote(text: &str) -> usize {
    text.split('"')
        .skip(1)
        .map(|after| after.bytes().take_while(|&b| b == b'#').count())
        .max()
        .unwrap_or(0)
}

/// clippy's `type_complexity` score of a type as the generator writes them (paths with
/// generic arguments): each path costs ten times its nesting depth, starting at one.
/// clippy warns above 250 (`Option<Vec<Vec<Option<Map<String, Value>>>>>` is 270).
pub fn type_complexity(ty: &syn::Type) -> u64 {
    fn score(ty: &syn::Type, nest: u64) -> u64 {
        let syn::Type::Path(p) = ty else {
            return 0;
        };
        let args = p.path.segments.iter().flat_map(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
            _ => Vec::new(),
        });
        10 * nest
            + args
                .map(|a| match a {
                    syn::GenericArgument::Type(t) => score(t, nest + 1),
                    _ => 0,
                })
                .sum::<u64>()
    }
    score(ty, 1)
}

/// Above this [`type_complexity`], clippy's default configuration warns.
pub const CLIPPY_TYPE_COMPLEXITY: u64 = 250;

/// `#[name]`.
pub fn path_attr(name: &str) -> Attribute {
    outer(Meta::Path(path(false, &[name])))
}

/// `#[name(tokens)]`; syn keeps list contents as tokens, so these stay `quote!`d.
pub fn list(name: &str, tokens: TokenStream) -> Attribute {
    outer(Meta::List(MetaList {
        path: path(false, &[name]),
        delimiter: MacroDelimiter::Paren(DELIMITERS.with(|d| d.1)),
        tokens,
    }))
}

/// Punctuation for a list built from an iterator (trailing separator included, as
/// the quoted source had one).
pub fn punctuated<T, P: Default>(items: impl IntoIterator<Item = T>) -> Punctuated<T, P> {
    let mut p = Punctuated::new();
    for item in items {
        p.push_value(item);
        p.push_punct(P::default());
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_complexity_matches_clippys_score() {
        let score = |t: &str| type_complexity(&syn::parse_str(t).unwrap());
        assert_eq!(score("String"), 10);
        assert_eq!(score("Option<String>"), 30);
        assert_eq!(
            score("Option<Vec<Vec<Option<Map<String, Value>>>>>"),
            10 + 20 + 30 + 40 + 50 + 60 + 60
        );
        assert_eq!(score("::std::option::Option<::std::vec::Vec<i64>>"), 60);
        assert!(score("Option<Vec<Vec<Option<Map<String, Value>>>>>") > CLIPPY_TYPE_COMPLEXITY);
        assert!(
            score("Option<BTreeMap<String, Vec<BTreeMap<String, String>>>>")
                <= CLIPPY_TYPE_COMPLEXITY
        );
    }

    fn doc_value(attr: &Attribute) -> String {
        match &attr.meta {
            Meta::NameValue(MetaNameValue {
                value:
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }),
                ..
            }) => s.value(),
            _ => panic!("not a doc string"),
        }
    }

    #[test]
    fn raw_doc_literals_pick_enough_hashes() {
        for (text, repr) in [
            (" plain", r#"r" plain""#),
            (r#" a "quote""#, r##"r#" a "quote""#"##),
            (r##" ends "# here"##, r###"r##" ends "# here"##"###),
            (r#" back\slash"#, r#"r" back\slash""#),
        ] {
            let Some(Lit::Str(lit)) = raw_str(text) else {
                panic!("{text:?} is not a raw string literal");
            };
            assert_eq!(lit.token().to_string(), repr);
            assert_eq!(lit.value(), text);
        }
        // A bare carriage return cannot be in a raw literal: escaped instead.
        assert!(raw_str(" a\rb").is_none());
        assert_eq!(doc_value(&doc(" a\rb")), " a\rb");
    }

    proptest::proptest! {
        /// The quick path spells literals exactly as proc-macro2 does.
        #[test]
        fn string_literals_match_proc_macro2(text in r##"[ -~]{0,24}|[ a"'\\\r\n\t\u{0}é🚀]{0,12}"##) {
            proptest::prop_assert_eq!(
                str_lit(&text).to_string(),
                proc_macro2::Literal::string(&text).to_string()
            );
        }

        /// Whatever the text, the doc attribute holds exactly it.
        #[test]
        fn doc_values_are_the_text(text in r##"[ a"#\\\r\n\t*/é🚀]{0,16}"##) {
            proptest::prop_assert_eq!(doc_value(&doc(&text)), text);
        }
    }
}
