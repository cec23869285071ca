//! `Engine::start_admission` reports exactly the unknown fields `Engine::prune` finds on
//! a clone, and finishing it leaves and returns what `Engine::admit` (and
//! `admit_update`) do: over every object of the conformance tables, and over objects
//! built from every schema of every corpus CRD, once with a value for each field and
//! once with `null`s (which null pruning drops without calling them unknown), both with
//! strangers at every level.

use crd_runtime::engine::{Engine, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, corpus_files, schema_of};
use serde_json::{Map, Value, json};

/// A mismatch between the one-prune admission and prune-then-admit, if any.
fn compare(engine: &Engine, input: &Value, old: Option<&Value>) -> Option<String> {
    let mut probe = input.clone();
    let want_unknown = engine.prune(&mut probe);
    let mut want_value = input.clone();
    let want = match old {
        None => engine.admit(&mut want_value),
        Some(old) => engine.admit_update(&mut want_value, old),
    };
    let mut got_value = input.clone();
    let (unknown, got) = match engine.start_admission(&mut got_value, old) {
        Ok(mut a) => (a.take_unknown_fields(), a.finish()),
        Err(e) => (want_unknown.clone(), Err(e)),
    };
    if unknown != want_unknown {
        return Some(format!("unknown {unknown:?}, prune {want_unknown:?}"));
    }
    if got != want || got_value != want_value {
        return Some(format!(
            "admitted {got_value} {got:?}, admit {want_value} {want:?}"
        ));
    }
    None
}

#[test]
fn conformance_objects() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for table in [
        "prune.json",
        "default.json",
        "validate.json",
        "listtype.json",
        "objectmeta.json",
    ] {
        for case in conformance_cases(table) {
            let schema = schema_of(&case["schema"]);
            let opts = SchemaOptions {
                resource_root: case["isResourceRoot"].as_bool().unwrap_or(false),
            };
            let Ok(engine) = Engine::for_optional_schema(schema.as_ref(), opts) else {
                continue; // rules this build cannot compile: covered by their own tests
            };
            let input = &case["input"];
            for old in [None, Some(input)] {
                compared += 1;
                if let Some(f) = compare(&engine, input, old) {
                    failures.push(format!("{table} {}: {f}", case["name"]));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 250, "only {compared} comparisons");
}

/// An object for `schema` (as JSON): every property, list items and map values filled
/// (with `null` instead of scalars when `nulls`), plus an unknown `zzUnknown` in
/// every object.
fn sample(schema: &Value, nulls: bool, depth: usize) -> Value {
    if depth > 12 {
        return Value::Null;
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
    let props = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    if ty == "object" || props.is_some() || additional.is_some() {
        let mut out = Map::new();
        for (name, s) in props.into_iter().flatten() {
            out.insert(name.clone(), sample(s, nulls, depth + 1));
        }
        if let Some(a) = additional {
            out.insert("someKey".into(), sample(a, nulls, depth + 1));
        }
        out.insert("zzUnknown".into(), json!({"x": null, "y": [1]}));
        return Value::Object(out);
    }
    if nulls {
        return Value::Null;
    }
    match ty {
        "array" => {
            let item = schema
                .get("items")
                .map_or(json!("x"), |i| sample(i, nulls, depth + 1));
            json!([item.clone(), item])
        }
        "string" => json!("x"),
        "integer" => json!(1),
        "number" => json!(1.5),
        "boolean" => json!(true),
        _ => json!({"zzUnknown": 1}),
    }
}

#[test]
fn corpus_objects() {
    let mut compared = 0;
    let mut with_unknown = 0;
    let mut failures = Vec::new();
    for path in corpus_files().iter().step_by(2) {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(loaded) = crd_runtime::load_crds(&path.display().to_string(), &text) else {
            continue;
        };
        for doc in loaded.crds {
            let crd = doc.crd;
            for v in &crd.spec.versions {
                let Ok(engine) = Engine::for_crd(&crd, &v.name) else {
                    continue;
                };
                let Some(schema) = v.open_api_schema() else {
                    continue;
                };
                let schema = serde_json::to_value(schema).unwrap();
                for nulls in [false, true] {
                    let mut obj = sample(&schema, nulls, 0);
                    obj["apiVersion"] = json!(format!("{}/{}", crd.spec.group, v.name));
                    obj["kind"] = json!(crd.spec.names.kind);
                    obj["metadata"] = json!({"name": "example", "namespace": "default"});
                    let old = obj.clone();
                    for old in [None, Some(&old)] {
                        compared += 1;
                        with_unknown += usize::from(!engine.prune(&mut obj.clone()).is_empty());
                        if let Some(f) = compare(&engine, &obj, old) {
                            failures.push(format!("{} {}: {f}", path.display(), v.name));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 200, "only {compared} comparisons");
    assert!(
        with_unknown * 2 > compared,
        "only {with_unknown} of {compared} had unknown fields"
    );
    println!("corpus: {compared} objects compared, {with_unknown} with unknown fields");
}
