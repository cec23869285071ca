//! The golden Rust files compile, and the CRDs their types derive equal the source
//! CRDs (semantically, as `crd-gen roundtrip` compares them).
#![allow(dead_code)]

use std::path::Path;

use crd_gen::roundtrip::{Outcome, compare};
use crd_runtime::{CustomResourceExt, merge_versions};

mod common;

#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/absent_items.rs"]
mod absent_items;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/crontab.rs"]
mod crontab;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/hostile_text.rs"]
mod hostile_text;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/iamroleselectors_aws.rs"]
mod iamroleselectors_aws;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/multiversions.rs"]
mod multiversions;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/prometheusrules.rs"]
mod prometheusrules;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/proxyconfigs_istio.rs"]
mod proxyconfigs_istio;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/servers_linkerd.rs"]
mod servers_linkerd;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/shadow_option.rs"]
mod shadow_option;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/odd_shapes.rs"]
mod odd_shapes;
#[rustfmt::skip] // golden files are prettyplease output, byte for byte
#[path = "golden/shadow_value.rs"]
mod shadow_value;

fn source(src: &str) -> crd_runtime::CustomResourceDefinition {
    crd_gen::load_input(src, common::source_text(src).as_bytes())
        .unwrap()
        .remove(0)
}

#[test]
fn golden_types_derive_the_source_crds() {
    let produced = [
        (
            "bundled",
            merge_versions(&[<crontab::v1::CronTab as CustomResourceExt>::crd()]),
        ),
        (
            "kopium-tests/servers.policy.linkerd.io.yaml",
            merge_versions(&[
                <servers_linkerd::v1alpha1::Server as CustomResourceExt>::crd(),
                <servers_linkerd::v1beta1::Server as CustomResourceExt>::crd(),
            ]),
        ),
        (
            "istio/proxyconfigs.networking.istio.io.yaml",
            merge_versions(&[
                <proxyconfigs_istio::v1beta1::ProxyConfig as CustomResourceExt>::crd(),
            ]),
        ),
        (
            "kopium-tests/multiversions.clux.dev.yaml",
            merge_versions(&[
                <multiversions::v1::MultiVersion as CustomResourceExt>::crd(),
                <multiversions::v2alpha1::MultiVersion as CustomResourceExt>::crd(),
            ]),
        ),
        (
            "aws-s3-controller/iamroleselectors.services.k8s.aws.yaml",
            merge_versions(&[
                <iamroleselectors_aws::v1alpha1::IamRoleSelector as CustomResourceExt>::crd(),
            ]),
        ),
        (
            "prometheus-operator/prometheusrules.monitoring.coreos.com.yaml",
            merge_versions(&[<prometheusrules::v1::PrometheusRule as CustomResourceExt>::crd()]),
        ),
        (
            "fixtures/shadow-value.yaml",
            merge_versions(&[<shadow_value::v1::Value as CustomResourceExt>::crd()]),
        ),
        (
            "fixtures/shadow-option.yaml",
            merge_versions(&[<shadow_option::v1::Option as CustomResourceExt>::crd()]),
        ),
        (
            "fixtures/absent-items.yaml",
            merge_versions(&[<absent_items::v1::Thing as CustomResourceExt>::crd()]),
        ),
        (
            "fixtures/hostile-text.yaml",
            merge_versions(&[<hostile_text::v1::Hostile as CustomResourceExt>::crd()]),
        ),
        (
            "fixtures/odd-shapes.yaml",
            merge_versions(&[
                <odd_shapes::v1alpha1::Oddity as CustomResourceExt>::crd(),
                <odd_shapes::v1::Oddity as CustomResourceExt>::crd(),
                <odd_shapes::stable::Oddity as CustomResourceExt>::crd(),
            ]),
        ),
    ];
    let mut failures = Vec::new();
    for (src, crd) in produced {
        let crd = crd.unwrap_or_else(|e| panic!("{src}: {e}"));
        let actual = serde_json::to_value(&crd).unwrap();
        match compare(&source(src), &actual) {
            Outcome::Identical => {}
            other => failures.push(format!("{src}: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_golden_file_is_compiled_here() {
    let this = include_str!("golden_compile.rs");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        // Code naming k8s-openapi types needs it with a version feature, which this
        // crate's tests leave out; corpus_sample.rs compiles the same CRDs with it.
        if name.starts_with("k8s_types_") {
            continue;
        }
        assert!(
            this.contains(&format!("#[path = \"golden/{name}\"]")),
            "tests/golden/{name} is not compiled by golden_compile.rs"
        );
    }
}

/// A `spec` that is a list is a newtype that holds it, both ways.
#[test]
fn a_list_spec_holds_its_data() {
    let value = serde_json::json!({
        "apiVersion": "odd.example.com/v1alpha1",
        "kind": "Oddity",
        "metadata": {"name": "hosts"},
        "spec": ["a.example.com", "b.example.com"]
    });
    let oddity: odd_shapes::v1alpha1::Oddity = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(oddity.spec.0, ["a.example.com", "b.example.com"]);
    assert_eq!(serde_json::to_value(&oddity).unwrap(), value);
}

/// Generated types carry the derive's apply configurations: only what is set is sent,
/// under the CRD's property names, with the resource's identity.
#[test]
fn generated_types_have_apply_configurations() {
    use crontab::v1::{CronTab, CronTabSpecApply, CronTabStatusApply};
    let apply = CronTab::apply("daily")
        .with_namespace("jobs")
        .with_spec(CronTabSpecApply::default().with_cron_spec("*/5 * * * *"));
    assert_eq!(
        serde_json::to_value(&apply).unwrap(),
        serde_json::json!({
            "apiVersion": "stable.example.com/v1",
            "kind": "CronTab",
            "metadata": {"name": "daily", "namespace": "jobs"},
            "spec": {"cronSpec": "*/5 * * * *"}
        })
    );
    let status = CronTab::apply("daily")
        .with_status(CronTabStatusApply::default().with_label_selector("app=cron"));
    assert_eq!(
        serde_json::to_value(&status).unwrap()["status"],
        serde_json::json!({"labelSelector": "app=cron"})
    );
}
