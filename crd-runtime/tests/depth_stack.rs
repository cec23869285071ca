//! Stack bytes per nesting level of each deep walk, measured: the walk runs on a fresh
//! stack (`stacker::grow`, an anonymous mapping), and the pages it touched are counted
//! with `mincore`. The figures size `crd_runtime::depth::stack_bytes`; this test fails
//! when a walk needs more per level than that budget. `--nocapture` prints them.

use crd_runtime::depth::{MAX_DEPTH, from_json_slice, stack_bytes, to_json_vec};
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
            crd_runtime::depth::drop_value(v);
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
