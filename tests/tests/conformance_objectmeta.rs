//! `objectmeta.json`: upstream's `TestCoerce`, `TestValidateEmbeddedResource`, `TestValidate`.

use crd_runtime::__private::objectmeta;
use crd_runtime::engine::{Engine, SchemaOptions};
use crd_runtime::{ErrorList, Path};
use crd_toolkit_tests::{conformance_cases, report, schema_of};
use serde_json::Value;

fn pairs(errs: &ErrorList) -> Vec<(String, String)> {
    let mut v: Vec<_> = errs
        .iter()
        .map(|e| (e.type_.reason().to_string(), e.field.to_string()))
        .collect();
    v.sort();
    v
}

fn expected_pairs(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<_> = v
        .as_array()
        .map(|a| a.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["field"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn objectmeta_cases() {
    let cases = conformance_cases("objectmeta.json");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let opts = SchemaOptions {
            resource_root: case["isResourceRoot"].as_bool().unwrap_or(false),
        };
        match case["operation"].as_str().unwrap() {
            "coerce" => {
                let schema = schema_of(&case["schema"]);
                let engine = Engine::for_optional_schema(schema.as_ref(), opts).unwrap();
                let mut v = case["input"].clone();
                let drop = case["dropInvalidFields"].as_bool().unwrap();
                let res = engine.coerce_metadata(&mut v, drop);
                match (&res, case["expectedError"].is_null()) {
                    (Ok(()), true) if v != case["expected"] => {
                        failures.push(format!("{name}: got {v}, want {}", case["expected"]))
                    }
                    (Ok(()), true) => {}
                    (Err(e), true) => failures.push(format!("{name}: unexpected error {e}")),
                    (Ok(()), false) => failures.push(format!("{name}: expected an error")),
                    (Err(_), false) => {}
                }
            }
            "validateEmbeddedResource" => {
                let mut errs = ErrorList::new();
                let map = case["input"].as_object().unwrap();
                objectmeta::validate_embedded_resource(&Path::root(), map, &mut errs);
                let (got, want) = (pairs(&errs), expected_pairs(&case["expectedErrors"]));
                if got != want {
                    failures.push(format!("{name}: got {got:?} ({errs}), want {want:?}"));
                }
            }
            "validate" => {
                let schema = schema_of(&case["schema"]);
                let engine = Engine::for_optional_schema(schema.as_ref(), opts).unwrap();
                let errs = engine.validate_embedded(&case["input"]);
                let (got, want) = (pairs(&errs), expected_pairs(&case["expectedErrors"]));
                if got != want {
                    failures.push(format!("{name}: got {got:?}, want {want:?}"));
                }
            }
            other => panic!("{name}: unknown operation {other}"),
        }
    }
    report("objectmeta.json", cases.len(), 20, &failures);
}
