//! Descriptions → doc comments.
//!
//! A description becomes one `#[doc = "..."]` attribute per line, each a string
//! literal built by proc-macro2 (quotes, backslashes, `*/`, control characters and
//! unicode are escaped by construction), so CRD text can never close a comment or
//! inject an item. prettyplease prints them as `///` lines where that is lossless.
//!
//! crd-derive reads the doc comments back as the `description` (one leading space
//! stripped and trailing whitespace dropped per line, the joined text trimmed); when
//! a description would not come back byte-identical that way ([`docs_roundtrip`]),
//! the generator writes an explicit `description = "..."` keyword next to the docs.
//! Modules printed at once write the same lines into the printed text
//! ([`Leads`](super::leads::Leads)).

/// The doc attributes for `description`, built as syntax trees (no parsing).
pub fn doc_attrs_syn(description: &str) -> Vec<syn::Attribute> {
    let mut text = String::new();
    lines(description)
        .map(|line| {
            text.clear();
            if !line.is_empty() {
                text.push(' ');
                text.push_str(line);
            }
            super::ast::doc(&text)
        })
        .collect()
}

/// Whether the doc comments alone reproduce `description` exactly, in a comment rustc
/// accepts.
///
/// crd-derive reads each doc line without its trailing whitespace and trims the joined
/// text, so a line ending in a space (`...emitted. \n When...`) or a description that
/// starts or ends with blank lines (istio's `"\n\nValid Options: ..."`) must stay a
/// `description` keyword. So must text rustc refuses in a comment: a carriage return
/// ("bare CR not allowed") and the bidirectional controls that can make code read
/// differently from what it is (the deny-by-default `text_direction_codepoint_in_comment`
/// lint); in a string literal they are escaped.
pub fn docs_roundtrip(description: &str) -> bool {
    // Each line comes back as written ([`doc_attrs_syn`] adds the one space that
    // [`doc_to_description`] strips), so only the derive's trimming can lose text.
    !description.is_empty()
        && description.trim() == description
        && memchr::memchr(b'\r', description.as_bytes()).is_none()
        && (description.is_ascii() || !description.chars().any(is_bidi_control))
        && !lines(description).any(|l| l.ends_with(char::is_whitespace))
}

/// The codepoints rustc's `text_direction_codepoint_in_comment` lint refuses.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text.split('\n')`, with a vectorized search (descriptions are most of the text).
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .map(Some)
        .chain([None])
        .map(move |end| {
            let end = end.unwrap_or(text.len());
            let line = &text[start..end];
            start = end + 1;
            line
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// The description crd-derive reads from doc lines (one `#[doc]` value per
    /// line): one leading space stripped per line, trailing whitespace dropped, the
    /// lines joined with `\n`, the result trimmed.
    fn doc_to_description(lines: &[String]) -> String {
        let stripped: Vec<&str> = lines
            .iter()
            .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end())
            .collect();
        stripped.join("\n").trim().to_string()
    }

    /// The `#[doc]` values of [`doc_attrs_syn`], in order.
    fn doc_lines(description: &str) -> Vec<String> {
        doc_attrs_syn(description)
            .iter()
            .map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => s.value(),
                    _ => panic!("doc value is not a string literal"),
                },
                _ => panic!("doc attribute is not `doc = ...`"),
            })
            .collect()
    }

    proptest::proptest! {
        /// `docs_roundtrip` says yes exactly when the derive reads the doc comments
        /// back as the same description.
        #[test]
        fn roundtrip_detection_matches_the_derive(d in r#"[ a\t\n*/"\\é]{0,12}"#) {
            let back = doc_to_description(&doc_lines(&d));
            proptest::prop_assert_eq!(docs_roundtrip(&d), back == d && !d.is_empty(), "{:?} -> {:?}", d, back);
        }
    }

    #[test]
    fn hostile_descriptions_stay_string_literals() {
        for desc in [
            "ends a comment */ fn evil() {}",
            "quote \" and backslash \\ and raw #\"",
            "line one\n#[derive(Evil)]\n}\nfn x() {",
            "unicode: grüße 🚀 \u{202e}",
            "carriage\rreturn\ttab\u{0}nul",
        ] {
            // Printed and parsed back, the attributes stay one item.
            let attrs = doc_attrs_syn(desc);
            let file: syn::File = syn::parse2(quote!(#(#attrs)* struct S;)).expect("parses");
            assert_eq!(file.items.len(), 1, "{desc:?} produced extra items");
            let lines = doc_lines(desc);
            assert_eq!(doc_to_description(&lines), desc);
        }
    }

    proptest::proptest! {
        #[test]
        fn lines_split_like_str_split(text in "[ab\n]{0,12}") {
            proptest::prop_assert_eq!(lines(&text).collect::<Vec<_>>(), text.split('\n').collect::<Vec<_>>());
        }
    }

    #[test]
    fn roundtrip_detection() {
        assert!(docs_roundtrip("simple"));
        assert!(docs_roundtrip("two\nlines\n\nwith blank"));
        assert!(docs_roundtrip("code:\n  indented"));
        // crd-derive trims the joined doc text.
        assert!(!docs_roundtrip("  indented first line"));
        assert!(!docs_roundtrip("\n\nValid Options: REGISTRY_ONLY"));
        assert!(!docs_roundtrip("ends with a blank line\n"));
        assert!(!docs_roundtrip(""));
        // Calico: "...host endpoints. \n When specified..." loses its space as a doc line.
        assert!(!docs_roundtrip("ends in a space. \n Next line"));
        assert!(!docs_roundtrip("trailing tab\t"));
        assert!(!docs_roundtrip("carriage\rreturn"));
        assert!(!docs_roundtrip("right-to-left \u{202e} override"));
        assert!(!docs_roundtrip("isolate \u{2066}x\u{2069}"));
        assert!(docs_roundtrip("unicode: grüße 🚀 \u{200f}"));
    }
}
