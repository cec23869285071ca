//! Validation ratcheting (KEP-4008), with the cases of upstream's
//! `apiextensions-apiserver/pkg/apiserver/validation/ratcheting_test.go` re-expressed:
//! on update, errors on values unchanged from the old object are dropped; changed
//! values are checked.

use crd_runtime::KubeVersion;
use crd_runtime::engine::{Engine, EngineOptions, SchemaOptions};
use serde_json::{Value, json};

fn engine(schema: Value, options: EngineOptions) -> Engine {
    let schema = serde_json::from_value(schema).unwrap();
    Engine::for_schema_with(Some(&schema), SchemaOptions::default(), options).unwrap()
}

fn ratcheting(schema: Value) -> Engine {
    engine(schema, EngineOptions::default())
}

fn valid_update(e: &Engine, new: Value, old: Value) -> bool {
    e.validate_update(&new, &old).is_empty()
}

fn ints() -> Value {
    json!({
        "zero": {"type": "number", "minimum": 0, "maximum": 0},
        "small": {"type": "number", "maximum": 50},
        "medium": {"type": "number", "minimum": 50, "maximum": 10000},
        "large": {"type": "number", "minimum": 10000},
    })
}

#[test]
fn scalar() {
    let e = ratcheting(json!({"type": "number", "minimum": 50, "maximum": 10000}));
    assert!(valid_update(&e, json!(1), json!(1)));
    assert!(!valid_update(&e, json!(1), json!(2)));
    assert!(
        !e.validate(&json!(1)).is_empty(),
        "a create is never ratcheted"
    );
}

#[test]
fn object_scalar_fields() {
    let e = ratcheting(json!({"type": "object", "properties": ints()}));
    assert!(valid_update(
        &e,
        json!({"small": 500}),
        json!({"small": 500})
    ));
    assert!(valid_update(
        &e,
        json!({"small": 501}),
        json!({"small": 501, "medium": 500})
    ));
    assert!(!valid_update(
        &e,
        json!({"small": 500}),
        json!({"small": 501})
    ));
}

#[test]
fn object_object_fields() {
    let e = ratcheting(json!({"type": "object", "properties": {
        "nested": {"type": "object", "properties": ints()}}}));
    let nested = |v: Value| json!({"nested": v});
    assert!(valid_update(
        &e,
        nested(json!({"small": 500})),
        nested(json!({"small": 500}))
    ));
    assert!(valid_update(
        &e,
        nested(json!({"small": 501})),
        nested(json!({"small": 501, "medium": 500}))
    ));
    assert!(!valid_update(
        &e,
        nested(json!({"small": 500})),
        nested(json!({"small": 501}))
    ));
}

#[test]
fn numeric_format() {
    let e = ratcheting(json!({"type": "object", "properties": {
        "intThirtyTwo": {"type": "integer", "format": "int32"},
        "unrelated": {"type": "string"}}}));
    let big = i64::from(i32::MAX) + 1;
    assert!(valid_update(
        &e,
        json!({"intThirtyTwo": big}),
        json!({"intThirtyTwo": big})
    ));
    assert!(valid_update(
        &e,
        json!({"intThirtyTwo": big, "unrelated": "changed"}),
        json!({"intThirtyTwo": big, "unrelated": "original"})
    ));
    assert!(!valid_update(
        &e,
        json!({"intThirtyTwo": big + 1}),
        json!({"intThirtyTwo": big})
    ));
}

#[test]
fn lists_pair_by_key_by_position_or_not_at_all() {
    let item = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "port": {"type": "integer", "maximum": 100}}});
    let e = ratcheting(json!({"type": "object", "properties": {
        "map": {"type": "array", "items": item, "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"]},
        "plain": {"type": "array", "items": item},
        "atomic": {"type": "array", "items": item, "x-kubernetes-list-type": "atomic"}}}));
    // A map list pairs by key: reordering and adding entries keeps old ones ratcheted.
    let old = json!({"map": [{"name": "a", "port": 500}]});
    let new = json!({"map": [{"name": "b", "port": 1}, {"name": "a", "port": 500}]});
    assert!(valid_update(&e, new, old));
    // Without a list type items pair by position.
    let old = json!({"plain": [{"name": "a", "port": 500}]});
    assert!(valid_update(
        &e,
        json!({"plain": [{"name": "a", "port": 500}, {"name": "b"}]}),
        old.clone()
    ));
    assert!(!valid_update(
        &e,
        json!({"plain": [{"name": "b"}, {"name": "a", "port": 500}]}),
        old
    ));
    // An atomic list only ratchets as a whole.
    let old = json!({"atomic": [{"name": "a", "port": 500}]});
    assert!(valid_update(&e, old.clone(), old.clone()));
    let mut errs = e
        .validate_update(
            &json!({"atomic": [{"name": "a", "port": 500}, {"name": "b"}]}),
            &old,
        )
        .strings();
    errs.sort();
    assert_eq!(
        errs,
        vec![
            "atomic[0].port: Invalid value: 500: atomic[0].port in body should be less than or equal to 100"
        ]
    );
}

#[test]
fn cel_rules_ratchet_but_transition_rules_always_run() {
    let e = ratcheting(json!({"type": "object", "properties": {
        "spec": {"type": "object",
                 "properties": {"min": {"type": "integer"}, "max": {"type": "integer"},
                                "mode": {"type": "string",
                                         "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}]}},
                 "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min above max"}]},
        "note": {"type": "string"}}}));
    let old = json!({"spec": {"min": 5, "max": 1, "mode": "a"}, "note": "x"});
    // Only `note` changed: the broken `spec` is left alone.
    assert!(valid_update(
        &e,
        json!({"spec": {"min": 5, "max": 1, "mode": "a"}, "note": "y"}),
        old.clone()
    ));
    let errs = e
        .validate_update(
            &json!({"spec": {"min": 5, "max": 1, "mode": "b"}, "note": "x"}),
            &old,
        )
        .strings();
    assert_eq!(
        errs,
        vec![
            "spec: Invalid value: min above max",
            r#"spec.mode: Invalid value: "b": immutable"#,
        ]
    );
}

#[test]
fn the_gate_can_be_turned_off_before_1_33_only() {
    let schema = json!({"type": "number", "maximum": 1});
    let v132 = KubeVersion::new(32).unwrap();
    let off = EngineOptions {
        ratcheting: false,
        ..EngineOptions::for_version(v132)
    };
    let e = engine(schema.clone(), off);
    assert!(!valid_update(&e, json!(5), json!(5)));
    let v133 = KubeVersion::new(33).unwrap();
    let locked = EngineOptions {
        ratcheting: false,
        ..EngineOptions::for_version(v133)
    };
    let s = serde_json::from_value(schema).unwrap();
    let err = Engine::for_schema_with(Some(&s), SchemaOptions::default(), locked).unwrap_err();
    assert_eq!(
        err.to_string(),
        "validation ratcheting (CRDValidationRatcheting) is GA and always on in Kubernetes 1.33"
    );
}

#[test]
fn list_type_errors_are_not_held_against_an_old_object_that_had_them() {
    let e = ratcheting(json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}}}));
    let dup = json!({"tags": ["a", "a"]});
    assert_eq!(
        e.validate(&dup).strings(),
        vec![r#"tags[1]: Duplicate value: "a""#]
    );
    assert!(valid_update(&e, json!({"tags": ["a", "a", "b"]}), dup));
    assert!(!valid_update(
        &e,
        json!({"tags": ["a", "a"]}),
        json!({"tags": ["a"]})
    ));
}
