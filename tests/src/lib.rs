//! Shared helpers for the workspace acceptance tests: where `../shared` is and
//! how to walk the real-world CRD corpus, and the test CRD other packages' tests
//! include ([`test_crd`]).
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

pub mod cel_conformance;
pub mod conformance;
pub mod module_graph;
pub mod public_api;
pub mod source_tree;
pub mod test_crd;

/// `../shared` next to the workspace root (override with `CRD_TOOLKIT_SHARED`).
pub fn shared_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("CRD_TOOLKIT_SHARED") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// The CronTab fixtures directory.
pub fn crontab_dir() -> PathBuf {
    shared_dir().join("fixtures/crontab")
}

/// The conformance tables directory.
pub fn conformance_dir() -> PathBuf {
    shared_dir().join("conformance")
}

/// Every `*.yaml` file of the real-world corpus, sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let root = shared_dir().join("corpus/crds");
    let mut out = Vec::new();
    walk(&root, &mut out);
    out.sort();
    assert!(!out.is_empty(), "no corpus files under {}", root.display());
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Reads a JSON conformance table.
pub fn conformance_cases(name: &str) -> Vec<serde_json::Value> {
    let path = conformance_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A conformance `schema` field: JSON `null` is "no schema".
pub fn schema_of(v: &serde_json::Value) -> Option<crd_runtime::JSONSchemaProps> {
    if v.is_null() {
        return None;
    }
    Some(serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("schema {v}: {e}")))
}

/// Fails with every mismatch listed, after checking how many cases ran.
pub fn report(file: &str, ran: usize, expected: usize, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{file}: {} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(ran, expected, "{file}: unexpected number of cases");
    println!("{file}: {ran} of {expected} cases passed");
}
