//! `validate.json`: upstream's `TestValidateCustomResource` and `TestItemsProperty`,
//! compared on the exact API-server error strings.
//!
//! Cases marked `requiresCEL` carry `x-kubernetes-validations`; their `failed rule`
//! errors come from the CEL pass, which is not part of this engine. For them only
//! the non-CEL expectations are checked (no other error may appear), and they are
//! counted and printed as skipped.

use crd_runtime::engine::{Engine, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, report, schema_of};

#[test]
fn validate_cases() {
    let cases = conformance_cases("validate.json");
    let mut failures = Vec::new();
    let mut cel_skipped = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema = schema_of(&case["schema"]);
        let engine =
            Engine::for_optional_schema(schema.as_ref(), SchemaOptions::default()).unwrap();
        let errs = match case.get("oldObject") {
            Some(old) => engine.validate_update(&case["input"], old),
            None => engine.validate(&case["input"]),
        };
        let mut got = errs.strings();
        got.sort();
        let mut want: Vec<String> = match &case["expectedFieldErrors"] {
            serde_json::Value::Null => Vec::new(),
            v => serde_json::from_value(v.clone()).unwrap(),
        };
        if case["requiresCEL"].as_bool().unwrap_or(false) {
            cel_skipped.push(name.to_string());
            want.retain(|e| !e.contains("failed rule"));
        }
        want.sort();
        if got != want {
            failures.push(format!("{name}:\n  got  {got:#?}\n  want {want:#?}"));
        }
    }
    println!(
        "validate.json: {} cases need CEL; their `failed rule` errors are not checked here: {cel_skipped:?}",
        cel_skipped.len()
    );
    assert_eq!(cel_skipped.len(), 6, "requiresCEL count changed");
    report("validate.json", cases.len(), 83, &failures);
}
