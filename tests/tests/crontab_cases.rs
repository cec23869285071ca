//! `fixtures/crontab/cases.yaml`: what the Kubernetes documentation promises, run
//! through the engine twice, dynamically (`serde_json::Value`) and typed (a serde
//! `CronTab` struct); both paths must agree on every case.

use std::collections::BTreeMap;

use crd_runtime::engine::{AdmitError, Engine, SchemaOptions};
use crd_runtime::{ErrorList, JSONSchemaProps};
use crd_toolkit_tests::crontab_dir;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct CronTab {
    #[serde(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<BTreeMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec: Option<CronTabSpec>,
    /// Unknown top-level fields, so that pruning is observable on the typed path.
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct CronTabSpec {
    #[serde(rename = "cronSpec", default, skip_serializing_if = "Option::is_none")]
    cron_spec: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<i64>,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

fn engine_for(case: &Value) -> Engine {
    if let Some(file) = case["crd"].as_str() {
        let path = crontab_dir().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let crd = crd_runtime::load_crds(file, &text)
            .unwrap()
            .crds
            .remove(0)
            .crd;
        Engine::for_crd(&crd, "v1").unwrap()
    } else {
        let schema: JSONSchemaProps = serde_json::from_value(case["schema"].clone()).unwrap();
        Engine::for_schema(&schema, SchemaOptions::default()).unwrap()
    }
}

fn details(errs: &ErrorList) -> Vec<String> {
    let mut v: Vec<String> = errs.iter().map(|e| e.detail.clone()).collect();
    v.sort();
    v
}

/// The typed path: deserialize into the Rust type, admit, serialize back.
fn typed(engine: &Engine, case: &Value) -> Result<Value, ErrorList> {
    let input = case["input"].clone();
    let out = if case["crd"].is_string() {
        let obj: CronTab = serde_json::from_value(input).unwrap();
        engine
            .admit_typed(&obj)
            .map(|o| serde_json::to_value(o).unwrap())
    } else {
        let obj: BTreeMap<String, Value> = serde_json::from_value(input).unwrap();
        engine
            .admit_typed(&obj)
            .map(|o| serde_json::to_value(o).unwrap())
    };
    out.map_err(|e| match e {
        AdmitError::Invalid(errs) => errs,
        other => panic!("{}: {other}", case["name"]),
    })
}

#[test]
fn crontab_cases_dynamic_and_typed() {
    let text = std::fs::read_to_string(crontab_dir().join("cases.yaml")).unwrap();
    let doc = crd_runtime::parse_documents("cases.yaml", &text)
        .unwrap()
        .remove(0);
    let cases = doc["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let engine = engine_for(case);
        let mut dynamic = case["input"].clone();
        let dyn_result = engine.admit(&mut dynamic);
        let typed_result = typed(&engine, case);
        match (&dyn_result, &typed_result) {
            (Ok(()), Ok(t)) if *t != dynamic => {
                failures.push(format!("{name}: typed {t} != dynamic {dynamic}"))
            }
            (Err(a), Err(b)) if a != b => {
                failures.push(format!("{name}: typed errors {b} != dynamic {a}"))
            }
            (Ok(()), Err(e)) | (Err(e), Ok(_)) => {
                failures.push(format!("{name}: the paths disagree: {e}"))
            }
            _ => {}
        }
        if let Some(expect) = case.get("expect") {
            match &dyn_result {
                Ok(()) if dynamic != *expect => {
                    failures.push(format!("{name}: got {dynamic}, want {expect}"))
                }
                Ok(()) => {}
                Err(e) => failures.push(format!("{name}: unexpected errors {e}")),
            }
        }
        if let Some(errors) = case.get("errors") {
            let mut want: Vec<String> = serde_json::from_value(errors.clone()).unwrap();
            want.sort();
            let got = dyn_result.as_ref().err().map(details).unwrap_or_default();
            if got != want {
                failures.push(format!("{name}: errors {got:?}, want {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(cases.len(), 10);
    println!(
        "cases.yaml: {} of {} cases passed (dynamic and typed)",
        cases.len(),
        cases.len()
    );
}
