//! No module cycles, in any crate of the workspace: at every level of every crate's
//! module tree, the child modules (files, directories and inline modules) depend on
//! each other without a cycle, so each can be read, tested and moved on its own.
//!
//! What counts as a dependency (paths through `super::`, `self::`, `crate::a::b`, `use`
//! groups, re-exports, macro arguments; never comments or strings) is documented and
//! unit-tested in `crd_toolkit_tests::module_graph`.

use std::path::Path;

use crd_toolkit_tests::module_graph::cycle_report;
use crd_toolkit_tests::source_tree::{Disk, crate_roots, load};

/// The cycles of every target (`lib.rs`, `main.rs`, `bin/*`) of the crate in `dir`.
fn cycles_of(dir: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir)
        .join("src");
    let roots = crate_roots(&src);
    assert!(!roots.is_empty(), "no crate root under {}", src.display());
    let mut out = Vec::new();
    for root in roots {
        let tree = load(&root, &Disk).unwrap_or_else(|e| panic!("{e}"));
        let target = root.strip_prefix(&src).unwrap().display().to_string();
        for cycle in cycle_report(&tree, &src) {
            out.push(format!("{dir} ({target}) {cycle}"));
        }
    }
    out
}

fn assert_acyclic(dir: &str) {
    let cycles = cycles_of(dir);
    assert!(
        cycles.is_empty(),
        "{} module cycle(s):\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}

#[test]
fn crd_runtime_has_no_module_cycles() {
    assert_acyclic("crd-runtime");
}

#[test]
fn crd_derive_has_no_module_cycles() {
    assert_acyclic("crd-derive");
}

#[test]
fn crd_gen_has_no_module_cycles() {
    assert_acyclic("crd-gen");
}

#[test]
fn crd_server_has_no_module_cycles() {
    assert_acyclic("crd-server");
}

#[test]
fn examples_have_no_module_cycles() {
    assert_acyclic("examples");
    assert_acyclic("examples/build-script");
}

#[test]
fn tests_and_fuzz_have_no_module_cycles() {
    assert_acyclic("tests");
    assert_acyclic("fuzz");
}
