//! Descriptions → doc comments.
//!
//! A description becomes one `#[doc = "..."]` attribute per line, each a string
//! literal built by proc-macro2 (quotes, backslashes, `*/`, control characters and
//! unicode are escaped by construction), so CRD text can never close a comment or
//! inject an item. prettyplease prints them as `///` lines where that is lossless.
//!
//! crd-derive reads the doc comments back as the `description`. Its rule (strip one
//! leading space per line, join with `\n`) is mirrored by [`doc_to_description`];
//! when a description would not come back byte-identical that way, the generator
//! writes an explicit `description = "..."` keyword next to the docs.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The doc attributes for `description`.
pub fn doc_attrs(description: &str) -> TokenStream {
    let lines = description.split('\n').map(|line| {
        let text = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        let lit = Literal::string(&text);
        quote!(#[doc = #lit])
    });
    quote!(#(#lines)*)
}

/// The description crd-derive reads from doc lines (one `#[doc]` value per line).
pub fn doc_to_description(lines: &[String]) -> String {
    let stripped: Vec<&str> = lines
        .iter()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    stripped.join("\n")
}

/// Whether the doc comments alone reproduce `description` exactly.
///
/// crd-derive reads each doc line without its trailing whitespace and trims the joined
/// text, so a line ending in a space (`...emitted. \n When...`) or a description that
/// starts or ends with blank lines (istio's `"\n\nValid Options: ..."`) must stay a
/// `description` keyword.
pub fn docs_roundtrip(description: &str) -> bool {
    let lines: Vec<String> = description
        .split('\n')
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!(" {line}")
            }
        })
        .collect();
    let trailing_space = description
        .split('\n')
        .any(|l| l.ends_with(char::is_whitespace));
    doc_to_description(&lines) == description
        && !description.is_empty()
        && !trailing_space
        && description.trim() == description
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_descriptions_stay_string_literals() {
        for desc in [
            "ends a comment */ fn evil() {}",
            "quote \" and backslash \\ and raw #\"",
            "line one\n#[derive(Evil)]\n}\nfn x() {",
            "unicode: grüße 🚀 \u{202e}",
            "carriage\rreturn\ttab\u{0}nul",
        ] {
            let tokens = doc_attrs(desc);
            let file: syn::File = syn::parse2(quote!(#tokens struct S;)).expect("parses");
            assert_eq!(file.items.len(), 1, "{desc:?} produced extra items");
            let lines: Vec<String> = file.items[0]
                .attrs()
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
                .collect();
            assert_eq!(doc_to_description(&lines), desc);
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
    }

    trait Attrs {
        fn attrs(&self) -> &[syn::Attribute];
    }
    impl Attrs for syn::Item {
        fn attrs(&self) -> &[syn::Attribute] {
            match self {
                syn::Item::Struct(s) => &s.attrs,
                _ => &[],
            }
        }
    }
}
