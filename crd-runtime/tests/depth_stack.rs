//! Stack bytes per nesting level of each deep walk, measured: the walk runs on a fresh
//! stack (`stacker::grow`, an anonymous mapping), and the pages it touched are counted
//! with `mincore`. The figures size `crd_runtime::__private::depth::stack_bytes`; this test fails
//! when a walk needs more per level than that budget. `--nocapture` prints them.

use crd_runtime::__private::depth::{MAX_DEPTH, from_json_slice, stack_bytes, to_json_vec};
use crd_runtime::engine::{Engine, SchemaOptions};
use serde_json::{Map, Value, json};

const REGION: usize = 1 << 30;

/// Bytes of stack `f` touched.
fn stack_used(f: impl FnOnce()) -> usize {
    let mut used = 0;
    stacker::grow(REGION, || {
        // A local of this closure: on the new stack, near its top.
        let marker = 0u8;
        let top = std::hint::black_box(&marker) as *const u8 as usize;
        f();
        let page = 4096;
        let start = (top - REGION + 2 * page) & !(page - 1);
        let pages = (top - start) / page;
        let mut resident = vec![0u8; pages + 1];
        // SAFETY: the range lies inside the stack mapping stacker made for this closure.
        let rc = unsafe {
            libc::mincore(
                start as *mut libc::c_void,
                top - start,
                resident.as_mut_ptr(),
            )
        };
        assert_eq!(rc, 0, "mincore");
        used = resident.iter().filter(|&&r| r & 1 == 1).count() * page;
    });
    used
}

/// `{"a": {"a": … leaf}}`, `levels` objects around `leaf`.
fn nest(leaf: Value, levels: usize, key: &str) -> Value {
    (0..levels).fold(leaf, |v, _| {
        Value::Object(Map::from_iter([(key.to_string(), v)]))
    })
}

/// A schema of `levels` objects, a defaulted string at the bottom, a CEL rule at the
/// root that reads the whole object.
fn schema(levels: usize) -> Value {
    let mut s = json!({"type": "string", "default": "x", "maxLength": 5});
    for _ in 0..levels {
        let mut m = Map::new();
        m.insert("type".into(), json!("object"));
        m.insert(
            "properties".into(),
            Value::Object(Map::from_iter([("a".to_string(), s)])),
        );
        s = Value::Object(m);
    }
    s["x-kubernetes-validations"] = json!([{"rule": "self == self"}]);
    s
}

/// Per-level bytes of each walk, from the difference between two depths.
fn per_level(low: usize, high: usize, walk: impl Fn(usize) -> usize) -> usize {
    walk(high).saturating_sub(walk(low)) / (high - low)
}

#[test]
fn each_deep_walk_fits_the_per_level_budget() {
    let budget = (stack_bytes(MAX_DEPTH) - stack_bytes(0)) / MAX_DEPTH;
    let mut figures = Vec::new();
    figures.push((
        "parse JSON",
        per_level(1000, 3000, |d| {
            let text = format!("{}1{}", "[".repeat(d), "]".repeat(d));
            stack_used(|| {
                let mut de = serde_json::Deserializer::from_str(&text);
                de.disable_recursion_limit();
                let v: Value = serde::Deserialize::deserialize(&mut de).unwrap();
                std::mem::forget(v);
            })
        }),
    ));
    figures.push((
        "serialize, clone, compare, drop",
        per_level(1000, 3000, |d| {
            let v: Value =
                from_json_slice(format!("{}1{}", "[".repeat(d), "]".repeat(d)).as_bytes()).unwrap();
            let used = stack_used(|| {
                let text = to_json_vec(&v);
                let c = v.clone();
                assert!(c == v && !text.is_empty());
                drop(c);
            });
            crd_runtime::__private::depth::drop_value(v);
            used
        }),
    ));
    figures.push((
        "admit (prune, default, validate, CEL)",
        per_level(50, 250, |d| {
            let mut used = 0;
            stacker::grow(REGION, || {
                let schema: crd_runtime::JSONSchemaProps =
                    serde_json::from_value(schema(d)).unwrap();
                let engine = Engine::for_schema(&schema, SchemaOptions::default()).unwrap();
                let mut obj = nest(json!({}), d - 1, "a");
                used = stack_used(|| assert_eq!(engine.admit(&mut obj), Ok(())));
                std::mem::forget(obj);
                std::mem::forget(engine);
                std::mem::forget(schema);
            });
            used
        }),
    ));
    for (walk, bytes) in &figures {
        println!("{walk}: {bytes} bytes per level (budget {budget})");
        assert!(
            *bytes <= budget,
            "{walk}: {bytes} bytes per level over the budget {budget}"
        );
    }
}

/// A v1 CRD whose schema nests `levels` objects around a string with a `maxLength`
/// and a CEL rule (so the checks, the compile and CEL compilation reach the bottom).
fn deep_crd(levels: usize) -> crd_runtime::CustomResourceDefinition {
    let mut s = json!({"type": "string", "maxLength": 5,
        "x-kubernetes-validations": [{"rule": "self != 'no'"}]});
    for _ in 0..levels - 1 {
        s = json!({"type": "object", "properties": {"a": s}});
    }
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "deeps.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "deeps", "singular": "deep", "kind": "Deep", "listKind": "DeepList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": s}}]
        }
    });
    let text = to_json_vec(&crd);
    crd_runtime::__private::depth::drop_value(crd);
    from_json_slice(&text).unwrap()
}

#[test]
fn each_schema_walk_fits_the_per_level_budget() {
    use crd_runtime::__private::depth::schema::{MAX_SCHEMA_DEPTH, schema_stack_bytes};
    let budget = (schema_stack_bytes(MAX_SCHEMA_DEPTH) - schema_stack_bytes(0)) / MAX_SCHEMA_DEPTH;
    // Each walk runs on a 1 GiB stack, so the entry points' own sizing (which leaves
    // a walk on the current stack when enough is left) never switches stacks here.
    let walk = |f: fn(&crd_runtime::CustomResourceDefinition)| {
        move |d: usize| {
            let mut used = 0;
            stacker::grow(REGION, || {
                let crd = deep_crd(d);
                used = stack_used(|| f(&crd));
                std::mem::forget(crd);
            });
            used
        }
    };
    let figures = [
        (
            "check the CRD (structural, defaults, OpenAPI, CEL compile)",
            per_level(
                200,
                600,
                walk(|crd| {
                    let errs =
                        crd_runtime::validate_crd(crd, &crd_runtime::CheckOptions::v1_create());
                    assert!(errs.is_empty(), "{:?}", errs.strings());
                }),
            ),
        ),
        (
            "compile an engine (schema arena, CEL rules) and drop it",
            per_level(
                200,
                600,
                walk(|crd| {
                    let engine = Engine::for_crd(crd, "v1").unwrap();
                    assert!(engine.has_rules());
                }),
            ),
        ),
        (
            "clone and drop the CRD",
            per_level(200, 600, walk(|crd| drop(crd.clone()))),
        ),
    ];
    for (walk, bytes) in &figures {
        println!("{walk}: {bytes} bytes per schema level (budget {budget})");
        assert!(
            *bytes <= budget,
            "{walk}: {bytes} bytes per schema level over the budget {budget}"
        );
    }
}
