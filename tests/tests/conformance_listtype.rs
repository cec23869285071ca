//! `listtype.json`: upstream's `TestValidateListSetsAndMaps`.

use crd_runtime::engine::{Engine, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, report, schema_of};

/// Upstream passes the root path `root`; the API server passes none.
fn strip_root(field: &str) -> String {
    field
        .strip_prefix("root.")
        .or_else(|| field.strip_prefix("root"))
        .unwrap_or(field)
        .to_string()
}

#[test]
fn listtype_cases() {
    let cases = conformance_cases("listtype.json");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema = schema_of(&case["schema"]);
        let engine =
            Engine::for_optional_schema(schema.as_ref(), SchemaOptions::default()).unwrap();
        let errs = engine.validate_list_types(&case["input"]);
        let mut got: Vec<(String, String)> = errs
            .iter()
            .map(|e| (e.type_.reason().to_string(), e.field.to_string()))
            .collect();
        got.sort();
        let mut want: Vec<(String, String)> = case["expectedErrors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["type"].as_str().unwrap().to_string(),
                    strip_root(e["field"].as_str().unwrap()),
                )
            })
            .collect();
        want.sort();
        if got != want || errs.is_empty() != case["valid"].as_bool().unwrap() {
            failures.push(format!("{name}: got {got:?}, want {want:?}"));
        }
    }
    report("listtype.json", cases.len(), 17, &failures);
}
