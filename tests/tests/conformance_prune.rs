//! `prune.json`: upstream's `TestPrune`.

use crd_runtime::engine::{Engine, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, report, schema_of};

#[test]
fn prune_cases() {
    let cases = conformance_cases("prune.json");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema = schema_of(&case["schema"]);
        let opts = SchemaOptions {
            resource_root: case["isResourceRoot"].as_bool().unwrap(),
        };
        let engine = Engine::for_optional_schema(schema.as_ref(), opts).unwrap();
        let mut v = case["input"].clone();
        let pruned = engine.prune(&mut v);
        if v != case["expected"] {
            failures.push(format!("{name}: got {v}, want {}", case["expected"]));
        }
        let want: Vec<String> = serde_json::from_value(case["expectedPruned"].clone()).unwrap();
        if pruned != want {
            failures.push(format!("{name}: pruned {pruned:?}, want {want:?}"));
        }
    }
    report("prune.json", cases.len(), 11, &failures);
}
