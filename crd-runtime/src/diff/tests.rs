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
    assert!(
        got.iter().any(|l| l.starts_with("crontabs.stable.example.com: v1: spec.versions: stored-version-removed: version v1 removed while status.storedVersions lists it") && l.ends_with("[breaking]")),
        "{got:?}"
    );
    assert!(
        got.iter().any(|l| l.contains("storage-version-unserved")),
        "{got:?}"
    );
}

/// The CronTab with versions `names` (the last one stores), `storedVersions` `stored`.
fn live(names: &[&str], stored: &[&str]) -> CustomResourceDefinition {
    let base = crd(spec(json!({})), json!({}));
    let mut out = base.clone();
    out.spec.versions = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut v = base.spec.versions[0].clone();
            v.name = name.to_string();
            v.storage = i + 1 == names.len();
            v
        })
        .collect();
    if !stored.is_empty() {
        out.status = serde_json::from_value(json!({"storedVersions": stored})).unwrap();
    }
    out
}

#[test]
fn removing_a_stored_version_quotes_the_refusal_and_the_way_out() {
    // Objects stored in v1, then storage moved to v2: storedVersions is [v1, v2].
    let old = live(&["v1", "v2"], &["v1", "v2"]);
    let new = live(&["v2"], &[]);
    let changes = diff(&old, &new);
    let removed: Vec<&Change> = changes
        .iter()
        .filter(|c| c.version.as_deref() == Some("v1"))
        .collect();
    assert_eq!(removed.len(), 1, "{changes:?}");
    assert_eq!(removed[0].rule, Rule::StoredVersionRemoved);
    assert_eq!(removed[0].class(), Class::Breaking);
    assert_eq!(removed[0].path, "spec.versions");
    assert_eq!(
        removed[0].detail,
        "version v1 removed while status.storedVersions lists it: objects may still be stored \
         in v1, and the API server refuses the update (status.storedVersions[0]: Invalid value: \
         \"v1\": missing from spec.versions; v1 was previously a storage version, and must \
         remain in spec.versions until a storage migration ensures no data remains persisted \
         in v1 and removes v1 from status.storedVersions); migrate the stored objects to the \
         storage version (e.g. with a StorageVersionMigration), then remove v1 from \
         status.storedVersions"
    );
    assert_eq!(Policy::default().level(removed[0].rule), Level::Error);

    // The index is the version's place in storedVersions.
    let old = live(&["v1alpha1", "v1beta1", "v1"], &["v1", "v1beta1"]);
    let new = live(&["v1alpha1", "v1"], &[]);
    let changes = diff(&old, &new);
    let detail = &changes
        .iter()
        .find(|c| c.rule == Rule::StoredVersionRemoved)
        .expect("v1beta1 is stored")
        .detail;
    assert!(
        detail.contains(
            "(status.storedVersions[1]: Invalid value: \"v1beta1\": missing from spec.versions;"
        ),
        "{detail}"
    );
}

#[test]
fn removing_a_version_storedversions_does_not_list_is_version_removed() {
    // Migrated: storedVersions trimmed to [v2], so removing v1 is the plain rule.
    let old = live(&["v1", "v2"], &["v2"]);
    let new = live(&["v2"], &[]);
    let rules: Vec<Rule> = diff(&old, &new).iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::VersionRemoved], "{:?}", diff(&old, &new));
    // Without a status (a manifest, not a live CRD): the same.
    let old = live(&["v1", "v2"], &[]);
    let rules: Vec<Rule> = diff(&old, &new).iter().map(|c| c.rule).collect();
    assert_eq!(rules, [Rule::VersionRemoved]);
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
