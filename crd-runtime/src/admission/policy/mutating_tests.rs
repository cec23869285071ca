//! MutatingAdmissionPolicy tests: policies as JSON, messages as kube-apiserver's.

use serde_json::{Value, json};

use super::validating_tests::{constraints, deployment};
use super::*;
use crate::model::JSONSchemaProps;

fn policy(spec: Value) -> Value {
    let mut spec = spec;
    spec["matchConstraints"] = constraints();
    json!({"metadata": {"name": "m"}, "spec": spec})
}

fn binding(extra: Value) -> Value {
    let mut spec = json!({"policyName": "m"});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            spec[k] = v;
        }
    }
    json!({"metadata": {"name": "mb"}, "spec": spec})
}

fn schema() -> JSONSchemaProps {
    super::apply::tests::schema()
}

fn run(
    spec: Value,
    b: Value,
    a: &mut Attributes,
    params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
) -> Result<MutationOutcome, Denial> {
    let mp = MutatingPolicies::new(&[policy(spec)], &[b], KubeVersion::NEWEST);
    assert!(!mp.is_empty());
    let plan = mp.plan(a, None, &[]);
    mp.mutate(&plan, a, None, Some(&schema()), params)
}

fn none(_: &ParamQuery) -> Result<Vec<Value>, String> {
    Ok(Vec::new())
}

#[test]
fn apply_configuration_merges_into_the_object() {
    let mut a = deployment(1);
    let spec = json!({
        "variables": [{"name": "n", "expression": "object.spec.replicas + 2"}],
        "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}, spec: Object.spec{replicas: variables.n}}"}}]});
    let out = run(spec, binding(json!({})), &mut a, &none).unwrap();
    assert!(out.changed);
    let obj = a.object.unwrap();
    assert_eq!(obj["spec"]["replicas"], 3);
    assert_eq!(
        obj["metadata"]["labels"],
        json!({"app": "web", "mutated": "yes"})
    );
}

#[test]
fn json_patch_operations_apply_in_order() {
    let mut a = deployment(1);
    let spec = json!({"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[
        JSONPatch{op: 'replace', path: '/spec/replicas', value: 4},
        JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/team'), value: 'a'},
        JSONPatch{op: 'test', path: '/spec/replicas', value: 4}
    ]"}}]});
    let out = run(spec, binding(json!({})), &mut a, &none).unwrap();
    assert!(out.changed);
    let obj = a.object.unwrap();
    assert_eq!(obj["spec"]["replicas"], 4);
    assert_eq!(obj["metadata"]["labels"]["example.com/team"], "a");
    // A failed test leaves the object as it was, without an error.
    let mut b = deployment(1);
    let spec = json!({"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression":
        "[JSONPatch{op: 'test', path: '/spec/replicas', value: 9}, JSONPatch{op: 'remove', path: '/spec'}]"}}]});
    assert_eq!(
        run(spec, binding(json!({})), &mut b, &none),
        Ok(MutationOutcome::default())
    );
}

#[test]
fn errors_deny_with_the_failure_policy() {
    let mut a = deployment(1);
    let spec = json!({"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression":
        "[JSONPatch{op: 'replace', path: '/spec/nope/x', value: 1}]"}}]});
    let d = run(spec.clone(), binding(json!({})), &mut a, &none).unwrap_err();
    assert_eq!(d, Denial {
        message: "policy 'm' with binding 'mb' denied request: JSON Patch: replace operation does not apply: doc is missing path: /spec/nope/x: missing value".into(),
        reason: "Invalid".into(),
        code: 403,
    });
    let mut ignore = spec;
    ignore["failurePolicy"] = json!("Ignore");
    assert_eq!(
        run(ignore, binding(json!({})), &mut a, &none),
        Ok(MutationOutcome::default())
    );
    let spec = json!({"mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
        "Object{spec: Object.spec{args: ['x']}}"}}]});
    let d = run(spec, binding(json!({})), &mut a, &none).unwrap_err();
    assert_eq!(
        d.message,
        "policy 'm' with binding 'mb' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args"
    );
    let spec = json!({"mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "object.spec.nope"}}]});
    let d = run(spec, binding(json!({})), &mut a, &none).unwrap_err();
    assert_eq!(
        d.message,
        "policy 'm' with binding 'mb' denied request: expression 'object.spec.nope' resulted in error: no such key: nope"
    );
    let spec = json!({"mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "1"}}]});
    let d = run(spec, binding(json!({})), &mut a, &none).unwrap_err();
    assert_eq!(
        d.message,
        "policy 'm' with binding 'mb' denied request: unsupported return type from ApplyConfiguration expression: int"
    );
    let spec =
        json!({"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "'x'"}}]});
    let d = run(spec, binding(json!({})), &mut a, &none).unwrap_err();
    assert_eq!(
        d.message,
        "policy 'm' with binding 'mb' denied request: type mismatch: JSONPatchType.expression should evaluate to array"
    );
}

#[test]
fn params_and_match_conditions() {
    let mut a = deployment(1);
    let spec = json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConditions": [{"name": "small", "expression": "object.spec.replicas < 3"}],
        "reinvocationPolicy": "IfNeeded",
        "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression":
            "Object{spec: Object.spec{replicas: int(params.data.replicas)}}"}}]});
    let b = binding(json!({"paramRef": {"name": "cfg", "parameterNotFoundAction": "Deny"}}));
    let cfg = |_: &ParamQuery| Ok(vec![json!({"data": {"replicas": "5"}})]);
    assert!(run(spec.clone(), b.clone(), &mut a, &cfg).unwrap().changed);
    assert_eq!(a.object.as_ref().unwrap()["spec"]["replicas"], 5);
    // The condition no longer holds: nothing happens.
    assert!(!run(spec.clone(), b.clone(), &mut a, &cfg).unwrap().changed);
    let d = run(spec.clone(), b.clone(), &mut deployment(1), &none).unwrap_err();
    assert_eq!(d, Denial {
        message: "policy 'm' with binding 'mb' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction".into(),
        reason: "Forbidden".into(),
        code: 403,
    });
    let mp = MutatingPolicies::new(&[policy(spec)], &[b], KubeVersion::NEWEST);
    let d1 = deployment(1);
    assert!(mp.reinvocation_needed(&mp.plan(&d1, None, &[])));
}
