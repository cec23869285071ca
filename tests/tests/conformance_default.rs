//! `default.json`: upstream's `TestDefault` and `TestPruneNonNullableNullsWithoutDefaults`.

use crd_runtime::engine::{Engine, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, report, schema_of};

#[test]
fn default_cases() {
    let cases = conformance_cases("default.json");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema = schema_of(&case["schema"]);
        let engine =
            Engine::for_optional_schema(schema.as_ref(), SchemaOptions::default()).unwrap();
        let mut v = case["input"].clone();
        match case["operation"].as_str().unwrap() {
            "default" => engine.default(&mut v),
            "pruneNonNullableNullsWithoutDefaults" => engine.prune_nulls(&mut v),
            other => panic!("{name}: unknown operation {other}"),
        }
        if v != case["expected"] {
            failures.push(format!("{name}: got {v}, want {}", case["expected"]));
        }
    }
    report("default.json", cases.len(), 17, &failures);
}
