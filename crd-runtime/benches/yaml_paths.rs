//! The YAML fast paths of `crd_runtime::load` against serde-saphyr alone (issue 42).
//!
//! `cargo bench -p crd-runtime --features fuzzing --bench yaml_paths`. Input: every
//! file of the real-world corpus (`../shared/corpus/crds`, 306 CRDs, ~31 MB of YAML),
//! read once; each measurement reads all of them. `load_crds` is what `crd-gen check`
//! and `generate` call (tapes, then the fast value readers, then serde-saphyr);
//! `saphyr_then_type` is the same result with serde-saphyr as the only reader.
//! `values_*` build JSON values only: `parse_documents` (the text reader, then
//! serde-saphyr for what it declines), serde-saphyr alone. `main` first prints how
//! many files the text reader takes.

use std::path::{Path, PathBuf};

use crd_runtime::load::{self, fuzzing};
use divan::counter::BytesCount;
use divan::{Bencher, black_box};

fn main() {
    let files = corpus();
    let scanned = files
        .iter()
        .filter(|(_, t)| fuzzing::scan(t).is_some())
        .count();
    let tapes = files
        .iter()
        .filter(|(_, t)| fuzzing::crds_from_tapes(t).is_some())
        .count();
    eprintln!(
        "{} files: {scanned} read from text, {} left to serde-saphyr; {tapes} typed from tapes",
        files.len(),
        files.len() - scanned
    );
    divan::main();
}

fn corpus() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/crds");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.display().to_string(), text)
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

fn total(files: &[(String, String)]) -> BytesCount {
    BytesCount::new(files.iter().map(|(_, t)| t.len()).sum::<usize>())
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn load_crds(b: Bencher) {
    let files = corpus();
    b.counter(total(&files)).bench(|| {
        for (name, text) in &files {
            black_box(load::load_crds(name, text).unwrap());
        }
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn saphyr_then_type(b: Bencher) {
    let files = corpus();
    b.counter(total(&files)).bench(|| {
        for (name, text) in &files {
            let docs = fuzzing::saphyr(text).unwrap();
            black_box(load::crds_from_documents(name, docs).unwrap());
        }
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn values_fast(b: Bencher) {
    let files = corpus();
    b.counter(total(&files)).bench(|| {
        for (name, text) in &files {
            black_box(load::parse_documents(name, text).unwrap());
        }
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn values_saphyr(b: Bencher) {
    let files = corpus();
    b.counter(total(&files)).bench(|| {
        for (_, text) in &files {
            black_box(fuzzing::saphyr(text).unwrap());
        }
    });
}
