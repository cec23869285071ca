//! How one version module spells the std, serde and runtime items it uses.
//!
//! Generated code lives in its own module (`pub mod v1 { ... }`), so inside it a name
//! resolves to an item of that module first and to the prelude or a `use` after that.
//! Short names (`Option<String>`, `BTreeMap`, `Value`) are therefore safe exactly when
//! no generated type of the module has that name; for the names a CRD does shadow
//! (a kind called `Value`, a property type called `Option`), the fully qualified path
//! is written instead. Short names keep the output readable and about a quarter
//! smaller, which every later stage (syn, prettyplease, rustc) pays for.

use std::cell::RefCell;
use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// Items that need a `use` line to be spelled short.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Import {
    /// `::std::collections::BTreeMap`.
    BTreeMap,
    /// `::std::collections::HashMap`.
    HashMap,
    /// `::serde_json::Value`.
    Value,
    /// `::serde_json::Map`.
    Map,
    /// `::serde::Serialize` (trait and derive).
    Serialize,
    /// `::serde::Deserialize` (trait and derive).
    Deserialize,
    /// The runtime's `CrdSchema` (trait and derive).
    CrdSchema,
    /// The runtime's `CustomResource` (trait and derive).
    CustomResource,
    /// The runtime's `IntOrString`.
    IntOrString,
    /// The runtime's `EmbeddedObject`.
    EmbeddedObject,
}

impl Import {
    fn name(self) -> &'static str {
        match self {
            Import::BTreeMap => "BTreeMap",
            Import::HashMap => "HashMap",
            Import::Value => "Value",
            Import::Map => "Map",
            Import::Serialize => "Serialize",
            Import::Deserialize => "Deserialize",
            Import::CrdSchema => "CrdSchema",
            Import::CustomResource => "CustomResource",
            Import::IntOrString => "IntOrString",
            Import::EmbeddedObject => "EmbeddedObject",
        }
    }
}

/// Prelude types generated code uses.
#[derive(Clone, Copy, Debug)]
pub enum Prelude {
    /// `Option`.
    Option,
    /// `String`.
    String,
    /// `Vec`.
    Vec,
}

/// Path spelling for one module: which names its own types shadow, and which imports
/// it has used so far.
pub struct Paths {
    shadowed: BTreeSet<String>,
    used: RefCell<BTreeSet<Import>>,
    rt: TokenStream,
    /// `rt` as a syn path (parsed once per module).
    rt_path: syn::Path,
}

impl Paths {
    /// Paths for a module that defines the types named in `defined`.
    pub fn new<'a>(defined: impl IntoIterator<Item = &'a str>, rt: TokenStream) -> Paths {
        Paths {
            shadowed: defined.into_iter().map(str::to_string).collect(),
            used: RefCell::new(BTreeSet::new()),
            rt_path: syn::parse2(rt.clone())
                .unwrap_or_else(|_| super::ast::path(true, &["crd_runtime"])),
            rt,
        }
    }

    /// [`Paths::import_path`] as tokens.
    pub fn import(&self, item: Import) -> TokenStream {
        self.import_path(item).into_token_stream()
    }

    /// An item that needs a `use`: its short name when nothing shadows it (recording
    /// the import), else its full path.
    pub fn import_path(&self, item: Import) -> syn::Path {
        let name = item.name();
        if self.shadowed.contains(name) {
            let (lead, segs): (bool, &[&str]) = match item {
                Import::BTreeMap => (true, &["std", "collections", "BTreeMap"]),
                Import::HashMap => (true, &["std", "collections", "HashMap"]),
                Import::Value => (true, &["serde_json", "Value"]),
                Import::Map => (true, &["serde_json", "Map"]),
                Import::Serialize => (true, &["serde", "Serialize"]),
                Import::Deserialize => (true, &["serde", "Deserialize"]),
                _ => {
                    let mut p = self.rt_path.clone();
                    p.segments
                        .push(proc_macro2::Ident::new(name, proc_macro2::Span::call_site()).into());
                    return p;
                }
            };
            super::ast::path(lead, segs)
        } else {
            self.used.borrow_mut().insert(item);
            super::ast::path(false, &[name])
        }
    }

    /// A prelude type: its short name unless a generated type shadows it.
    pub fn prelude_path(&self, item: Prelude) -> syn::Path {
        let (name, module) = match item {
            Prelude::Option => ("Option", "option"),
            Prelude::String => ("String", "string"),
            Prelude::Vec => ("Vec", "vec"),
        };
        if self.shadowed.contains(name) {
            super::ast::path(true, &["std", module, name])
        } else {
            super::ast::path(false, &[name])
        }
    }

    /// The `skip_serializing_if` path for optional fields.
    pub fn is_none(&self) -> &'static str {
        if self.shadowed.contains("Option") {
            "::std::option::Option::is_none"
        } else {
            "Option::is_none"
        }
    }

    /// `use` lines for every import used so far, grouped by crate.
    pub fn uses(&self) -> TokenStream {
        let used = self.used.borrow();
        let group = |items: &[Import], root: TokenStream| {
            let names: Vec<proc_macro2::Ident> = items
                .iter()
                .filter(|i| used.contains(i))
                .map(|i| proc_macro2::Ident::new(i.name(), proc_macro2::Span::call_site()))
                .collect();
            match names.len() {
                0 => TokenStream::new(),
                1 => quote!(use #root::#(#names)*;),
                _ => quote!(use #root::{#(#names),*};),
            }
        };
        let rt = &self.rt;
        let std = group(
            &[Import::BTreeMap, Import::HashMap],
            quote!(::std::collections),
        );
        let serde = group(&[Import::Deserialize, Import::Serialize], quote!(::serde));
        let json = group(&[Import::Map, Import::Value], quote!(::serde_json));
        let runtime = group(
            &[
                Import::CrdSchema,
                Import::CustomResource,
                Import::EmbeddedObject,
                Import::IntOrString,
            ],
            quote!(#rt),
        );
        quote!(#std #serde #json #runtime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(tokens: TokenStream) -> String {
        tokens.to_string().replace(' ', "")
    }

    #[test]
    fn short_names_are_imported_once_and_only_when_used() {
        let paths = Paths::new(["CronTab", "CronTabSpec"], quote!(::crd_runtime));
        assert_eq!(render(paths.import(Import::Value)), "Value");
        assert_eq!(render(paths.import(Import::Serialize)), "Serialize");
        assert_eq!(render(paths.import(Import::Deserialize)), "Deserialize");
        assert_eq!(render(paths.import(Import::Value)), "Value");
        assert_eq!(
            render(paths.prelude_path(Prelude::Option).into_token_stream()),
            "Option"
        );
        assert_eq!(
            render(paths.uses()),
            "use::serde::{Deserialize,Serialize};use::serde_json::Value;"
        );
    }

    #[test]
    fn shadowed_names_stay_fully_qualified() {
        let paths = Paths::new(["Value", "Option", "Serialize"], quote!(::my_rt));
        assert_eq!(render(paths.import(Import::Value)), "::serde_json::Value");
        assert_eq!(
            render(paths.import(Import::Serialize)),
            "::serde::Serialize"
        );
        assert_eq!(
            render(paths.prelude_path(Prelude::Option).into_token_stream()),
            "::std::option::Option"
        );
        assert_eq!(paths.is_none(), "::std::option::Option::is_none");
        assert_eq!(render(paths.import(Import::IntOrString)), "IntOrString");
        assert_eq!(render(paths.uses()), "use::my_rt::IntOrString;");
    }
}
