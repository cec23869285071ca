//! `CronTab::crd()` is the CronTab CRD of the Kubernetes docs
//! (`shared/fixtures/crontab/crd-full.yaml`), up to descriptions added from doc comments.

use crd_runtime::model::{CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray};
use crd_runtime::{CustomResourceExt, load_crds};
use crd_toolkit_examples::crontab::CronTab;

mod support;

fn fixture() -> CustomResourceDefinition {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/crontab/crd-full.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load_crds(path, &text).unwrap().crds.remove(0).crd
}

/// Removes every description the fixture does not have (the derive adds them from docs).
fn drop_added_descriptions(ours: &mut JSONSchemaProps, theirs: &JSONSchemaProps) {
    if theirs.description.is_none() {
        ours.description = None;
    }
    for (name, t) in theirs.properties.iter().flatten() {
        if let Some(o) = ours.properties.as_mut().and_then(|p| p.get_mut(name)) {
            drop_added_descriptions(o, t);
        }
    }
    if let (Some(JSONSchemaPropsOrArray::Schema(o)), Some(t)) =
        (ours.items.as_deref_mut(), theirs.items_schema())
    {
        drop_added_descriptions(o, t);
    }
}

#[test]
fn crontab_crd_matches_the_kubernetes_docs() {
    let want = fixture();
    let mut got = CronTab::crd();
    // Through YAML, as `kubectl apply` would see it.
    let yaml = CronTab::crd_yaml().unwrap();
    let reparsed = load_crds("generated", &yaml).unwrap().crds.remove(0).crd;
    assert_eq!(reparsed, got, "YAML output does not round-trip");

    let want_schema = want.spec.versions[0].open_api_schema().unwrap().clone();
    let got_schema = got.spec.versions[0]
        .schema
        .as_mut()
        .and_then(|s| s.open_api_v3_schema.as_mut())
        .unwrap();
    drop_added_descriptions(got_schema, &want_schema);
    if got != want {
        panic!(
            "derived CRD differs from crd-full.yaml\n--- derived (descriptions stripped)\n{}\n--- fixture\n{}",
            crd_runtime::to_yaml(&got).unwrap(),
            crd_runtime::to_yaml(&want).unwrap()
        );
    }
}

#[test]
fn example_binary_prints_the_crd() {
    let out = std::process::Command::new(support::example_binary("crontab"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        CronTab::crd_yaml().unwrap()
    );
}

#[test]
fn derived_crd_passes_the_api_server_checks() {
    crd_runtime::assert_valid_crd(&CronTab::crd());
}

/// `obj.admit()` on the typed object equals the dynamic engine on the fixture CRD.
#[test]
fn admit_matches_the_dynamic_path() {
    use crd_toolkit_examples::crontab::CronTabSpec;
    let engine = crd_runtime::Engine::for_crd(&fixture(), "v1").unwrap();
    let spec: CronTabSpec =
        serde_json::from_value(serde_json::json!({"cronSpec": "*/5 * * * *", "replicas": 3}))
            .unwrap();
    let mut typed = CronTab::new("ct", spec);
    let mut dynamic = serde_json::to_value(&typed).unwrap();
    engine.admit(&mut dynamic).unwrap();
    typed.admit().unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), dynamic);

    // Defaults from the schema: an object with an empty spec gets both.
    let mut empty: CronTab = serde_json::from_value(serde_json::json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "e"}, "spec": {"cronSpec": "* * * * *", "replicas": 1}
    }))
    .unwrap();
    empty.spec.replicas = 11;
    let errs = empty.validate();
    let mut dyn_value = serde_json::to_value(&empty).unwrap();
    assert_eq!(errs, engine.validate(&dyn_value));
    assert_eq!(
        errs.strings(),
        [
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"
        ]
    );
    assert!(empty.admit().is_err());
    assert!(engine.admit(&mut dyn_value).is_err());
}

/// The committed manifest `examples/crds.yaml` is what the code generates
/// (rewrite with `UPDATE_GOLDEN=1`).
#[test]
fn committed_manifest_is_up_to_date() {
    crd_runtime::Manifest::new()
        .crd(CronTab::crd())
        .assert_file_matches(concat!(env!("CARGO_MANIFEST_DIR"), "/crds.yaml"));
}

/// The derived CRD breaks nothing stored or served under the last release's YAML
/// (`examples/releases/0.1.0`): what `crd-gen diff` calls breaking fails this test.
#[test]
fn derived_crd_is_compatible_with_the_last_release() {
    crd_runtime::Manifest::new()
        .crd(CronTab::crd())
        .assert_compatible_with(concat!(env!("CARGO_MANIFEST_DIR"), "/releases/0.1.0"));
}
