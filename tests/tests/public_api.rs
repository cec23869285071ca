//! The public API of each library crate, compared with its checked-in listing
//! (`<crate>/public-api.txt`), so that a change to the surface is a visible, reviewed
//! diff. The listing is read from the sources (`crd_toolkit_tests::public_api`): no
//! compile step and no nightly rustdoc.
//!
//! Refresh after a deliberate change:
//! `UPDATE_GOLDEN=1 cargo test -p crd-toolkit-tests --test public_api`.

use std::collections::BTreeSet;
use std::path::Path;

use crd_toolkit_tests::public_api::listing;
use crd_toolkit_tests::source_tree::{Disk, load};

fn check(dir: &str, krate: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let tree = load(&root.join("src/lib.rs"), &Disk).unwrap_or_else(|e| panic!("{e}"));
    let mut text = format!(
        "# The public API of {krate}, one item a line (tests/tests/public_api.rs).\n\
         # Refresh: UPDATE_GOLDEN=1 cargo test -p crd-toolkit-tests --test public_api\n"
    );
    for line in listing(&tree, krate) {
        text.push_str(&line);
        text.push('\n');
    }
    let golden = root.join("public-api.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
        return;
    }
    let old = std::fs::read_to_string(&golden).unwrap_or_default();
    if old == text {
        return;
    }
    let old_lines: BTreeSet<&str> = old.lines().collect();
    let new_lines: BTreeSet<&str> = text.lines().collect();
    let mut diff = String::new();
    for gone in old_lines.difference(&new_lines) {
        diff.push_str(&format!("- {gone}\n"));
    }
    for added in new_lines.difference(&old_lines) {
        diff.push_str(&format!("+ {added}\n"));
    }
    panic!(
        "the public API of {krate} differs from {}:\n{diff}\n\
         If the change is deliberate, refresh the listing with\n\
         UPDATE_GOLDEN=1 cargo test -p crd-toolkit-tests --test public_api",
        golden.display()
    );
}

#[test]
fn crd_runtime_public_api() {
    check("crd-runtime", "crd_runtime");
}

#[test]
fn crd_derive_public_api() {
    check("crd-derive", "crd_derive");
}

#[test]
fn crd_gen_public_api() {
    check("crd-gen", "crd_gen");
}

#[test]
fn crd_server_public_api() {
    check("crd-server", "crd_server");
}

#[test]
fn crd_webhook_public_api() {
    check("crd-webhook", "crd_webhook");
}
