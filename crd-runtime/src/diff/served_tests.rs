use serde_json::{Value, json};

use super::*;
use crate::diff::{Level, Policy, diff, diff_all};

/// A CronTab CRD with one version per `(name, served, spec properties)`.
fn crd(versions: &[(&str, bool, Value)]) -> CustomResourceDefinition {
    let versions: Vec<Value> = versions
        .iter()
        .enumerate()
        .map(|(i, (name, served, props))| {
            json!({
                "name": name, "served": served, "storage": i == 0,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": props}
                }}}
            })
        })
        .collect();
    crate::model::crontab_crd(Value::Array(versions))
}

/// The served-version findings of a CronTab CRD with `versions`, as lines.
fn served_findings(versions: &[(&str, bool, Value)]) -> Vec<String> {
    lines(&served_versions(&crd(versions)))
}

fn lines(changes: &[Change]) -> Vec<String> {
    changes.iter().map(ToString::to_string).collect()
}

#[test]
fn a_field_missing_from_the_newer_version_is_removed() {
    assert_eq!(
        served_findings(&[
            ("v1", true, json!({"image": {"type": "string"}})),
            (
                "v1beta1",
                true,
                json!({"image": {"type": "string"}, "cron": {"type": "string"}}),
            ),
        ]),
        [
            "crontabs.stable.example.com: v1beta1 -> v1: spec.cron: served-version-field-removed: field-removed: field of type string removed"
        ]
    );
}

#[test]
fn a_type_change_is_not_ratcheted() {
    let c = crd(&[
        ("v1alpha1", true, json!({"replicas": {"type": "string"}})),
        ("v1", true, json!({"replicas": {"type": "integer"}})),
    ]);
    let changes = served_versions(&c);
    assert_eq!(
        lines(&changes),
        [
            "crontabs.stable.example.com: v1alpha1 -> v1: spec.replicas: served-version-type-changed: type-changed: type changed from string to integer"
        ]
    );
    assert_eq!(Policy::default().level(changes[0].rule), Level::Error);
}

#[test]
fn a_narrowed_enum_is_a_warning_unless_ratcheting_is_off() {
    let c = crd(&[
        (
            "v1beta1",
            true,
            json!({"mode": {"type": "string", "enum": ["a", "b"]}}),
        ),
        (
            "v1",
            true,
            json!({"mode": {"type": "string", "enum": ["a"]}}),
        ),
    ]);
    let changes = served_versions(&c);
    assert_eq!(
        lines(&changes),
        [
            "crontabs.stable.example.com: v1beta1 -> v1: spec.mode: served-version-tightened: enum-value-removed: value \"b\" removed"
        ]
    );
    // Ratcheting tolerates it: a warning by default.
    assert_eq!(Policy::default().level(changes[0].rule), Level::Warn);
    // A cluster without ratcheting (before 1.30, or the gate off before 1.33): a
    // policy makes it an error.
    let strict =
        Policy::from_text("p.yaml", "rules:\n  served-version-tightened: error\n").unwrap();
    assert_eq!(strict.level(changes[0].rule), Level::Error);
}

#[test]
fn a_lowered_maximum_is_tightened_and_a_raised_one_is_no_finding() {
    assert_eq!(
        served_findings(&[
            ("v1", true, json!({"n": {"type": "integer", "maximum": 5}})),
            (
                "v1beta1",
                true,
                json!({"n": {"type": "integer", "maximum": 10}}),
            ),
        ]),
        [
            "crontabs.stable.example.com: v1beta1 -> v1: spec.n: served-version-tightened: maximum-tightened: maximum lowered from 10 to 5"
        ]
    );
    assert_eq!(
        served_findings(&[
            (
                "v1",
                true,
                json!({"n": {"type": "integer", "maximum": 10}, "new": {"type": "boolean"}}),
            ),
            (
                "v1beta1",
                true,
                json!({"n": {"type": "integer", "maximum": 5}}),
            ),
        ]),
        Vec::<String>::new()
    );
}

#[test]
fn required_added_and_transition_rules_are_not_ratcheted() {
    let mut c = crd(&[
        ("v1alpha1", true, json!({"a": {"type": "string"}})),
        (
            "v1",
            true,
            json!({"a": {"type": "string",
                  "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}]}}),
        ),
    ]);
    let root = c.spec.versions[1].schema.as_mut().unwrap();
    let spec = root
        .open_api_v3_schema
        .as_mut()
        .unwrap()
        .properties
        .as_mut()
        .unwrap()
        .get_mut("spec")
        .unwrap();
    spec.required = Some(vec!["a".into()]);
    let rules: Vec<&str> = served_versions(&c).iter().map(|c| c.rule.name()).collect();
    assert_eq!(
        rules,
        [
            "served-version-required-added",
            "served-version-incompatible"
        ]
    );
}

#[test]
fn unserved_versions_are_ignored() {
    assert_eq!(
        served_findings(&[
            ("v1", true, json!({"image": {"type": "string"}})),
            (
                "v1beta1",
                false,
                json!({"image": {"type": "integer"}, "x": {"type": "string"}}),
            ),
        ]),
        Vec::<String>::new()
    );
}

#[test]
fn three_served_versions_make_three_pairs_by_priority() {
    assert_eq!(
        served_findings(&[
            ("v1", true, json!({})),
            (
                "v1alpha1",
                true,
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
            ),
            ("v1beta1", true, json!({"b": {"type": "string"}})),
        ]),
        [
            "crontabs.stable.example.com: v1alpha1 -> v1beta1: spec.a: served-version-field-removed: field-removed: field of type string removed",
            "crontabs.stable.example.com: v1alpha1 -> v1: spec.a: served-version-field-removed: field-removed: field of type string removed",
            "crontabs.stable.example.com: v1alpha1 -> v1: spec.b: served-version-field-removed: field-removed: field of type string removed",
            "crontabs.stable.example.com: v1beta1 -> v1: spec.b: served-version-field-removed: field-removed: field of type string removed",
        ]
    );
}

#[test]
fn a_revision_reports_only_the_findings_it_introduces() {
    let old = crd(&[
        ("v1", true, json!({"a": {"type": "string"}})),
        (
            "v1beta1",
            true,
            json!({"a": {"type": "string"}, "b": {"type": "string"}}),
        ),
    ]);
    let mut new = old.clone();
    new.spec.versions[1] = crd(&[(
        "v1beta1",
        true,
        json!({"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}),
    )])
    .spec
    .versions[0]
        .clone();
    new.spec.versions[1].storage = false;
    // spec.b was missing from v1 already; spec.c is new in v1beta1 (field-added
    // between revisions) and missing from v1 (a new served-version finding).
    let got = lines(&diff(&old, &new));
    assert_eq!(
        got,
        [
            "crontabs.stable.example.com: v1beta1: spec.c: field-added: field of type string added",
            "crontabs.stable.example.com: v1beta1 -> v1: spec.c: served-version-field-removed: field-removed: field of type string removed",
        ]
    );
    assert_eq!(lines(&diff(&new, &new)), Vec::<String>::new());
    // A CRD new in the revision brings all its findings.
    let added = diff_all(&[], std::slice::from_ref(&old));
    assert_eq!(
        lines(&added),
        [
            "crontabs.stable.example.com: -: <crd>: crd-added: a new CRD",
            "crontabs.stable.example.com: v1beta1 -> v1: spec.b: served-version-field-removed: field-removed: field of type string removed",
        ]
    );
}

#[test]
fn versions_sort_by_kubernetes_priority() {
    let mut v = vec![
        "v1", "v10", "foo", "v2beta1", "v1beta2", "v1alpha1", "bar", "v2", "v1beta10", "v0",
    ];
    v.sort_by(|a, b| compare_priority(a, b));
    assert_eq!(
        v,
        [
            "foo", "bar", "v1alpha1", "v1beta2", "v1beta10", "v2beta1", "v0", "v1", "v2", "v10"
        ]
    );
    assert_eq!(compare_priority("v1beta+1", "a"), Ordering::Less);
}
