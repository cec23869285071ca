//! The attributes crd-gen needs to reproduce real CRDs exactly: `format = null`,
//! `type = null`, `property(schema = ...)`, `omit_spec`, the status subresource
//! without a status type, and full JSONPath in printer columns.
#![allow(dead_code)]

use crd_runtime::{CrdSchema, CustomResource, CustomResourceExt};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "example.com",
    version = "v1",
    kind = "Report",
    status_subresource = true,
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp"),
    root(
        omit_spec,
        property(name = "results", type = "array", schema = json!({"items": {"type": "object", "properties": {"a": {"type": "string"}}}})),
        property(name = "metadata", type = "object")
    )
)]
pub struct ReportSpec {}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "example.com",
    version = "v1",
    kind = "Probe",
    status = ProbeStatus,
    printcolumn(name = "Ready", type = "string", json_path = ".status.conditions[?(@.type==\"Ready\")].status"),
    selectable_field = ".spec.targets[*].name"
)]
pub struct ProbeSpec {
    pub targets: Vec<Widths>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct ProbeStatus {
    pub conditions: Vec<serde_json::Value>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Widths {
    #[crd(format = null)]
    pub plain: i64,
    #[crd(format = "int32")]
    pub narrow: i32,
    #[crd(type = null)]
    pub untyped: String,
}

#[test]
fn report_crd() {
    let crd = serde_json::to_value(Report::crd()).unwrap();
    let v = &crd["spec"]["versions"][0];
    assert_eq!(v["subresources"], json!({"status": {}}));
    let root = &v["schema"]["openAPIV3Schema"];
    assert!(root["properties"].get("spec").is_none(), "{root}");
    assert_eq!(
        root["properties"]["results"],
        json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}})
    );
}

#[test]
fn full_json_paths_in_columns() {
    let crd = serde_json::to_value(Probe::crd()).unwrap();
    let v = &crd["spec"]["versions"][0];
    assert_eq!(
        v["additionalPrinterColumns"][0]["jsonPath"],
        ".status.conditions[?(@.type==\"Ready\")].status"
    );
    assert_eq!(
        v["selectableFields"][0]["jsonPath"],
        ".spec.targets[*].name"
    );
}

#[test]
fn unset_keywords() {
    let s = serde_json::to_value(Widths::crd_schema()).unwrap();
    assert_eq!(s["properties"]["plain"], json!({"type": "integer"}));
    assert_eq!(
        s["properties"]["narrow"],
        json!({"type": "integer", "format": "int32"})
    );
    assert_eq!(s["properties"]["untyped"], json!({}));
}
