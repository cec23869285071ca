//! Golden tests: the Rust generated for a handful of CRDs, byte for byte.
//!
//! `UPDATE_GOLDEN=1 cargo test -p crd-gen --test golden` rewrites the expected
//! files. The same files are compiled (and their CRDs compared with the sources) by
//! `tests/golden_compile.rs`.

use std::path::Path;

mod common;

/// (golden file stem, CRD source: `bundled`, `fixtures/...` under this crate's
/// `tests/`, or a path under the shared corpus).
pub const GOLDEN: &[(&str, &str)] = &[
    ("crontab", "bundled"),
    (
        "servers_linkerd",
        "kopium-tests/servers.policy.linkerd.io.yaml",
    ),
    (
        "proxyconfigs_istio",
        "istio/proxyconfigs.networking.istio.io.yaml",
    ),
    ("multiversions", "kopium-tests/multiversions.clux.dev.yaml"),
    (
        "iamroleselectors_aws",
        "aws-s3-controller/iamroleselectors.services.k8s.aws.yaml",
    ),
    (
        "prometheusrules",
        "prometheus-operator/prometheusrules.monitoring.coreos.com.yaml",
    ),
    ("shadow_value", "fixtures/shadow-value.yaml"),
    ("shadow_option", "fixtures/shadow-option.yaml"),
    ("absent_items", "fixtures/absent-items.yaml"),
    ("hostile_text", "fixtures/hostile-text.yaml"),
    ("odd_shapes", "fixtures/odd-shapes.yaml"),
];

/// Golden files generated with `--k8s-types` (compiled and round-tripped by
/// `tests/corpus_sample.rs`, which builds against k8s-openapi).
pub const GOLDEN_K8S: &[(&str, &str)] = &[(
    "k8s_types_grafanamanifests",
    "grafana-operator/grafanamanifests.grafana.integreatly.org.yaml",
)];

fn generate(src: &str, k8s_types: bool) -> String {
    let crds = crd_gen::load_input(src, common::source_text(src).as_bytes()).unwrap();
    let mut config = crd_gen::Config::new();
    config.k8s_types(k8s_types);
    let generated = config.generate(&crds).unwrap();
    assert_eq!(generated.len(), 1, "{src}: one CRD expected");
    let from_trees = generated[0].to_file().unwrap();
    // `generate -o` and build scripts print without doc trees and splice the doc
    // comments in: the same bytes.
    let one_pass = config.generate_files(&crds).unwrap().remove(0).contents;
    assert_eq!(one_pass, from_trees, "{src}: the one-pass text differs");
    from_trees
}

#[test]
fn generated_rust_matches_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    let all = GOLDEN
        .iter()
        .map(|g| (g, false))
        .chain(GOLDEN_K8S.iter().map(|g| (g, true)));
    for ((stem, src), k8s_types) in all {
        let code = generate(src, k8s_types);
        // Same input, same bytes: run twice.
        assert_eq!(
            code,
            generate(src, k8s_types),
            "{src}: output is not deterministic"
        );
        let path = dir.join(format!("{stem}.rs"));
        if update {
            std::fs::write(&path, &code).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == code => {}
            Ok(_) => stale.push(format!("{} differs", path.display())),
            Err(e) => stale.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "golden files out of date (rerun with UPDATE_GOLDEN=1 and review the diff):\n{}",
        stale.join("\n")
    );
}
