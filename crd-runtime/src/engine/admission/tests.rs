//! The unknown fields of [`Engine::start_admission`] are [`Engine::prune`]'s on a
//! clone, and finishing gives what [`Engine::admit`] gives, for random objects against
//! schemas with every pruning case: known, unknown and `null` fields, nullable and
//! defaulted ones, `additionalProperties` (schema and `true`), preserved unknown
//! fields, embedded and root resources, lists.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::engine::{Engine, SchemaOptions};
use crate::field::ErrorList;

fn engines() -> Vec<Engine> {
    let spec = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "default": 1},
            "b": {"type": "string"},
            "n": {"type": "string", "nullable": true},
            "list": {"type": "array", "items": {"type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}},
            "map": {"type": "object", "additionalProperties": {"type": "object",
                "properties": {"a": {"type": "string"}}}},
            "any": {"type": "object", "additionalProperties": true},
            "keep": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}},
            "inner": {"type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"a": {"type": "string"}}}
        }
    });
    let root =
        json!({"type": "object", "properties": {"spec": spec.clone(), "a": {"type": "string"}}});
    let mut out = Vec::new();
    for (schema, resource_root) in [(spec, false), (root.clone(), false), (root, true)] {
        let schema = serde_json::from_value(schema).unwrap();
        out.push(Engine::for_schema(&schema, SchemaOptions { resource_root }).unwrap());
    }
    out.push(Engine::for_optional_schema(None, SchemaOptions::default()).unwrap());
    out
}

/// Objects over the schemas' names and a few strangers, with many `null`s.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        Just(json!(1)),
        Just(json!("x")),
        Just(json!(true)),
    ];
    let key = prop_oneof![
        Just("a"),
        Just("b"),
        Just("n"),
        Just("list"),
        Just("map"),
        Just("any"),
        Just("keep"),
        Just("inner"),
        Just("spec"),
        Just("kind"),
        Just("metadata"),
        Just("zz"),
    ]
    .prop_map(String::from);
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// What the two-step admission returns and leaves: unknown fields, result, object.
fn staged(
    e: &Engine,
    v: &Value,
    old: Option<&Value>,
) -> (Vec<String>, Result<(), ErrorList>, Value) {
    let mut v = v.clone();
    match e.start_admission(&mut v, old) {
        Ok(mut a) => {
            let unknown = a.take_unknown_fields();
            let result = a.finish();
            (unknown, result, v)
        }
        Err(errs) => (Vec::new(), Err(errs), v),
    }
}

/// [`Engine::decode`] then `validate`/`validate_update`, as a server with a separate
/// validation step runs it.
fn decoded_then_validated(
    e: &Engine,
    v: &Value,
    old: Option<&Value>,
) -> (Result<(), ErrorList>, Value) {
    let mut v = v.clone();
    let result = e.decode(&mut v).and_then(|_| {
        let errs = match old {
            None => e.validate(&v),
            Some(old) => e.validate_update(&v, old),
        };
        if errs.is_empty() { Ok(()) } else { Err(errs) }
    });
    (result, v)
}

proptest! {
    #[test]
    fn unknown_fields_are_prunes_and_the_result_is_admits(v in value(), old in value()) {
        for e in engines() {
            let mut probe = v.clone();
            let want_unknown = e.prune(&mut probe);

            let mut admitted = v.clone();
            let want = e.admit(&mut admitted);
            let (unknown, got, staged_value) = staged(&e, &v, None);
            prop_assert_eq!(&unknown, &want_unknown);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&staged_value, &admitted);

            let (decoded, decoded_value) = decoded_then_validated(&e, &v, None);
            prop_assert_eq!(&decoded, &want);
            prop_assert_eq!(&decoded_value, &admitted);

            let mut updated = v.clone();
            let want = e.admit_update(&mut updated, &old);
            let (unknown, got, staged_value) = staged(&e, &v, Some(&old));
            prop_assert_eq!(&unknown, &want_unknown);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&staged_value, &updated);
            let (decoded, decoded_value) = decoded_then_validated(&e, &v, Some(&old));
            prop_assert_eq!(decoded, want);
            prop_assert_eq!(decoded_value, updated);
        }
    }
}

#[test]
fn a_dropped_null_is_not_unknown_and_the_caller_can_stop_before_defaulting() {
    let e = &engines()[0];
    let mut v = json!({"b": null, "n": null, "zz": null, "list": [{"zz": 1, "b": null}]});
    let a = e.start_admission(&mut v, None).unwrap();
    assert_eq!(a.unknown_fields(), ["list[0].zz", "zz"]);
    // Strict decoding stops here: pruned, not yet defaulted.
    assert_eq!(a.value(), &json!({"n": null, "list": [{}]}));
    drop(a);
    assert_eq!(v, json!({"n": null, "list": [{}]}));
}

/// `v` inside `levels` objects `{"any": …}` (moved in: `json!` would copy it).
fn nest(mut v: Value, levels: usize) -> Value {
    for _ in 0..levels {
        v = Value::Object(serde_json::Map::from_iter([("any".to_string(), v)]));
    }
    v
}

#[test]
fn too_deep_objects_fail_like_admit() {
    let e = &engines()[0];
    let mut deep = nest(json!(1), crate::depth::MAX_DEPTH + 1);
    // Clones and drops recurse: deep values are copied on a sized stack and
    // dropped without recursion, as callers of the engine must.
    let mut copy = crate::depth::with_stack_for(crate::depth::MAX_DEPTH + 1, || deep.clone());
    let want = e.admit(&mut copy).unwrap_err();
    let got = e.start_admission(&mut deep, None).unwrap_err();
    assert_eq!(got, want);
    crate::depth::drop_value(copy);
    crate::depth::drop_value(deep);
}

#[test]
fn objects_at_the_limit_are_admitted_on_a_small_stack() {
    // The test thread has 2 MiB; the engine sizes its own stack for the depth.
    let e = &engines()[0];
    let deep = nest(json!({"z": null}), crate::depth::MAX_DEPTH - 3);
    let mut obj = json!({"zz": 1});
    obj["keep"] = deep;
    assert_eq!(
        crate::depth::depth_of(&obj, usize::MAX),
        crate::depth::MAX_DEPTH - 1
    );
    assert_eq!(e.admit(&mut obj), Ok(()));
    // Pruned (`zz`), defaulted (`a`), the deep part kept (preserved unknown fields).
    assert_eq!(obj.get("zz"), None);
    assert_eq!(obj["a"], json!(1));
    assert_eq!(
        crate::depth::depth_of(&obj, usize::MAX),
        crate::depth::MAX_DEPTH - 1
    );
    let old = crate::depth::with_stack_for(crate::depth::MAX_DEPTH, || obj.clone());
    assert_eq!(e.admit_update(&mut obj, &old), Ok(()));
    crate::depth::drop_value(old);
    crate::depth::drop_value(obj);
}
