//! CEL evaluation per object on the corpus's most rule-heavy CRDs (issue 34: "CEL
//! evaluation time per object before and after").
//!
//! For each CRD, one object is generated from its storage version's schema (every
//! property down to a few levels, two items per list, two entries per map, values
//! that satisfy enums and bounds), then pruned and defaulted by the engine as the
//! API server stores it. The benchmarks time `cel::Validator::validate` on it alone
//! (create) and with itself as the old object (update: transition rules run too).
//! Generation is deterministic, so runs before and after a change time the same
//! work; the setup prints each object's size, the rules the storage version holds
//! and how many rule errors the object gets (a changed count means changed work).
//!
//! Run: `cargo bench -p crd-runtime --bench cel_corpus`

use std::path::PathBuf;
use std::sync::LazyLock;

use crd_runtime::cel::Validator;
use crd_runtime::engine::Engine;
use crd_runtime::load::load_crds;
use divan::Bencher;
use serde_json::{Map, Value, json};

fn main() {
    // Generate and print the cases before timing: outside the first sample.
    LazyLock::force(&CASES);
    divan::main();
}

/// The corpus CRDs with the most `x-kubernetes-validations` rules (all versions).
const CRDS: &[&str] = &[
    "istio/destinationrules.networking.istio.io.yaml",
    "grafana-operator/grafanas.grafana.integreatly.org.yaml",
    "istio/sidecars.networking.istio.io.yaml",
    "istio/serviceentries.networking.istio.io.yaml",
];

/// Levels below `spec` where objects stop getting optional properties.
const DEPTH_BUDGET: usize = 6;

struct Case {
    validator: Validator,
    object: Value,
}

static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| CRDS.iter().map(|p| case(p)).collect());

fn case(path: &str) -> Case {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/crds")
        .join(path);
    let text = std::fs::read_to_string(&file).expect("corpus CRD (../shared beside the checkout)");
    let crd = load_crds(path, &text).expect("loads").crds.remove(0).crd;
    let version = crd
        .spec
        .versions
        .iter()
        .find(|v| v.storage)
        .expect("a storage version");
    let schema = version.open_api_schema().expect("a schema");
    let (validator, problems) = Validator::new(schema, true);
    assert!(problems.is_empty(), "{path}: {problems:?}");
    let validator = validator.expect("rules");
    let mut object = json!({
        "apiVersion": format!("{}/{}", crd.spec.group, version.name),
        "kind": crd.spec.names.kind,
        "metadata": {"name": "bench", "namespace": "default"},
    });
    let spec = serde_json::to_value(schema).expect("schema json");
    if let Some(s) = spec.pointer("/properties/spec") {
        object["spec"] = generate(s, "spec", 1).unwrap_or_else(|| json!({}));
    }
    let engine = Engine::for_crd(&crd, &version.name).expect("engine");
    engine.prune(&mut object);
    engine.default(&mut object);
    let errors = validator.validate(&object, None).len();
    eprintln!(
        "{path} {}: {} bytes, {} rules, {errors} rule errors",
        version.name,
        object.to_string().len(),
        count_rules(&spec),
    );
    Case { validator, object }
}

fn count_rules(schema: &Value) -> usize {
    match schema {
        Value::Object(m) => {
            let here = m
                .get("x-kubernetes-validations")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            here + m.values().map(count_rules).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(count_rules).sum(),
        _ => 0,
    }
}

/// A value for schema `s` (a property called `name`), `None` when none fits.
fn generate(s: &Value, name: &str, depth: usize) -> Option<Value> {
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Some(json!("1"));
    }
    if let Some(first) = s.get("enum").and_then(|e| e.get(0)) {
        return Some(first.clone());
    }
    match s.get("type").and_then(Value::as_str) {
        Some("object") => Some(object(s, name, depth)),
        Some("array") => {
            let items = s.get("items")?;
            let n = if depth <= DEPTH_BUDGET { 2 } else { 1 };
            let mut out: Vec<Value> = (0..n)
                .filter_map(|_| generate(items, name, depth + 1))
                .collect();
            // Distinct items, as set and map lists require.
            for (i, item) in out.iter_mut().enumerate() {
                match item {
                    Value::String(v) => v.push_str(&format!("-{i}")),
                    Value::Object(m) => {
                        if let Some(Value::String(v)) = m.get_mut("name") {
                            v.push_str(&format!("-{i}"));
                        }
                    }
                    _ => {}
                }
            }
            out.dedup();
            Some(Value::Array(out))
        }
        Some("string") => Some(json!(string_for(s, name))),
        Some("integer") => {
            let lo = s.get("minimum").and_then(Value::as_i64).unwrap_or(0);
            Some(json!(lo.max(1)))
        }
        Some("number") => Some(json!(0.5)),
        Some("boolean") => Some(json!(false)),
        _ if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) => {
            Some(json!({"key": "value"}))
        }
        _ => None,
    }
}

fn object(s: &Value, name: &str, depth: usize) -> Value {
    let mut out = Map::new();
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (k, sub) in props {
            if depth > DEPTH_BUDGET && !required.contains(&k.as_str()) {
                continue;
            }
            if let Some(v) = generate(sub, k, depth + 1) {
                out.insert(k.clone(), v);
            }
        }
    } else if let Some(sub) = s.get("additionalProperties").filter(|a| a.is_object())
        && let Some(v) = generate(sub, name, depth + 1)
    {
        out.insert("app.kubernetes.io/name".into(), v.clone());
        out.insert("team".into(), v);
    }
    Value::Object(out)
}

fn string_for(s: &Value, name: &str) -> String {
    match s.get("format").and_then(Value::as_str) {
        Some("date-time") => return "2024-05-01T10:00:00Z".into(),
        Some("duration") => return "30s".into(),
        _ => {}
    }
    let mut v = format!("web-{}", name.to_lowercase());
    if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
        v.truncate(max as usize);
    }
    let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    while v.len() < min {
        v.push('x');
    }
    v
}

fn case_of(path: &str) -> &'static Case {
    let i = CRDS.iter().position(|p| *p == path).expect("a listed CRD");
    &CASES[i]
}

#[divan::bench(args = CRDS)]
fn create(bencher: Bencher, path: &str) {
    let c = case_of(path);
    bencher.bench_local(|| c.validator.validate(&c.object, None).len());
}

#[divan::bench(args = CRDS)]
fn update(bencher: Bencher, path: &str) {
    let c = case_of(path);
    bencher.bench_local(|| c.validator.validate(&c.object, Some(&c.object)).len());
}
