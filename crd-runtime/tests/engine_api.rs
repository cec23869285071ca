//! The engine's public API beyond the conformance tables: resource roots, the
//! README's semantic surprises, typed objects, the extension point for further
//! passes, and hostile values built in code.

use std::sync::Arc;

use crd_runtime::__private::depth::drop_value;
use crd_runtime::engine::{Engine, PassContext, SchemaOptions, ValidationPass, too_deep};
use crd_runtime::{ErrorList, FieldError, JSONSchemaProps, Path};
use serde_json::{Value, json};

fn schema(v: Value) -> JSONSchemaProps {
    serde_json::from_value(v).unwrap()
}

fn bare(v: Value) -> Engine {
    Engine::for_schema(&schema(v), SchemaOptions::default()).unwrap()
}

fn crontab() -> Engine {
    let text = std::fs::read_to_string("tests/data/crontab-full.yaml").unwrap();
    let crd = crd_runtime::load_crds("crontab", &text)
        .unwrap()
        .crds
        .remove(0)
        .crd;
    Engine::for_crd(&crd, "v1").unwrap()
}

fn sorted(errs: &ErrorList) -> Vec<String> {
    let mut v = errs.strings();
    v.sort();
    v
}

#[test]
fn float_on_integer_with_maximum_gives_three_errors() {
    let e =
        bare(json!({"type": "object", "properties": {"i": {"type": "integer", "maximum": 10}}}));
    assert_eq!(
        sorted(&e.validate(&json!({"i": 10.5}))),
        vec![
            r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in i"#,
            r#"i: Invalid value: "number": i in body must be of type integer: "number""#,
            "i: Invalid value: 10.5: i in body should be less than or equal to 10",
        ]
    );
    assert!(
        e.validate(&json!({"i": 1e1})).is_empty(),
        "integral floats are integers"
    );
}

#[test]
fn nullable_enum_null_and_runes() {
    let e = bare(json!({"type": "object", "properties": {
        "m": {"type": "string", "nullable": true, "enum": ["a"]},
        "s": {"type": "string", "maxLength": 4}}}));
    assert_eq!(
        e.validate(&json!({"m": null})).strings(),
        vec![r#"m: Unsupported value: null: supported values: "a""#]
    );
    assert!(e.validate(&json!({"s": "ééé"})).is_empty());
    assert_eq!(
        e.validate(&json!({"s": "ééééé"})).strings(),
        vec!["s: Too long: may not be more than 4 bytes"]
    );
}

#[test]
fn list_indexes_are_kept_in_paths() {
    let e = bare(
        json!({"type": "object", "properties": {"items": {"type": "array",
        "items": {"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}}}}}),
    );
    assert_eq!(
        e.validate(&json!({"items": [{"name": "ab"}, {"name": "ok"}, {"name": "x"}]}))
            .strings(),
        vec![
            r#"items[2].name: Invalid value: "x": items[2].name in body should be at least 2 chars long"#
        ]
    );
}

#[test]
fn resource_root_checks_type_and_object_meta() {
    let e = crontab();
    let mut v = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "Bad_Name", "bogus": 1}, "spec": {}});
    let errs = e.admit(&mut v).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert!(
        errs.strings()[0].starts_with(
            r#"metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain"#
        ),
        "{errs}"
    );
    assert_eq!(v["metadata"], json!({"name": "Bad_Name"}));
    let mut v = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab"});
    assert_eq!(
        e.admit(&mut v).unwrap_err().strings(),
        vec!["metadata.name: Required value: name or generateName is required"]
    );
    let mut v =
        json!({"apiVersion": "stable.example.com/v2", "kind": "Other", "metadata": {"name": "a"}});
    assert_eq!(
        sorted(&e.admit(&mut v).unwrap_err()),
        vec![
            r#"apiVersion: Invalid value: "stable.example.com/v2": must be stable.example.com/v1"#,
            r#"kind: Invalid value: "Other": must be CronTab"#,
        ]
    );
    let mut v = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"generateName": "cron-"}});
    e.admit(&mut v).unwrap();
    assert_eq!(v["spec"], Value::Null, "no spec, no defaults");
}

#[test]
fn embedded_resource_type_meta_must_be_strings() {
    let e = bare(
        json!({"type": "object", "properties": {"pod": {"type": "object",
        "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}}),
    );
    let mut v = json!({"pod": {"apiVersion": 1, "kind": "Pod"}});
    assert_eq!(
        e.admit(&mut v).unwrap_err().strings(),
        vec!["pod.apiVersion: Invalid value: 1: must be a string"]
    );
    let mut v = json!({"pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "x": 1}, "spec": {}}});
    e.admit(&mut v).unwrap();
    assert_eq!(v["pod"]["metadata"], json!({"name": "p"}));
}

#[test]
fn typed_and_dynamic_agree() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Obj {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        n: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        s: Option<String>,
    }
    let e = bare(json!({"type": "object", "properties": {
        "n": {"type": "integer", "default": 3, "minimum": 1},
        "s": {"type": "string"}}}));
    let out = e
        .admit_typed(&Obj {
            n: None,
            s: Some("x".into()),
        })
        .unwrap();
    assert_eq!(
        out,
        Obj {
            n: Some(3),
            s: Some("x".into())
        }
    );
    let err = e
        .admit_typed(&Obj {
            n: Some(0),
            s: None,
        })
        .unwrap_err();
    let mut dynamic = json!({"n": 0});
    assert_eq!(
        err,
        crd_runtime::engine::AdmitError::Invalid(e.admit(&mut dynamic).unwrap_err())
    );
}

/// A pass that reports every rule site with its correlated old value.
#[derive(Debug)]
struct Recorder;

impl ValidationPass for Recorder {
    fn validate(&self, cx: &PassContext<'_>, errors: &mut ErrorList) {
        let detail = format!(
            "after {} error(s), old = {}",
            errors.len(),
            cx.old.map_or("none".to_string(), Value::to_string)
        );
        errors.push(FieldError::forbidden(Path::root(), detail));
    }
}

#[test]
fn the_engine_runs_cel_with_correlated_old_values_then_extra_passes() {
    let e = bare(json!({"type": "object", "properties": {"list": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
        "items": {"type": "object", "properties": {"k": {"type": "string"},
            "v": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf"}]}}}}}}))
    .with_pass(Arc::new(Recorder));
    assert!(e.has_rules());
    let new = json!({"list": [{"k": "b", "v": 2}, {"k": "a", "v": 1}]});
    let old = json!({"list": [{"k": "a", "v": 5}]});
    assert_eq!(
        e.validate_update(&new, &old).strings(),
        vec![
            "list[1].v: Invalid value: 1: failed rule: self >= oldSelf",
            r#"<nil>: Forbidden: after 1 error(s), old = {"list":[{"k":"a","v":5}]}"#,
        ]
    );
    // On create, transition rules do not run.
    assert_eq!(
        e.validate(&new).strings(),
        vec!["<nil>: Forbidden: after 0 error(s), old = none"]
    );
}

fn deep_array(depth: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..depth {
        v = Value::Array(vec![v]);
    }
    v
}

#[test]
fn values_nested_past_the_servers_limit_are_errors_not_crashes() {
    // On the test thread's own 2 MiB: the engine sizes its stack for the depth, and
    // deep values are dropped through `depth::drop_value` (serde_json's drop recurses).
    let limit = crd_runtime::__private::depth::MAX_DEPTH;
    let e = bare(
        json!({"type": "object", "properties": {"a": {"x-kubernetes-preserve-unknown-fields": true}}}),
    );
    let mut v = json!({});
    v["a"] = deep_array(limit);
    assert!(too_deep(&v));
    let errs = e.admit(&mut v).unwrap_err();
    assert_eq!(
        errs.strings(),
        vec!["<nil>: Forbidden: the object nests deeper than 10000 levels"]
    );
    assert_eq!(e.validate(&v).len(), 1);
    assert!(e.prune(&mut v).is_empty());
    e.default(&mut v);
    drop_value(v);
    let nil = Engine::for_optional_schema(None, SchemaOptions::default()).unwrap();
    let mut arr = deep_array(limit);
    assert!(nil.prune(&mut arr).is_empty());
    drop_value(arr);
    // At the limit: admitted, kept whole, validated again as an update of itself.
    let mut v = json!({});
    v["a"] = deep_array(limit - 2);
    assert!(!too_deep(&v));
    assert_eq!(e.admit(&mut v), Ok(()));
    assert_eq!(
        crd_runtime::__private::depth::depth_of(&v, usize::MAX),
        limit - 1
    );
    let old = crd_runtime::__private::depth::with_stack_for(limit, || v.clone());
    assert!(e.validate_update(&v, &old).is_empty());
    drop_value(old);
    drop_value(v);
}

#[test]
fn a_regex_is_compiled_once_and_invalid_ones_report() {
    let e = bare(json!({"type": "array", "items": {"type": "string", "pattern": "(a"}}));
    let errs = e.validate(&json!(["x", "y"]));
    assert_eq!(errs.len(), 2);
    assert_eq!(
        errs.strings()[0],
        r#"[0]: Invalid value: "x": [0] in body should match '(a, but pattern is invalid: error parsing regexp: missing closing ): `(a`'"#
    );
    let _ = Path::root();
}

fn bench_object(name: &str) -> Value {
    let text = std::fs::read_to_string(format!("benches/data/{name}.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn prometheus() -> Engine {
    let path =
        "../../shared/corpus/crds/prometheus-operator/prometheuses.monitoring.coreos.com.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let crd = crd_runtime::load_crds(path, &text)
        .unwrap()
        .crds
        .remove(0)
        .crd;
    Engine::for_crd(&crd, "v1").unwrap()
}

/// Laws: admitting is idempotent, and pruning an admitted object prunes nothing.
#[test]
fn admit_and_prune_are_idempotent() {
    for (engine, name) in [(crontab(), "crontab"), (prometheus(), "prometheus")] {
        let mut once = bench_object(name);
        engine.admit(&mut once).unwrap();
        let mut twice = once.clone();
        engine.admit(&mut twice).unwrap();
        assert_eq!(once, twice, "{name}");
        assert_eq!(engine.prune(&mut twice), Vec::<String>::new(), "{name}");
        let mut stripped = bench_object(name);
        stripped["spec"]["unknownField"] = json!({"a": 1});
        assert_eq!(
            engine.prune(&mut stripped),
            vec!["spec.unknownField"],
            "{name}"
        );
    }
}

/// `levels` nested object schemas around a string of at most 3 bytes, with a CEL rule.
fn nested_schema(levels: usize) -> JSONSchemaProps {
    let mut s = schema(json!({"type": "string", "maxLength": 3,
        "x-kubernetes-validations": [{"rule": "self != 'no'"}]}));
    for _ in 1..levels {
        let mut parent = schema(json!({"type": "object"}));
        parent.properties = Some([("a".to_string(), Box::new(s))].into());
        s = parent;
    }
    s
}

#[test]
fn engines_compile_schemas_as_deep_as_a_crd_body_carries_them() {
    use crd_runtime::__private::depth::schema::{MAX_SCHEMA_DEPTH, with_schema_stack};
    use crd_runtime::engine::EngineError;
    // On this 2 MiB test thread: the compile sizes its own stack.
    let s = nested_schema(MAX_SCHEMA_DEPTH);
    let engine = Engine::for_schema(&s, SchemaOptions::default()).unwrap();
    // The deepest field is validated (its object is 9,999 levels deep).
    let mut obj = (1..MAX_SCHEMA_DEPTH).fold(json!("abcd"), |v, _| {
        Value::Object(serde_json::Map::from_iter([("a".to_string(), v)]))
    });
    let (has_rules, errs) = (engine.has_rules(), engine.validate(&obj).strings());
    let admitted = engine.admit(&mut obj).map_err(|e| e.to_string());
    // Dropped before asserting: a failed assertion would drop them on this stack.
    drop_value(obj);
    with_schema_stack(MAX_SCHEMA_DEPTH, move || drop(engine));
    assert!(has_rules);
    let path = vec!["a"; MAX_SCHEMA_DEPTH - 1].join(".");
    let want = format!("{path}: Too long: may not be more than 3 bytes");
    // The rule below the invalid string is skipped, as the server does.
    let tails: Vec<&str> = errs
        .iter()
        .map(|e| &e[e.len().saturating_sub(150)..])
        .collect();
    assert_eq!(errs.len(), 2, "{tails:?}");
    assert!(errs[0] == want, "{tails:?}");
    assert_eq!(
        errs[1],
        "<nil>: Invalid value: null: some validation rules were not checked because the \
         object was invalid; correct the existing errors to complete validation"
    );
    assert!(admitted.is_err());

    // One level more only comes from code; the refusal is ours.
    let mut deeper = schema(json!({"type": "object"}));
    deeper.properties = Some([("a".to_string(), Box::new(s))].into());
    let err = Engine::for_schema(&deeper, SchemaOptions::default()).map(|_| ());
    with_schema_stack(MAX_SCHEMA_DEPTH + 1, move || drop(deeper));
    let err = err.unwrap_err();
    assert_eq!(err, EngineError::SchemaTooDeep(MAX_SCHEMA_DEPTH));
    assert!(err.to_string().contains("crd-toolkit's limit"), "{err}");
}
