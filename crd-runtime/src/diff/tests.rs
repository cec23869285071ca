use serde_json::{Value, json};

use super::*;

/// The CronTab CRD with `spec` given by `spec_schema` and the rest of the version
/// patched by `version` (merged into the first version).
fn crd(spec_schema: Value, version: Value) -> CustomResourceDefinition {
    let mut v = json!({
        "name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": spec_schema,
            "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
        }}}
    });
    for (k, val) in version.as_object().cloned().unwrap_or_default() {
        v[k] = val;
    }
    crate::model::crontab_crd(json!([v]))
}

fn spec(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn lines(old: &CustomResourceDefinition, new: &CustomResourceDefinition) -> Vec<String> {
    diff(old, new)
        .iter()
        .map(|c| format!("{c} [{}]", c.class()))
        .collect()
}

#[test]
fn the_same_crd_has_no_changes() {
    let a = crd(
        spec(json!({"replicas": {"type": "integer", "maximum": 10}})),
        json!({}),
    );
    assert_eq!(lines(&a, &a), Vec::<String>::new());
}

#[test]
fn field_rules_name_path_rule_and_detail() {
    let old = crd(
        spec(json!({
            "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
            "image": {"type": "string", "maxLength": 64, "pattern": "^[a-z]+$"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "free": {"type": "string"},
            "gone": {"type": "string"},
            "ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        })),
        json!({}),
    );
    let new = crd(
        json!({
            "type": "object",
            "required": ["image"],
            "properties": {
                "replicas": {"type": "integer", "minimum": 0, "maximum": 5, "default": 2},
                "image": {"type": "string", "maxLength": 128, "pattern": "^[a-z0-9]+$"},
                "mode": {"type": "string", "enum": ["a", "c"]},
                "free": {"type": "string", "enum": ["x"]},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "integer"}}}},
                "enabled": {"type": "boolean"},
            },
            "x-kubernetes-validations": [{"rule": "self.replicas <= 5"}]
        }),
        json!({}),
    );
    let got = lines(&old, &new);
    let expected = [
        "crontabs.stable.example.com: v1: spec: validation-rule-added: rule \"self.replicas <= 5\" added [breaking]",
        "crontabs.stable.example.com: v1: spec.image: required-added: the field is now required [breaking]",
        "crontabs.stable.example.com: v1: spec.free: enum-added: values limited to [\"x\"] [breaking]",
        "crontabs.stable.example.com: v1: spec.gone: field-removed: field of type string removed [breaking]",
        "crontabs.stable.example.com: v1: spec.image: max-length-loosened: maxLength raised from 64 to 128 [compatible]",
        "crontabs.stable.example.com: v1: spec.image: pattern-changed: pattern changed from \"^[a-z]+$\" to \"^[a-z0-9]+$\" [breaking]",
        "crontabs.stable.example.com: v1: spec.mode: enum-value-removed: value \"b\" removed [breaking]",
        "crontabs.stable.example.com: v1: spec.mode: enum-value-added: value \"c\" added [compatible]",
        "crontabs.stable.example.com: v1: spec.ports: list-type-changed: x-kubernetes-list-type changed from atomic to map [breaking]",
        "crontabs.stable.example.com: v1: spec.ports[*].name: required-added: the field is now required [breaking]",
        "crontabs.stable.example.com: v1: spec.ports[*].name: type-changed: type changed from string to integer [breaking]",
        "crontabs.stable.example.com: v1: spec.replicas: maximum-tightened: maximum lowered from 10 to 5 [breaking]",
        "crontabs.stable.example.com: v1: spec.replicas: minimum-loosened: minimum lowered from 1 to 0 [compatible]",
        "crontabs.stable.example.com: v1: spec.replicas: default-changed: default changed from 1 to 2 [breaking]",
        "crontabs.stable.example.com: v1: spec.enabled: field-added: field of type boolean added [compatible]",
        "crontabs.stable.example.com: v1: spec.enabled: new-bool-field: a new boolean field; an enum can grow more states [informational]",
    ];
    let mut got_sorted = got.clone();
    got_sorted.sort();
    let mut expected_sorted: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    expected_sorted.sort();
    assert_eq!(got_sorted, expected_sorted, "got:\n{}", got.join("\n"));
}

#[test]
fn crd_wide_rules() {
    let old = crd(spec(json!({})), json!({"subresources": {"status": {}}}));
    let mut new = crd(spec(json!({})), json!({"served": false}));
    new.spec.scope = "Cluster".into();
    new.spec.names.short_names = Some(vec!["cron".into()]);
    new.spec.names.kind = "CronJob2".into();
    let got = lines(&old, &new);
    for want in [
        "crontabs.stable.example.com: -: spec.scope: scope-changed: scope changed from Namespaced to Cluster [breaking]",
        "crontabs.stable.example.com: -: spec.names.kind: names-changed: kind changed from CronTab to CronJob2 [breaking]",
        "crontabs.stable.example.com: -: spec.names.listKind: names-changed: listKind changed from CronTabList to CronJob2List [breaking]",
        "crontabs.stable.example.com: -: spec.names.shortNames: short-name-removed: ct removed [breaking]",
        "crontabs.stable.example.com: -: spec.names.shortNames: short-name-added: cron added [compatible]",
        "crontabs.stable.example.com: v1: served: version-unserved: version v1 is no longer served [breaking]",
        "crontabs.stable.example.com: v1: subresources.status: subresource-removed: status subresource removed [breaking]",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "missing {want}\ngot:\n{}",
            got.join("\n")
        );
    }
}

#[test]
fn versions_removed_added_and_storage_moves() {
    let old = crd(spec(json!({})), json!({}));
    let mut new = old.clone();
    let mut v2 = new.spec.versions[0].clone();
    v2.name = "v2".into();
    new.spec.versions[0].storage = false;
    new.spec.versions.push(v2);
    let got = lines(&old, &new);
    assert!(got.contains(&"crontabs.stable.example.com: v2: spec.versions: version-added: version v2 added [compatible]".to_string()), "{got:?}");
    assert!(got.contains(&"crontabs.stable.example.com: v2: storage: storage-version-changed: storage version moved from v1 to v2 [informational]".to_string()), "{got:?}");

    let mut dropped = new.clone();
    dropped.spec.versions.remove(0);
    let mut stored = old.clone();
    stored.status = serde_json::from_value(json!({"storedVersions": ["v1"]})).unwrap();
    let got = lines(&stored, &dropped);
    assert!(got.contains(&"crontabs.stable.example.com: v1: spec.versions: stored-version-removed: version v1 removed while status.storedVersions lists it [breaking]".to_string()), "{got:?}");
    assert!(
        got.iter().any(|l| l.contains("storage-version-unserved")),
        "{got:?}"
    );
}

#[test]
fn loosening_is_compatible_and_exclusive_bounds_count() {
    let old = crd(
        spec(json!({"n": {"type": "number", "maximum": 5, "minLength": 2, "multipleOf": 10}})),
        json!({}),
    );
    let new = crd(
        spec(
            json!({"n": {"type": "number", "maximum": 5, "exclusiveMaximum": true, "multipleOf": 5}}),
        ),
        json!({}),
    );
    let got = lines(&old, &new);
    assert_eq!(
        got,
        [
            "crontabs.stable.example.com: v1: spec.n: maximum-tightened: maximum changed from 5 to 5 (exclusive) [breaking]",
            "crontabs.stable.example.com: v1: spec.n: min-length-loosened: minLength 2 removed [compatible]",
            "crontabs.stable.example.com: v1: spec.n: multiple-of-loosened: multipleOf changed from 10 to 5 [compatible]",
        ]
    );
}

#[test]
fn cel_rules_are_paired_by_message_then_position() {
    let rules = |list: Value| {
        crd(
            json!({"type": "object", "x-kubernetes-validations": list}),
            json!({}),
        )
    };
    let old = rules(
        json!([{"rule": "self.a > 0", "message": "a positive"}, {"rule": "self.b", "message": "m"}]),
    );
    let new = rules(
        json!([{"rule": "self.a >= 1", "message": "a positive"}, {"rule": "self.b", "message": "other"}, {"rule": "self.c"}]),
    );
    assert_eq!(
        lines(&old, &new),
        [
            "crontabs.stable.example.com: v1: spec: validation-message-changed: message, reason or fieldPath of rule \"self.b\" changed [informational]",
            "crontabs.stable.example.com: v1: spec: validation-rule-changed: rule \"self.a > 0\" became \"self.a >= 1\" [breaking]",
            "crontabs.stable.example.com: v1: spec: validation-rule-added: rule \"self.c\" added [breaking]",
        ]
    );
}

#[test]
fn an_invalid_new_crd_is_breaking() {
    let old = crd(spec(json!({})), json!({}));
    // An array without items is not structural (no CEL involved: this holds
    // without the `cel` feature too).
    let new = crd(spec(json!({"x": {"type": "array"}})), json!({}));
    let got = lines(&old, &new);
    assert!(
        got.iter()
            .any(|l| l.contains(": crd-invalid: ") && l.ends_with("[breaking]")),
        "{got:?}"
    );
}
