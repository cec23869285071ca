//! Compile test, clippy check and round trip over a sample of the real-world corpus:
//! the two smallest CRDs (under 200 kB) of every project, compiled in a scratch
//! workspace against this workspace's crates through `clippy-driver` (one build gives
//! both the binaries and the lints; any warning in a generated module fails, as
//! `-D warnings` would), their derived CRDs compared with the sources. Random schemas
//! from a fixed seed ([`common::random_crd`]) go through the same build, for the
//! shapes and names no corpus CRD has. The whole corpus:
//! `cargo run --release -p crd-gen -- roundtrip [--clippy] ../shared/corpus/crds`.

use std::collections::BTreeMap;

use crd_gen::roundtrip::{self, Outcome, Source};

mod common;

/// `(project, path)` of the sample, from the corpus `index.tsv`.
fn sample() -> Vec<(String, String)> {
    let index = std::fs::read_to_string(common::shared().join("corpus/crds/index.tsv")).unwrap();
    let mut by_project: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let bytes: u64 = cols[5].parse().unwrap();
        if bytes < 200_000 {
            by_project
                .entry(cols[1].to_string())
                .or_default()
                .push((bytes, cols[0].to_string()));
        }
    }
    let mut out = Vec::new();
    for (project, mut files) in by_project {
        files.sort();
        out.extend(files.into_iter().take(2).map(|(_, p)| (project.clone(), p)));
    }
    out
}

/// How many random CRDs join the sample.
const RANDOM_CRDS: usize = 48;

/// Both tests build in the same scratch workspace (its dependencies are built once),
/// one after the other.
static SCRATCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Corpus and random sources of the sample.
fn sources(sample: &[(String, String)]) -> Vec<Source> {
    let mut sources = Vec::new();
    for (_, path) in sample {
        let full = common::shared().join("corpus/crds").join(path);
        let bytes = std::fs::read(&full).unwrap();
        for crd in crd_gen::load_input(path, &bytes).unwrap() {
            sources.push(Source {
                file: path.clone(),
                crd,
            });
        }
    }
    for crd in common::random_crd::fixed_sample(RANDOM_CRDS) {
        sources.push(Source {
            file: "random".into(),
            crd,
        });
    }
    sources
}

/// Every outcome that is not `Identical`, one report each.
fn failures(results: &[(String, Outcome)]) -> Vec<String> {
    results
        .iter()
        .filter(|(_, o)| *o != Outcome::Identical)
        .map(|(name, o)| match o {
            Outcome::Warnings(w) => format!("{name}:\n{}", w.join("\n")),
            _ => roundtrip::report_line(name, o, 5),
        })
        .collect()
}

fn scratch() -> roundtrip::scratch::Scratch {
    let workspace = roundtrip::scratch::default_workspace();
    let mut scratch = roundtrip::scratch::Scratch::new(&workspace, "crd-gen-sample");
    scratch.clippy = true;
    scratch
}

/// `--derive Default,Eq,Hash,PartialOrd,Ord --map-type hash`: each type takes the
/// derives its fields allow (no `Eq` over `f64`, no `Hash` over `HashMap`, only
/// `Default` on roots), so every module still compiles without warnings and derives
/// the source CRD.
#[test]
fn extra_derives_and_hash_maps_compile_and_round_trip() {
    let sources = sources(&sample()[..10]);
    let mut config = crd_gen::Config::new();
    config
        .derives(&["Default", "Eq", "::std::hash::Hash", "PartialOrd", "Ord"])
        .map_type(crd_gen::codegen::MapType::HashMap);
    let _guard = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let results = roundtrip::roundtrip_with(&sources, &scratch(), &config).unwrap();
    let failures = failures(&results);
    assert!(
        failures.is_empty(),
        "{} of {} CRDs do not round-trip with extra derives:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}

/// `--k8s-types`: corpus CRDs whose nodes are k8s-openapi types (conditions,
/// selectors, affinities, resources, tolerations, secret references, owner
/// references) compile against k8s-openapi without warnings and derive the source
/// CRDs, descriptions included.
#[test]
fn k8s_types_compile_and_round_trip() {
    let paths = [
        "grafana-operator/grafanamanifests.grafana.integreatly.org.yaml",
        "rook/cephcosidrivers.ceph.rook.io.yaml",
        "kyverno/ephemeralreports.reports.kyverno.io.yaml",
        "flux-source-controller/helmrepositories.source.toolkit.fluxcd.io.yaml",
        "velero/backupstoragelocations.velero.io.yaml",
    ];
    let sample: Vec<(String, String)> = paths
        .iter()
        .map(|p| (String::new(), p.to_string()))
        .collect();
    let sources: Vec<Source> = sources(&sample)
        .into_iter()
        .filter(|s| s.file != "random")
        .collect();
    let mut config = crd_gen::Config::new();
    config.k8s_types(true);
    let crds: Vec<_> = sources.iter().map(|s| s.crd.clone()).collect();
    let mut reused = std::collections::BTreeSet::new();
    for file in config.generate_files(&crds).unwrap() {
        for part in file.contents.split("::k8s_openapi::").skip(1) {
            let end = part
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(part.len());
            reused.insert(part[..end].to_string());
        }
    }
    assert!(
        reused.len() >= 12 && reused.iter().any(|t| t.ends_with("meta::v1::Condition")),
        "too few k8s-openapi types reused: {reused:?}"
    );
    let _guard = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let results = roundtrip::roundtrip_with(&sources, &scratch(), &config).unwrap();
    let failures = failures(&results);
    assert!(
        failures.is_empty(),
        "{} of {} CRDs do not round-trip with k8s-openapi types:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_sample_compiles_and_round_trips() {
    let sample = sample();
    let projects: std::collections::BTreeSet<&str> =
        sample.iter().map(|(p, _)| p.as_str()).collect();
    assert!(
        sample.len() >= 40 && projects.len() >= 15,
        "sample too small"
    );
    let sources = sources(&sample);
    let _guard = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let results = roundtrip::roundtrip_in(&sources, &scratch()).unwrap();
    let failures = failures(&results);
    assert!(
        failures.is_empty(),
        "{} of {} sample CRDs (corpus, then random) do not round-trip:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}
