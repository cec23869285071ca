//! `validate.json`: upstream's `TestValidateCustomResource` and `TestItemsProperty`,
//! compared on the exact API-server error strings.
//!
//! Cases marked `requiresCEL` carry `x-kubernetes-validations`; their `failed rule`
//! errors come from the CEL pass ([`CelPass`]), added to every engine here.

use std::sync::Arc;

use crd_runtime::cel::CelPass;
use crd_runtime::engine::{Engine, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, report, schema_of};

#[test]
fn validate_cases() {
    let cases = conformance_cases("validate.json");
    let mut failures = Vec::new();
    let mut cel_cases = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema = schema_of(&case["schema"]);
        let mut engine =
            Engine::for_optional_schema(schema.as_ref(), SchemaOptions::default()).unwrap();
        if let Some(s) = &schema {
            let (pass, problems) = CelPass::new(s, false);
            assert!(problems.is_empty(), "{name}: {problems:?}");
            engine = engine.with_pass(Arc::new(pass));
        }
        let errs = match case.get("oldObject") {
            Some(old) => engine.validate_update(&case["input"], old),
            None => engine.validate(&case["input"]),
        };
        let mut got = errs.strings();
        got.sort();
        if case["requiresCEL"].as_bool().unwrap_or(false) {
            cel_cases += 1;
        }
        let mut want: Vec<String> = match &case["expectedFieldErrors"] {
            serde_json::Value::Null => Vec::new(),
            v => serde_json::from_value(v.clone()).unwrap(),
        };
        want.sort();
        if got != want {
            failures.push(format!("{name}:\n  got  {got:#?}\n  want {want:#?}"));
        }
    }
    assert_eq!(cel_cases, 6, "requiresCEL count changed");
    report("validate.json", cases.len(), 83, &failures);
}
