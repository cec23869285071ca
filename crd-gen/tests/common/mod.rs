//! Where the golden tests' CRD sources live, shared by `golden.rs` and
//! `golden_compile.rs`, the corpus directory for `corpus_sample.rs`, and running
//! the binary (`cli`).

// Each test crate uses part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod cli;
pub mod git;
pub mod random_crd;

/// The shared truth directory (`../shared` beside the checkout, or `CRD_TOOLKIT_SHARED`).
pub fn shared() -> PathBuf {
    match std::env::var_os("CRD_TOOLKIT_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The text of a golden source: `bundled` (the CronTab CRD), `fixtures/...` under this
/// crate's `tests/`, or a path under the shared corpus.
pub fn source_text(src: &str) -> String {
    if src == "bundled" {
        return crd_gen::BUNDLED_CRONTAB.to_string();
    }
    let path = match src.strip_prefix("fixtures/") {
        Some(_) => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(src),
        None => shared().join("corpus/crds").join(src),
    };
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
