//! Reading the module `#[versioned]` is put on: its attributes, visibility, name, and its
//! items split into types (structs and enums, parsed as `DeriveInput`), `impl` blocks and
//! everything else (kept as tokens).
//!
//! The items are split by hand rather than with syn's `full` feature, which the derives
//! do not need and which would make every build of crd-derive slower.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, DeriveInput, Ident, Token, Visibility};

/// `mod name { ... }` with what `#[versioned]` does to its items.
pub struct Module {
    /// Outer attributes (docs, `#[allow]`, ...).
    pub attrs: Vec<Attribute>,
    /// The module's visibility.
    pub vis: Visibility,
    /// `mod`.
    pub mod_token: Token![mod],
    /// The module's name.
    pub ident: Ident,
    /// The items, in order.
    pub items: Vec<ModItem>,
}

/// One item of the module.
pub enum ModItem {
    /// A struct or enum: one of the kind's versioned types.
    Type(Box<DeriveInput>),
    /// An `impl` block, copied into every version's module.
    Impl(TokenStream),
    /// Inner attributes (`#![...]`), kept at the top of the outer module.
    Inner(TokenStream),
    /// Anything else (`use`, `fn`, `const`, macros, ...), kept once in the outer module.
    Other(TokenStream),
}

impl Parse for Module {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let mod_token: Token![mod] = input.parse()?;
        let ident: Ident = input.parse()?;
        if input.peek(Token![;]) {
            return Err(
                input.error("`#[versioned]` needs the module's items inline: `mod name { ... }`")
            );
        }
        let content;
        syn::braced!(content in input);
        let body: TokenStream = content.parse()?;
        Ok(Module {
            attrs,
            vis,
            mod_token,
            ident,
            items: split_items(body)?,
        })
    }
}

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

fn is_ident(t: Option<&TokenTree>, name: &str) -> bool {
    matches!(t, Some(TokenTree::Ident(i)) if i == name)
}

fn is_group(t: &TokenTree, d: Delimiter) -> bool {
    matches!(t, TokenTree::Group(g) if g.delimiter() == d)
}

/// Splits a module body into items: attributes and visibility first, then up to the
/// `;` or the `{...}` that ends the item (for `const`, `static`, `use`, `type` and
/// `extern crate`, always a `;`, as their values may hold braces).
fn split_items(body: TokenStream) -> syn::Result<Vec<ModItem>> {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut items = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let start = i;
        // `#![...]`
        if is_punct(&tokens[i], '#')
            && tokens.get(i + 1).is_some_and(|t| is_punct(t, '!'))
            && tokens
                .get(i + 2)
                .is_some_and(|t| is_group(t, Delimiter::Bracket))
        {
            items.push(ModItem::Inner(tokens[i..i + 3].iter().cloned().collect()));
            i += 3;
            continue;
        }
        while is_punct(&tokens[i], '#')
            && tokens
                .get(i + 1)
                .is_some_and(|t| is_group(t, Delimiter::Bracket))
        {
            i += 2;
            if i >= tokens.len() {
                return Err(syn::Error::new(
                    tokens[i - 1].span(),
                    "expected an item after this attribute",
                ));
            }
        }
        if is_ident(tokens.get(i), "pub") {
            i += 1;
            if tokens
                .get(i)
                .is_some_and(|t| is_group(t, Delimiter::Parenthesis))
            {
                i += 1;
            }
        }
        let head = i;
        let keyword = |k: usize| match tokens.get(head + k) {
            Some(TokenTree::Ident(id)) => id.to_string(),
            _ => String::new(),
        };
        let first = keyword(0);
        let semicolon_only = matches!(first.as_str(), "use" | "static" | "type")
            || (first == "const" && !matches!(keyword(1).as_str(), "fn" | "unsafe" | "async"))
            || (first == "extern" && keyword(1) == "crate");
        let mut end = None;
        while i < tokens.len() {
            let t = &tokens[i];
            i += 1;
            if is_punct(t, ';') || (!semicolon_only && is_group(t, Delimiter::Brace)) {
                end = Some(i);
                break;
            }
        }
        let Some(end) = end else {
            return Err(syn::Error::new(
                tokens[start].span(),
                "expected `;` or `{...}` at the end of this item",
            ));
        };
        let item: TokenStream = tokens[start..end].iter().cloned().collect();
        let kind = match first.as_str() {
            "struct" | "enum" | "union" => {
                ModItem::Type(Box::new(syn::parse2::<DeriveInput>(item)?))
            }
            "impl" => ModItem::Impl(item),
            "unsafe" if keyword(1) == "impl" => ModItem::Impl(item),
            _ => ModItem::Other(item),
        };
        items.push(kind);
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn items_are_split_by_their_ends() {
        let m: Module = syn::parse2(quote! {
            /// Docs.
            pub mod api {
                #![allow(dead_code)]
                use serde::Serialize;
                const X: S = S { a: 1 };
                pub(crate) fn f() -> [u8; 2] { [0; 2] }
                #[derive(Clone)]
                pub struct S { a: u8 }
                enum E { A }
                impl S { fn g(&self) {} }
                macro_rules! m { () => {} }
                struct Unit;
            }
        })
        .unwrap();
        let kinds: Vec<&str> = m
            .items
            .iter()
            .map(|i| match i {
                ModItem::Type(_) => "type",
                ModItem::Impl(_) => "impl",
                ModItem::Inner(_) => "inner",
                ModItem::Other(_) => "other",
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "inner", "other", "other", "other", "type", "type", "impl", "other", "type"
            ]
        );
    }
}
