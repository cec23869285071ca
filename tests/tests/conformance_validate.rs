//! `validate.json`: upstream's `TestValidateCustomResource` and `TestItemsProperty`,
//! compared on the exact API-server error strings.
//!
//! Cases marked `requiresCEL` carry `x-kubernetes-validations`; the engine runs
//! them itself. Cases with `k8sCompatibilityVersion` run with that release's rules,
//! the others with the newest release's (the tables are from 2026).

use crd_runtime::KubeVersion;
use crd_runtime::engine::{Engine, EngineOptions, SchemaOptions};
use crd_toolkit_tests::{conformance_cases, report, schema_of};

#[test]
fn validate_cases() {
    let cases = conformance_cases("validate.json");
    let mut failures = Vec::new();
    let mut cel_cases = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let schema = schema_of(&case["schema"]);
        let version = match case.get("k8sCompatibilityVersion") {
            Some(v) => v.as_str().unwrap().parse::<KubeVersion>().unwrap(),
            None => KubeVersion::NEWEST,
        };
        let engine = Engine::for_schema_with(
            schema.as_ref(),
            SchemaOptions::default(),
            EngineOptions::for_version(version),
        )
        .unwrap();
        assert!(
            engine.rule_problems().is_empty(),
            "{name}: {:?}",
            engine.rule_problems()
        );
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
    // The k8s-name formats are checked from 1.34 only: before, they were dropped.
    for case in cases
        .iter()
        .filter(|c| c.get("k8sCompatibilityVersion").is_some())
    {
        let schema = schema_of(&case["schema"]);
        let v133 = EngineOptions::for_version(KubeVersion::new(33).unwrap());
        let engine =
            Engine::for_schema_with(schema.as_ref(), SchemaOptions::default(), v133).unwrap();
        assert!(
            engine.validate(&case["input"]).is_empty(),
            "{}",
            case["name"]
        );
    }
    report("validate.json", cases.len(), 83, &failures);
}
