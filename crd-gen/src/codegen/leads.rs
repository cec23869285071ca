//! The attributes that lead items and fields: doc comments, then (on most of them)
//! an attribute every item or field of the module repeats — the derive list, and
//! `#[serde(default, skip_serializing_if = ...)]`.
//!
//! As syntax trees these are most of what prettyplease prints: a literal token per
//! doc line, and the same attribute tokens copied and laid out again on every field.
//! A module that is printed at once can defer them ([`Leads::Deferred`]): each
//! item's leading attributes become one placeholder `#[doc = "#n"]`, printed as a
//! `///#n` line, and [`Leads::splice`] writes in its place what prettyplease prints
//! for the real attributes: `///` plus the text of each doc line, then the repeated
//! attribute as prettyplease lays it out at that indentation (laid out once per
//! attribute and indentation, by prettyplease, and reused). Generated string literals
//! never hold a raw line break, so a placeholder is the only line that is
//! indentation then `///#`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use proc_macro2::Span;
use quote::{ToTokens, quote};

use super::ast;
use super::docs::{doc_attrs_syn, lines};

/// Where leading attributes go.
pub enum Leads {
    /// Into the syntax tree (trees handed to the caller).
    Inline,
    /// Placeholders in the tree, the attributes in a table.
    Deferred(RefCell<Table>),
}

/// The deferred leading attributes of one printed text.
#[derive(Default)]
pub struct Table {
    /// By placeholder number: a description, and a repeated attribute.
    entries: Vec<(Option<String>, Option<usize>)>,
    /// The repeated attributes.
    repeated: Vec<syn::Attribute>,
}

/// An attribute that leads many items or fields of a module.
#[derive(Clone)]
pub struct Repeated {
    attr: syn::Attribute,
    /// Its number in a deferred table.
    id: Option<usize>,
}

/// What a placeholder is printed as: `///#n`.
const PLACEHOLDER: &str = "///#";

impl Leads {
    /// Leads for a tree that will be printed and then spliced.
    pub fn deferred() -> Leads {
        Leads::Deferred(RefCell::default())
    }

    /// Registers an attribute that many items or fields of a module repeat.
    pub fn repeated(&self, attr: syn::Attribute) -> Repeated {
        let id = match self {
            Leads::Inline => None,
            Leads::Deferred(table) => {
                let mut table = table.borrow_mut();
                table.repeated.push(attr.clone());
                Some(table.repeated.len() - 1)
            }
        };
        Repeated { attr, id }
    }

    /// The leading attributes: the doc comments for `description`, then `repeated`.
    pub fn lead(
        &self,
        description: Option<&str>,
        repeated: Option<&Repeated>,
    ) -> Vec<syn::Attribute> {
        match self {
            Leads::Inline => {
                let mut attrs = description.map(doc_attrs_syn).unwrap_or_default();
                attrs.extend(repeated.map(|r| r.attr.clone()));
                attrs
            }
            Leads::Deferred(_) if description.is_none() && repeated.is_none() => Vec::new(),
            Leads::Deferred(table) => {
                let mut table = table.borrow_mut();
                let n = table.entries.len();
                table
                    .entries
                    .push((description.map(str::to_owned), repeated.and_then(|r| r.id)));
                vec![placeholder(n)]
            }
        }
    }

    /// `printed` (prettyplease's text of a tree built with these leads) with every
    /// placeholder line replaced by the lines prettyplease prints for the attributes
    /// it stands for, at the placeholder's indentation. Errors when a placeholder is
    /// missing or repeated.
    pub fn splice(self, printed: String) -> Result<String, String> {
        let table = match self {
            Leads::Deferred(table) => table.into_inner(),
            Leads::Inline => return Ok(printed),
        };
        if table.entries.is_empty() {
            return Ok(printed);
        }
        let extra: usize = table
            .entries
            .iter()
            .map(|(d, _)| d.as_ref().map_or(0, |d| d.len() * 2) + 80)
            .sum();
        let mut out = String::with_capacity(printed.len() + extra);
        let mut used = vec![false; table.entries.len()];
        // Per repeated attribute: the indentation it was laid out at, and its lines.
        let mut laid: Vec<Option<(usize, Rc<str>)>> = vec![None; table.repeated.len()];
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
                    "malformed placeholder line {:?}",
                    &printed[line_start..line_end]
                )
            })?;
            match used.get_mut(n) {
                Some(seen @ false) => *seen = true,
                _ => return Err(format!("placeholder #{n} is unknown or printed twice")),
            }
            out.push_str(&printed[copied..line_start]);
            let (description, repeated) = &table.entries[n];
            if let Some(description) = description {
                write_doc_lines(&mut out, indent, description);
            }
            if let Some(id) = *repeated {
                let lines = match &laid[id] {
                    Some((at, lines)) if *at == indent.len() => lines.clone(),
                    _ => {
                        let lines = laid_out(&table.repeated[id], indent.len())?;
                        laid[id] = Some((indent.len(), lines.clone()));
                        lines
                    }
                };
                out.push_str(&lines);
            }
            copied = (line_end + 1).min(printed.len());
        }
        if let Some(n) = used.iter().position(|seen| !seen) {
            return Err(format!("placeholder #{n} is missing from the printed text"));
        }
        out.push_str(&printed[copied..]);
        Ok(out)
    }
}

/// `#[doc = "#n"]`.
fn placeholder(n: usize) -> syn::Attribute {
    // Digits by hand: `format!` costs more than the rest of the attribute.
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = n;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut text = String::with_capacity(1 + digits.len() - start);
    text.push('#');
    text.extend(digits[start..].iter().map(|&d| char::from(d)));
    ast::doc_lit(syn::LitStr::new(&text, Span::call_site()))
}

/// The lines prettyplease prints for the doc attributes of `description`
/// ([`doc_attrs_syn`]: `#[doc = " line"]` per line): `///`, then the attribute's
/// text without trailing spaces.
fn write_doc_lines(out: &mut String, indent: &str, description: &str) {
    for line in lines(description) {
        out.push_str(indent);
        out.push_str("///");
        let text = line.trim_end_matches(' ');
        if !text.is_empty() {
            out.push(' ');
            out.push_str(text);
        }
        out.push('\n');
    }
}

thread_local! {
    /// Attribute text and indentation → its lines as prettyplease prints them.
    static LAID_OUT: RefCell<HashMap<(String, usize), Rc<str>>> = RefCell::default();
}

/// `attr` as prettyplease prints it on an item indented `indent` spaces: the item
/// is printed inside as many modules, and its attribute lines are taken.
fn laid_out(attr: &syn::Attribute, indent: usize) -> Result<Rc<str>, String> {
    let key = (attr.to_token_stream().to_string(), indent);
    if let Some(lines) = LAID_OUT.with(|cache| cache.borrow().get(&key).cloned()) {
        return Ok(lines);
    }
    if !indent.is_multiple_of(4) {
        return Err(format!("placeholder indented {indent} spaces"));
    }
    let mut item: syn::Item = syn::parse2(quote!(#attr struct S;)).map_err(|e| e.to_string())?;
    for _ in 0..indent / 4 {
        item = syn::parse2(quote!(mod m { #item })).map_err(|e| e.to_string())?;
    }
    let printed = prettyplease::unparse(&syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items: vec![item],
    });
    let item_line = format!("{:indent$}struct S;\n", "");
    // After the `mod m {` lines, up to the item.
    let start = match indent / 4 {
        0 => 0,
        modules => printed
            .match_indices('\n')
            .nth(modules - 1)
            .map_or(printed.len(), |(i, _)| i + 1),
    };
    let end = printed[start..]
        .find(&item_line)
        .ok_or_else(|| format!("cannot lay out {}", key.0))?;
    let lines: Rc<str> = Rc::from(&printed[start..start + end]);
    LAID_OUT.with(|cache| cache.borrow_mut().insert(key, lines.clone()));
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module (inside another) with a documented struct, fields and enum variant,
    /// the struct and the first field led by repeated attributes, printed.
    fn printed_with(leads: &Leads, docs: [&str; 3], long: bool) -> String {
        let derive = if long {
            // Wider than a line: prettyplease breaks it over several.
            quote!(derive(
                Clone,
                Debug,
                PartialEq,
                ::some::long::path::Serialize,
                ::some::long::path::Deserialize,
                Schema
            ))
        } else {
            quote!(derive(Clone, Debug))
        };
        let derive = leads.repeated(syn::parse_quote!(#[#derive]));
        let serde = leads.repeated(
            syn::parse_quote!(#[serde(default, skip_serializing_if = "Option::is_none")]),
        );
        let a = leads.lead(Some(docs[0]), Some(&derive));
        let b = leads.lead(Some(docs[1]), Some(&serde));
        let c = leads.lead(None, Some(&serde));
        let d = leads.lead(Some(docs[2]), None);
        let none = leads.lead(None, None);
        assert!(none.is_empty());
        let tokens = quote! {
            pub mod outer {
                pub mod m {
                    #(#a)*
                    pub struct S {
                        #(#b)*
                        #[crd(description = "///#0\n    ///#1")]
                        pub field: u8,
                        #(#c)*
                        pub other: Option<u8>,
                    }
                }
                pub enum E {
                    #(#d)*
                    A,
                }
            }
        };
        prettyplease::unparse(&syn::parse2(tokens).expect("parses"))
    }

    proptest::proptest! {
        /// Placeholders spliced after printing give exactly the text of printing the
        /// attributes, at every indentation, whatever the descriptions hold.
        #[test]
        fn spliced_leads_print_like_the_attributes(
            docs in proptest::array::uniform3(r#"[ a\t\n\r*/"\\#0é]{0,14}"#),
            long: bool,
        ) {
            let docs = docs.each_ref().map(String::as_str);
            let inline = printed_with(&Leads::Inline, docs, long);
            let leads = Leads::deferred();
            let printed = printed_with(&leads, docs, long);
            proptest::prop_assert!(printed.contains("///#0\n"), "{}", printed);
            proptest::prop_assert_eq!(leads.splice(printed).unwrap(), inline);
        }
    }

    #[test]
    fn placeholders_are_numbered_doc_attributes() {
        for n in [0, 7, 10, 1234, usize::MAX] {
            let text = format!("#{n}");
            let expected = quote!(#[doc = #text]).to_string();
            assert_eq!(placeholder(n).to_token_stream().to_string(), expected);
        }
    }

    #[test]
    fn long_repeated_attributes_are_laid_out_over_lines() {
        let printed = printed_with(&Leads::Inline, ["a", "b", "c"], true);
        assert!(
            printed.contains("        #[derive(\n            Clone,"),
            "{printed}"
        );
    }

    #[test]
    fn a_missing_or_repeated_placeholder_is_an_error() {
        let table = || {
            let leads = Leads::deferred();
            for d in ["a", "b", "c"] {
                leads.lead(Some(d), None);
            }
            leads
        };
        let printed = "    ///#0\n    ///#1\n///#2\n".to_string();
        assert_eq!(
            table().splice(printed.clone()).unwrap(),
            "    /// a\n    /// b\n/// c\n"
        );
        let missing = printed.replacen("    ///#1\n", "", 1);
        assert_eq!(
            table().splice(missing).unwrap_err(),
            "placeholder #1 is missing from the printed text"
        );
        let twice = printed.replacen("///#1", "///#0", 1);
        assert_eq!(
            table().splice(twice).unwrap_err(),
            "placeholder #0 is unknown or printed twice"
        );
        let garbled = table().splice("    ///#0x\n".into()).unwrap_err();
        assert!(
            garbled.starts_with("malformed placeholder line"),
            "{garbled}"
        );
        // Not at a line start: left alone (and then missing).
        let inside = table()
            .splice("x ///#0\n///#1\n///#2\n".into())
            .unwrap_err();
        assert_eq!(inside, "placeholder #0 is missing from the printed text");
        // Without deferred attributes the text is left as it is.
        assert_eq!(Leads::Inline.splice("///#7\n".into()).unwrap(), "///#7\n");
        assert_eq!(
            Leads::deferred().splice("///#7\n".into()).unwrap(),
            "///#7\n"
        );
    }
}
