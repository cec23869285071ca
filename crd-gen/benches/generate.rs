//! Where `crd-gen generate` spends its time, phase by phase, on the whole corpus.
//!
//! `cargo bench -p crd-gen --bench generate`. Inputs: every manifest under
//! `../shared/corpus/crds` (306 CRDs, 31 MB of YAML). The phases run on one thread so
//! their numbers are CPU costs that add up; `end_to_end` is the CLI's parallel
//! pipeline (read, load, generate, format) without the file writes.

use std::path::PathBuf;

use crd_gen::codegen::{self, GeneratedCrd, Options};
use crd_runtime::CustomResourceDefinition;
use divan::counter::BytesCount;
use divan::{Bencher, black_box};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/crds")
}

/// `(name, bytes)` of every corpus manifest, sorted by path.
fn corpus() -> Vec<(String, Vec<u8>)> {
    crd_gen::walk::manifests(&corpus_dir())
        .expect("corpus directory")
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).expect("read")))
        .collect()
}

fn total_bytes(files: &[(String, Vec<u8>)]) -> BytesCount {
    BytesCount::new(files.iter().map(|(_, b)| b.len()).sum::<usize>())
}

fn load_all(files: &[(String, Vec<u8>)]) -> Vec<CustomResourceDefinition> {
    files
        .iter()
        .flat_map(|(name, bytes)| crd_gen::load_input(name, bytes).expect("corpus CRD loads"))
        .collect()
}

/// Lowering and emission, with the schemas moved in as the CLI does.
fn lower_and_emit(crds: Vec<CustomResourceDefinition>) -> Vec<GeneratedCrd> {
    let opts = Options::default();
    crds.into_iter()
        .enumerate()
        .filter_map(|(i, crd)| {
            codegen::generate_crd_owned(crd, format!("m{i}"), &opts).expect("corpus CRD generates")
        })
        .collect()
}

/// YAML text → `serde_json::Value` documents.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn parse_yaml(bencher: Bencher) {
    let files = corpus();
    bencher.counter(total_bytes(&files)).bench(|| {
        for (name, bytes) in &files {
            black_box(crd_runtime::load::parse_documents_bytes(name, bytes).expect("YAML"));
        }
    });
}

/// YAML text → typed CRDs (parsing included).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn load(bencher: Bencher) {
    let files = corpus();
    bencher
        .counter(total_bytes(&files))
        .bench(|| black_box(load_all(&files)));
}

/// Typed CRDs → token streams (type space, naming, `quote!`); the copies the
/// schemas are moved out of are made outside the timing.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn generate(bencher: Bencher) {
    let files = corpus();
    let crds = load_all(&files);
    bencher
        .counter(total_bytes(&files))
        .with_inputs(|| crds.clone())
        .bench_local_values(|crds| black_box(lower_and_emit(crds)));
}

/// Token streams → formatted files (syn + prettyplease).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn format(bencher: Bencher) {
    let files = corpus();
    let generated = lower_and_emit(load_all(&files));
    // Syntax trees are not `Sync`: run on this thread; the copies consumed are made
    // outside the timing.
    bencher
        .counter(total_bytes(&files))
        .with_inputs(|| generated.clone())
        .bench_local_values(|generated| {
            for g in generated {
                black_box(g.into_file().expect("formats"));
            }
        });
}

/// The CLI's pipeline on all cores (`Config::generate_inputs`), minus writing the
/// files.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn end_to_end(bencher: Bencher) {
    let files = corpus();
    let config = crd_gen::Config::new();
    bencher
        .counter(total_bytes(&files))
        .bench(|| black_box(config.generate_inputs(&files).expect("corpus generates")));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn raw_events(bencher: Bencher) {
    let files = corpus();
    bencher.counter(total_bytes(&files)).bench(|| {
        let mut n = 0usize;
        for (_, bytes) in &files {
            let text = std::str::from_utf8(bytes).unwrap();
            for ev in granit_parser::Parser::new_from_str(text) {
                black_box(ev.unwrap());
                n += 1;
            }
        }
        n
    });
}

/// A reference, not a step of the generator: parsing each version module's items back
/// from tokens, which `format` did before emission built syntax trees directly.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn reference_syn_reparse(bencher: Bencher) {
    let files = corpus();
    // The items printed as tokens, as emission produced them before syntax trees.
    let tokens: Vec<proc_macro2::TokenStream> = lower_and_emit(load_all(&files))
        .iter()
        .flat_map(|g| &g.versions)
        .map(|v| {
            let items = &v.items;
            quote::quote!(#(#items)*)
        })
        .collect();
    bencher.counter(total_bytes(&files)).bench_local(|| {
        for t in &tokens {
            black_box(syn::parse2::<syn::File>(t.clone()).expect("parses"));
        }
    });
}

/// `format` without the module wrappers and header: prettyplease on each version
/// module's items.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn format_prettyplease_only(bencher: Bencher) {
    let files = corpus();
    let parsed: Vec<syn::File> = lower_and_emit(load_all(&files))
        .iter()
        .flat_map(|g| &g.versions)
        .map(|v| syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: v.items.clone(),
        })
        .collect();
    bencher.counter(total_bytes(&files)).bench_local(|| {
        for file in &parsed {
            black_box(prettyplease::unparse(file));
        }
    });
}
