//! The shared test CRD (`crd_toolkit_tests::test_crd`): the YAML and JSON forms are
//! the same CRD, and schemas land where they belong.

use crd_toolkit_tests::test_crd::{TestCrd, crd_yaml};

#[test]
fn yaml_places_flow_and_block_schemas() {
    let flow = crd_yaml("stable.example.com", "CronTab", "{type: object}");
    assert_eq!(
        flow,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {name: crontabs.stable.example.com}\nspec:\n  group: stable.example.com\n  \
         scope: Namespaced\n  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList}\n  \
         versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      \
         openAPIV3Schema:\n        {type: object}\n"
    );
    assert_eq!(flow.lines().nth(13), Some("        {type: object}"));
    let block = TestCrd::new("example.com", "Widget")
        .version_field("selectableFields: [{jsonPath: .spec.color}]")
        .yaml("\n    type: object\n    properties:\n\n      a: {type: string}\n");
    assert!(
        block.ends_with(
            "    storage: true\n    selectableFields: [{jsonPath: .spec.color}]\n    schema:\n      \
             openAPIV3Schema:\n        type: object\n        properties:\n\n          a: {type: string}\n"
        ),
        "{block}"
    );
}

#[test]
fn json_is_the_same_crd() {
    let crd = TestCrd::new("example.com", "Tree");
    let json: serde_json::Value =
        serde_json::from_str(&crd.json(r#"{"type":"object"}"#)).expect("JSON");
    assert_eq!(json["metadata"]["name"], "trees.example.com");
    assert_eq!(json["spec"]["names"]["listKind"], "TreeList");
    let from_yaml = crd_runtime::load_crds("t.yaml", &crd.yaml(r#"{"type":"object"}"#))
        .expect("YAML")
        .crds
        .remove(0)
        .crd;
    let from_json = crd_runtime::load_crds("t.json", &crd.json(r#"{"type":"object"}"#))
        .expect("JSON")
        .crds
        .remove(0)
        .crd;
    assert_eq!(from_yaml, from_json);
}
