//! `CronTab::crd()` is the CronTab CRD of the Kubernetes docs
//! (`shared/fixtures/crontab/crd-full.yaml`), up to descriptions added from doc comments.

use crd_runtime::model::{CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray};
use crd_runtime::{CustomResourceExt, load_crds};
use crd_toolkit_examples::crontab::CronTab;

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
    let out = std::process::Command::new(env!("CARGO"))
        .args(["run", "-q", "--offline", "--example", "crontab"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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
