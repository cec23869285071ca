//! The listing of small crates written in the tests: reachability, signatures,
//! re-exports from private modules, cfg and doc(hidden) notes.

use std::path::Path;

use super::*;
use crate::source_tree::{load, sources};

fn list(files: &[(&str, &str)]) -> Vec<String> {
    let tree = load(Path::new("s/lib.rs"), &sources(files)).unwrap();
    listing(&tree, "k")
}

#[test]
fn items_signatures_and_reachability() {
    let got = list(&[
        (
            "s/lib.rs",
            "pub mod a; mod hidden; pub use a::Thing as Renamed;\n\
             #[doc(hidden)] pub mod secret { pub fn s() {} }\n\
             #[cfg(feature = \"x\")] pub mod gated { pub const N: u8 = 1; }\n\
             #[macro_export] macro_rules! m { () => {} }",
        ),
        (
            "s/a.rs",
            "#[derive(Clone, Debug)] pub struct Thing<T> { pub x: Vec<T>, y: u8 }\n\
             pub enum E { A, B(u8, String), C { n: i64 } }\n\
             pub trait Tr: Clone { const K: u8; type Out: Copy; fn go(&self) -> Self::Out; }\n\
             pub fn f<'a>(s: &'a str, n: Option<usize>) -> Result<&'a str, String> { todo!() }\n\
             pub(crate) fn internal() {}\n\
             impl<T> Thing<T> { pub fn new() -> Self { todo!() } fn private(&self) {} }\n\
             impl std::fmt::Display for E { }",
        ),
        (
            "s/hidden.rs",
            "pub fn unreachable() {}\n\
             impl crate::a::Thing<u8> { pub fn more(&mut self, #[allow(unused)] v: u8) {} }",
        ),
    ]);
    assert_eq!(
        got,
        [
            "pub use k::Renamed = a::Thing",
            "pub mod k::a",
            "pub enum k::a::E",
            "impl std::fmt::Display for k::a::E",
            "k::a::E::A",
            "k::a::E::B(u8, String)",
            "k::a::E::C { n: i64 }",
            "#[derive(Clone, Debug)] pub struct k::a::Thing<T>",
            "pub fn k::a::Thing::more(&mut self, #[allow(unused)] v: u8)",
            "pub fn k::a::Thing::new() -> Self",
            "pub k::a::Thing::x: Vec<T>",
            "pub trait k::a::Tr: Clone",
            "const k::a::Tr::K: u8",
            "type k::a::Tr::Out: Copy",
            "fn k::a::Tr::go(&self) -> Self::Out",
            "pub fn k::a::f<'a>(s: &'a str, n: Option<usize>) -> Result<&'a str, String>",
            "#[cfg(feature = \"x\")] pub mod k::gated",
            "#[cfg(feature = \"x\")] pub const k::gated::N: u8",
            "macro k::m!",
            "#[doc(hidden)] pub mod k::secret",
            "#[doc(hidden)] pub fn k::secret::s()",
        ]
    );
}

#[test]
fn items_of_private_modules_are_listed_where_they_are_re_exported() {
    let got = list(&[
        ("s/lib.rs", "pub mod m; mod imp; pub use imp::Engine;"),
        ("s/m/mod.rs", "mod defs; pub use defs::*;"),
        (
            "s/m/defs.rs",
            "pub struct Spec { pub a: u8 } pub fn helper() {} pub(crate) fn no() {}",
        ),
        (
            "s/imp.rs",
            "pub struct Engine; impl Engine { pub fn run(&self) {} }",
        ),
    ]);
    assert_eq!(
        got,
        [
            "pub struct k::Engine",
            "pub use k::Engine = imp::Engine",
            "pub fn k::Engine::run(&self)",
            "pub mod k::m",
            "pub use k::m::* = defs::*",
            "pub struct k::m::Spec",
            "pub k::m::Spec::a: u8",
            "pub fn k::m::helper()",
        ]
    );
}

#[test]
fn long_signatures_stay_on_one_line() {
    let got = list(&[(
        "s/lib.rs",
        "pub fn long_function_name(first_argument: &std::collections::BTreeMap<String, Vec<u8>>, \
         second_argument: impl Fn(&str) -> Option<String>) -> Result<(), Box<dyn std::error::Error>> \
         where Self: Sized { todo!() }",
    )]);
    assert_eq!(
        got,
        [
            "pub fn k::long_function_name(first_argument: &std::collections::BTreeMap<String, Vec<u8>>, \
          second_argument: impl Fn(&str) -> Option<String>) -> Result<(), Box<dyn std::error::Error>> \
          where Self: Sized"
        ]
    );
}
