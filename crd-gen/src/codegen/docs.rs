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
//! Modules printed at once write the same lines into the printed text ([`DocSink`]).

use std::cell::RefCell;

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

/// Where a module's doc comments go.
///
/// Doc lines are half the generated text. As syntax trees they cost a literal token per
/// line to build and a parse of it to print. A module that is printed at once can
/// defer them: each description becomes one placeholder `#[doc = "#n"]` and
/// [`DocSink::splice`] later writes, in place of the printed `///#n` line, the lines
/// prettyplease prints for the real attributes.
pub enum DocSink {
    /// Doc attributes in the syntax tree (trees handed to the caller).
    Inline,
    /// Placeholders in the tree; the descriptions, by placeholder number.
    Deferred(RefCell<Vec<String>>),
}

/// What a deferred description's doc comment is printed as: `///#n`.
const PLACEHOLDER: &str = "///#";

impl DocSink {
    /// A sink for a tree that will be printed and then spliced.
    pub fn deferred() -> DocSink {
        DocSink::Deferred(RefCell::new(Vec::new()))
    }

    /// The doc attributes for `description` (see [`doc_attrs_syn`]).
    pub fn attrs(&self, description: &str) -> Vec<syn::Attribute> {
        match self {
            DocSink::Inline => doc_attrs_syn(description),
            DocSink::Deferred(docs) => {
                let mut docs = docs.borrow_mut();
                let placeholder = format!("#{}", docs.len());
                docs.push(description.to_owned());
                vec![super::ast::doc(&placeholder)]
            }
        }
    }

    /// `printed` (prettyplease's text of a tree built with this sink) with every
    /// placeholder line replaced by the description's doc lines, as prettyplease prints
    /// `#[doc = " line"]`: `///`, the text without trailing spaces, at the
    /// placeholder's indentation. Generated string literals never hold a raw line break,
    /// so a placeholder is the only line that is indentation then `///#`. Errors when a
    /// placeholder is missing or repeated.
    pub fn splice(self, printed: String) -> Result<String, String> {
        let docs = match self {
            DocSink::Deferred(docs) => docs.into_inner(),
            DocSink::Inline => return Ok(printed),
        };
        if docs.is_empty() {
            return Ok(printed);
        }
        let extra: usize = docs.iter().map(|d| d.len() + 64).sum();
        let mut out = String::with_capacity(printed.len() + extra);
        let mut used = vec![false; docs.len()];
        let mut copied = 0;
        for at in memchr::memmem::find_iter(printed.as_bytes(), PLACEHOLDER) {
            let line_start = memchr::memrchr(b'\n', &printed.as_bytes()[..at]).map_or(0, |i| i + 1);
            let indent = &printed[line_start..at];
            if at < copied || !indent.bytes().all(|b| b == b' ') {
                continue;
            }
            let digits_start = at + PLACEHOLDER.len();
            let line_end = memchr::memchr(b'\n', &printed.as_bytes()[digits_start..])
                .map_or(printed.len(), |i| digits_start + i);
            let n: usize = printed[digits_start..line_end].parse().map_err(|_| {
                format!(
                    "malformed doc placeholder line {:?}",
                    &printed[line_start..line_end]
                )
            })?;
            match used.get_mut(n) {
                Some(seen @ false) => *seen = true,
                _ => return Err(format!("doc placeholder #{n} is unknown or printed twice")),
            }
            out.push_str(&printed[copied..line_start]);
            for line in lines(&docs[n]) {
                out.push_str(indent);
                out.push_str("///");
                let text = line.trim_end_matches(' ');
                if !text.is_empty() {
                    out.push(' ');
                    out.push_str(text);
                }
                out.push('\n');
            }
            copied = (line_end + 1).min(printed.len());
        }
        if let Some(n) = used.iter().position(|seen| !seen) {
            return Err(format!(
                "doc placeholder #{n} is missing from the printed text"
            ));
        }
        out.push_str(&printed[copied..]);
        Ok(out)
    }
}

/// Whether the doc comments alone reproduce `description` exactly.
///
/// crd-derive reads each doc line without its trailing whitespace and trims the joined
/// text (and rustc takes no carriage return in a doc comment), so a line ending in a space (`...emitted. \n When...`) or a description that
/// starts or ends with blank lines (istio's `"\n\nValid Options: ..."`) must stay a
/// `description` keyword.
pub fn docs_roundtrip(description: &str) -> bool {
    // Each line comes back as written ([`doc_attrs_syn`] adds the one space that
    // [`doc_to_description`] strips), so only the derive's trimming can lose text.
    // rustc rejects a carriage return in a doc comment ("bare CR not allowed").
    !description.is_empty()
        && description.trim() == description
        && memchr::memchr(b'\r', description.as_bytes()).is_none()
        && !lines(description).any(|l| l.ends_with(char::is_whitespace))
}

/// `text.split('\n')`, with a vectorized search (descriptions are most of the text).
fn lines(text: &str) -> impl Iterator<Item = &str> {
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

    /// A module with a documented struct, field and enum variant, printed.
    fn printed_with(sink: &DocSink, docs: [&str; 3]) -> String {
        let [a, b, c] = docs.map(|d| sink.attrs(d));
        let tokens = quote! {
            pub mod m {
                #(#a)*
                pub struct S {
                    #(#b)*
                    #[crd(description = "///#0\n    ///#1")]
                    pub field: u8,
                }
                pub enum E {
                    #(#c)*
                    A,
                }
            }
        };
        prettyplease::unparse(&syn::parse2(tokens).expect("parses"))
    }

    proptest::proptest! {
        /// Placeholders spliced after printing give exactly the text of printing the
        /// doc attributes, at every indentation, whatever the description holds.
        #[test]
        fn spliced_docs_print_like_doc_attributes(
            docs in proptest::array::uniform3(r#"[ a\t\n\r*/"\\#0é]{0,14}"#),
        ) {
            let docs = docs.each_ref().map(String::as_str);
            let inline = printed_with(&DocSink::Inline, docs);
            let sink = DocSink::deferred();
            let printed = printed_with(&sink, docs);
            proptest::prop_assert_eq!(sink.splice(printed).unwrap(), inline);
        }
    }

    #[test]
    fn a_missing_or_repeated_placeholder_is_an_error() {
        let sink = DocSink::deferred();
        let printed = printed_with(&sink, ["a", "b", "c"]);
        let missing = printed.replacen("///#1\n", "", 1);
        let err = DocSink::Deferred(RefCell::new(vec!["a".into(), "b".into(), "c".into()]))
            .splice(missing)
            .unwrap_err();
        assert_eq!(err, "doc placeholder #1 is missing from the printed text");
        let twice = printed.replacen("///#1", "///#0", 1);
        assert_eq!(
            sink.splice(twice).unwrap_err(),
            "doc placeholder #0 is unknown or printed twice"
        );
        let garbled = DocSink::Deferred(RefCell::new(vec!["a".into()]))
            .splice("    ///#0x\n".into())
            .unwrap_err();
        assert!(
            garbled.starts_with("malformed doc placeholder line"),
            "{garbled}"
        );
        // Without deferred docs the text is left as it is.
        assert_eq!(DocSink::Inline.splice("///#7\n".into()).unwrap(), "///#7\n");
        assert_eq!(
            DocSink::deferred().splice("///#7\n".into()).unwrap(),
            "///#7\n"
        );
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
    }
}
