//! Maps, nulls, map directives and errors, after apimachinery's `strategicpatch` test
//! cases, re-expressed on the built-in kinds' real patch metadata.

use serde_json::{Value, json};

use super::*;

pub(super) const POD: &str = "io.k8s.api.core.v1.Pod";
const CONFIG_MAP: &str = "io.k8s.api.core.v1.ConfigMap";
const DEPLOYMENT: &str = "io.k8s.api.apps.v1.Deployment";

/// `patch` applied to `original` as the server applies it.
pub(super) fn smp(definition: &str, original: Value, patch: Value) -> Result<Value, ApiError> {
    apply(&original, patch.as_object().unwrap().clone(), definition)
}

/// The error's code and message.
pub(super) fn smp_err(definition: &str, original: Value, patch: Value) -> (u16, String) {
    let e = smp(definition, original, patch).unwrap_err();
    (e.code.as_u16(), e.message)
}

#[test]
fn maps_merge_recursively_and_null_deletes() {
    let cm = json!({"metadata": {"name": "c", "labels": {"a": "1"}}, "data": {"a": "1", "b": "2"}});
    let out = smp(
        CONFIG_MAP,
        cm,
        json!({"metadata": {"labels": {"b": "2"}}, "data": {"b": null, "c": "3"}}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"metadata": {"name": "c", "labels": {"a": "1", "b": "2"}}, "data": {"a": "1", "c": "3"}})
    );
}

#[test]
fn nulls_of_absent_keys_are_dropped() {
    let out = smp(
        CONFIG_MAP,
        json!({"metadata": {"name": "c"}}),
        json!({"data": null, "metadata": {"labels": {"x": null, "y": "1"}}}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"metadata": {"name": "c", "labels": {"y": "1"}}})
    );
}

#[test]
fn a_value_of_another_type_replaces() {
    let out = smp(
        CONFIG_MAP,
        json!({"data": {"a": "1"}, "immutable": false}),
        json!({"data": "text", "immutable": {"x": null, "y": 1}}),
    )
    .unwrap();
    assert_eq!(out, json!({"data": "text", "immutable": {"y": 1}}));
}

#[test]
fn patch_replace_in_a_map_takes_the_map_as_it_is() {
    let out = smp(
        CONFIG_MAP,
        json!({"metadata": {"labels": {"a": "1", "b": "2"}}}),
        json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}}}),
    )
    .unwrap();
    assert_eq!(out, json!({"metadata": {"labels": {"c": "3"}}}));
}

#[test]
fn patch_delete_in_a_map_empties_it_or_adds_nothing() {
    let out = smp(
        CONFIG_MAP,
        json!({"metadata": {"labels": {"a": "1"}}, "data": {"k": "v"}}),
        json!({"metadata": {"labels": {"$patch": "delete"}, "annotations": {"$patch": "delete"}}}),
    )
    .unwrap();
    assert_eq!(out, json!({"metadata": {"labels": {}}, "data": {"k": "v"}}));
}

#[test]
fn an_unknown_map_directive_is_an_error() {
    let (code, message) = smp_err(
        CONFIG_MAP,
        json!({"data": {"a": "1"}}),
        json!({"data": {"$patch": "merge", "b": "2"}}),
    );
    assert_eq!(code, 500);
    assert_eq!(
        message,
        "unknown patch type: merge in map: map[$patch:merge b:2]"
    );
}

#[test]
fn retain_keys_clears_what_it_does_not_list() {
    // A Deployment's strategy (`+patchStrategy=retainKeys`): switching to Recreate drops
    // rollingUpdate, as kubectl apply asks with `$retainKeys`.
    let deploy =
        json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}});
    let out = smp(
        DEPLOYMENT,
        deploy.clone(),
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
    )
    .unwrap();
    assert_eq!(out, json!({"spec": {"strategy": {"type": "Recreate"}}}));
    // Without the directive the map merges.
    let out = smp(
        DEPLOYMENT,
        deploy,
        json!({"spec": {"strategy": {"rollingUpdate": {"maxUnavailable": 0}}}}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}})
    );
}

#[test]
fn retain_keys_must_list_every_key_the_patch_sets() {
    let deploy = json!({"spec": {"strategy": {"type": "RollingUpdate"}}});
    for patch in [
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": {}}}}),
        json!({"spec": {"strategy": {"$retainKeys": "type", "type": "Recreate"}}}),
    ] {
        let (code, message) = smp_err(DEPLOYMENT, deploy.clone(), patch);
        assert_eq!(
            (code, message.as_str()),
            (400, "invalid patch format of retainKeys")
        );
    }
    // Nulls and parallel lists need not be listed.
    let out = smp(
        DEPLOYMENT,
        deploy,
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": null}}}),
    )
    .unwrap();
    assert_eq!(out, json!({"spec": {"strategy": {"type": "Recreate"}}}));
}

#[test]
fn a_replace_strategy_field_is_replaced_whole() {
    // PodDisruptionBudget's selector is `+patchStrategy=replace`.
    let pdb = json!({"spec": {"selector": {"matchLabels": {"app": "a"}}}});
    let out = smp(
        "io.k8s.api.policy.v1.PodDisruptionBudget",
        pdb.clone(),
        json!({"spec": {"selector": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"spec": {"selector": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}}})
    );
    // The same patch on a Deployment's selector (no strategy) merges.
    let out = smp(
        DEPLOYMENT,
        pdb,
        json!({"spec": {"selector": {"matchExpressions": []}}}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"spec": {"selector": {"matchLabels": {"app": "a"}, "matchExpressions": []}}})
    );
}

#[test]
fn fields_the_type_lacks_cannot_be_merged_into() {
    let (code, message) = smp_err(
        POD,
        json!({"spec": {"extra": {"a": 1}}}),
        json!({"spec": {"extra": {"b": 2}}}),
    );
    assert_eq!(code, 500);
    assert_eq!(
        message,
        "unable to find api field in struct PodSpec for the json field \"extra\""
    );
    // A field the patch adds needs no lookup: decoding reports it later.
    let out = smp(
        POD,
        json!({"spec": {}}),
        json!({"spec": {"extra": {"b": 2}}}),
    )
    .unwrap();
    assert_eq!(out, json!({"spec": {"extra": {"b": 2}}}));
}

#[test]
fn raw_extensions_merge_one_level_only() {
    // ControllerRevision.data is a RawExtension: a Go struct without JSON fields.
    const REVISION: &str = "io.k8s.api.apps.v1.ControllerRevision";
    let rev = json!({"data": {"spec": {"replicas": 1}}, "revision": 1});
    let out = smp(REVISION, rev.clone(), json!({"data": {"status": {}}})).unwrap();
    assert_eq!(out["data"], json!({"spec": {"replicas": 1}, "status": {}}));
    let (code, message) = smp_err(REVISION, rev, json!({"data": {"spec": {"replicas": 2}}}));
    assert_eq!(code, 500);
    assert_eq!(
        message,
        "unable to find api field in struct RawExtension for the json field \"spec\""
    );
}

#[test]
fn the_body_must_be_a_json_object() {
    assert_eq!(parse(b"null").unwrap(), Map::new());
    let e = parse(b"{\"a\":").unwrap_err();
    assert_eq!(
        (e.code.as_u16(), e.message.as_str()),
        (400, "invalid JSON patch")
    );
    let e = parse(b"[1]").unwrap_err();
    assert_eq!(
        e.message,
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
}

#[test]
fn every_root_definition_has_metadata() {
    // Create-only kinds (the self reviews) take no patch.
    let patched = crate::api::kinds::builtin::catalog().filter(|s| s.verbs.contains(&"patch"));
    for spec in patched {
        assert!(
            has_definition(spec.definition),
            "{} has no patch metadata: add it to ROOTS in tests/patch_meta_data.rs and \
             regenerate with UPDATE_GOLDEN=1",
            spec.definition
        );
    }
    assert!(has_definition("io.k8s.api.core.v1.Namespace"));
    let scale = json!({"spec": {"replicas": 1}, "status": {"replicas": 1}});
    let out = smp(SCALE, scale, json!({"spec": {"replicas": 3}})).unwrap();
    assert_eq!(
        out,
        json!({"spec": {"replicas": 3}, "status": {"replicas": 1}})
    );
    assert_eq!(
        field_tags(OBJECT_META, "ownerReferences"),
        Some(("merge", "uid"))
    );
    assert_eq!(field_tags(OBJECT_META, "finalizers"), Some(("merge", "")));
    assert_eq!(
        field_tags("io.k8s.api.core.v1.PodSpec", "volumes"),
        Some(("merge,retainKeys", "name"))
    );
}

#[test]
fn openapi_schemas_carry_the_patch_extensions() {
    let mut schema = json!({"properties": {
        "metadata": {"properties": {"finalizers": {"type": "array"}}},
        "spec": {"properties": {"template": {"properties": {"spec": {"properties": {
            "containers": {"type": "array", "items": {"properties": {"env": {"type": "array"}}}}}}}}}}}});
    annotate_openapi(&mut schema, DEPLOYMENT);
    let containers = &schema["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
        ["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
    assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
    let env = &containers["items"]["properties"]["env"];
    assert_eq!(env["x-kubernetes-patch-merge-key"], "name");
    let finalizers = &schema["properties"]["metadata"]["properties"]["finalizers"];
    assert_eq!(finalizers["x-kubernetes-patch-strategy"], "merge");
    assert!(finalizers.get("x-kubernetes-patch-merge-key").is_none());
}
