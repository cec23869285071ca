//! `#[crd(schemars)]`: fields whose types only implement `schemars::JsonSchema`, inside a
//! derived CustomResource (feature `schemars`). Run with
//! `cargo test -p crd-toolkit-examples --features schemars --test schemars_fields`.

use crd_runtime::{CheckOptions, CrdSchema, CustomResource, CustomResourceExt, validate_crd};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[path = "../../tests/src/test_crd.rs"]
mod test_crd;
use test_crd::TestCrd;

/// As a third-party crate would define it: schemars, no crd-toolkit.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RetryPolicy {
    /// Attempts before giving up.
    #[schemars(range(min = 1, max = 10))]
    pub attempts: u8,
    /// Where failures are reported.
    #[schemars(email)]
    pub notify: Option<String>,
    pub backoff: Backoff,
}

#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Backoff {
    Linear,
    Exponential,
}

/// A job with a schemars-typed retry policy.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(group = "batch.example.com", version = "v1", kind = "Job", namespaced)]
pub struct JobSpec {
    /// The image to run.
    pub image: String,
    /// How to retry.
    #[crd(schemars)]
    pub retry: RetryPolicy,
    /// An optional second policy.
    #[crd(schemars)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<RetryPolicy>,
}

#[test]
fn crd_is_structural_with_schemars_keywords() {
    let crd = Job::crd();
    crd_runtime::assert_valid_crd(&crd);
    let v = serde_json::to_value(&crd).unwrap();
    let spec = &v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(spec["required"], json!(["image", "retry"]));
    let retry = &spec["properties"]["retry"];
    assert_eq!(retry["description"], "How to retry.");
    assert_eq!(retry["properties"]["attempts"]["maximum"], 10);
    assert_eq!(
        retry["properties"]["backoff"]["enum"],
        json!(["linear", "exponential"])
    );
    assert!(spec["properties"]["fallback"].get("nullable").is_none());
}

#[test]
fn objects_are_validated_with_the_schemars_constraints() {
    let mut job = Job::new(
        "nightly",
        JobSpec {
            image: "busybox".into(),
            retry: RetryPolicy {
                attempts: 20,
                notify: None,
                backoff: Backoff::Linear,
            },
            fallback: None,
        },
    );
    let errors = job.admit().unwrap_err().to_string();
    assert!(
        errors.contains("spec.retry.attempts: Invalid value: 20: spec.retry.attempts in body should be less than or equal to 10"),
        "{errors}"
    );
    job.spec.retry.attempts = 3;
    job.admit().unwrap();
}

#[derive(JsonSchema, Serialize, Deserialize)]
pub struct Node {
    pub children: Vec<Node>,
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct TreeSpec {
    #[crd(schemars)]
    pub root: Node,
}

#[test]
fn a_schema_that_cannot_be_structural_fails_the_crd_check_with_its_path() {
    let schema = TreeSpec::crd_schema();
    let root = json!({"type": "object", "properties": {"spec": schema}});
    let crd =
        serde_json::from_str(&TestCrd::new("example.com", "Tree").json(&root.to_string())).unwrap();
    let errors = validate_crd(&crd, &CheckOptions::v1_create()).to_string();
    assert!(
        errors.contains("properties[spec].properties[root].type: Unsupported value"),
        "{errors}"
    );
    assert!(errors.contains("`Node` contains itself"), "{errors}");
}
