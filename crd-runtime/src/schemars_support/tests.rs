use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::*;
use crate::check::{CheckOptions, validate_crd};

fn schema_of<T: JsonSchema>() -> Value {
    serde_json::to_value(structural_schema::<T>().unwrap()).unwrap()
}

/// The CRD checks on a CRD whose spec has `schema`.
fn crd_errors(schema: &JSONSchemaProps) -> String {
    let crd = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": schema}}}}]}
    }))
    .unwrap();
    validate_crd(&crd, &CheckOptions::v1_create()).to_string()
}

#[derive(JsonSchema, Serialize, Deserialize)]
#[allow(dead_code)]
struct Inner {
    /// The name.
    #[schemars(length(min = 1, max = 63), regex(pattern = r"^[a-z]+$"))]
    name: String,
    #[schemars(email)]
    contact: Option<String>,
}

#[derive(JsonSchema, Serialize, Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
enum Mode {
    /// Fast.
    Fast,
    /// Safe.
    Safe,
}

#[derive(JsonSchema, Serialize, Deserialize)]
#[allow(dead_code)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Source {
    Git { url: String, branch: Option<String> },
    Bucket { bucket: String },
}

#[derive(JsonSchema, Serialize, Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct Config {
    inner: Inner,
    maybe_inner: Option<Inner>,
    #[schemars(range(min = 1, max = 10))]
    replicas: u8,
    mode: Mode,
    source: Source,
    labels: BTreeMap<String, String>,
    tags: Vec<Option<String>>,
    anything: Value,
}

#[test]
fn refs_are_inlined_and_keywords_kept() {
    let s = schema_of::<Config>();
    let inner = &s["properties"]["inner"];
    assert_eq!(inner["type"], "object");
    assert_eq!(inner["properties"]["name"]["minLength"], 1);
    assert_eq!(inner["properties"]["name"]["maxLength"], 63);
    assert_eq!(inner["properties"]["name"]["pattern"], "^[a-z]+$");
    assert_eq!(inner["properties"]["name"]["description"], "The name.");
    assert_eq!(inner["properties"]["contact"]["format"], "email");
    assert_eq!(inner["properties"]["contact"]["nullable"], true);
    assert_eq!(s["properties"]["maybeInner"]["nullable"], true);
    assert_eq!(
        s["properties"]["maybeInner"]["properties"]["name"]["type"],
        "string"
    );
    assert_eq!(s["properties"]["replicas"]["maximum"], 10);
    assert_eq!(
        s["properties"]["labels"]["additionalProperties"]["type"],
        "string"
    );
    assert_eq!(s["properties"]["tags"]["items"]["nullable"], true);
    assert_eq!(
        s["properties"]["anything"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert!(s.get("title").is_none());
    assert!(s.get("$defs").is_none() && s.get("$schema").is_none());
}

#[test]
fn unit_enums_become_enums_and_tagged_enums_are_hoisted() {
    let s = schema_of::<Config>();
    let mode = &s["properties"]["mode"];
    assert_eq!(mode["type"], "string");
    assert_eq!(mode["enum"], json!(["fast", "safe"]));
    let source = &s["properties"]["source"];
    assert_eq!(source["type"], "object");
    let fields: Vec<&String> = source["properties"].as_object().unwrap().keys().collect();
    assert_eq!(fields, ["branch", "bucket", "kind", "url"]);
    assert_eq!(
        source["properties"]["kind"]["enum"],
        json!(["git", "bucket"])
    );
    let alternatives = source["oneOf"].as_array().unwrap();
    assert_eq!(alternatives.len(), 2);
    assert!(
        alternatives[0]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("url"))
    );
    assert!(
        alternatives[1]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("bucket"))
    );
}

#[test]
fn the_result_is_a_valid_structural_schema() {
    let schema = structural_schema::<Config>().unwrap();
    assert_eq!(crd_errors(&schema), "");
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Tree {
    children: Vec<Tree>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
enum Mixed {
    Number(i64),
    Text(String),
    List(Vec<String>),
}

#[test]
fn what_cannot_be_structural_is_an_error_with_a_path() {
    let e = structural_schema::<Tree>().unwrap_err();
    assert_eq!(e.path, ".children[*]");
    assert!(e.message.contains("`Tree` contains itself"), "{e}");
    let e = structural_schema::<Mixed>().unwrap_err();
    assert!(e.message.contains("different types"), "{e}");
    // The field schema of a refused type makes the CRD invalid, naming the field.
    let schema = field_schema::<Tree>("Tree");
    let errors = crd_errors(&schema);
    assert!(
        errors.contains("properties[spec].type: Unsupported value"),
        "{errors}"
    );
    assert!(
        errors.contains("`Tree` has no structural schema at .children[*]"),
        "{errors}"
    );
}

#[test]
fn unknown_keywords_are_refused_not_dropped() {
    let e = structural_from_json_schema(&json!({
        "type": "object",
        "properties": {"a": {"type": "string", "propertyNames": {"pattern": "x"}}}
    }))
    .unwrap_err();
    assert_eq!(e.path, ".a");
    assert!(e.message.contains("`propertyNames`"), "{e}");
    let e =
        structural_from_json_schema(&json!({"type": "array", "prefixItems": [{"type": "string"}]}))
            .unwrap_err();
    assert!(e.message.contains("`prefixItems`"), "{e}");
}

#[test]
fn draft_2020_exclusive_bounds_and_unique_items() {
    let s = structural_from_json_schema(&json!({
        "type": "object",
        "properties": {
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "const": {"const": "fixed"},
            "int_or_string": {"type": ["integer", "string"]}
        }
    }))
    .unwrap();
    let s = serde_json::to_value(s).unwrap();
    let ratio = &s["properties"]["ratio"];
    assert_eq!(
        (ratio["minimum"].clone(), ratio["exclusiveMinimum"].clone()),
        (json!(0), json!(true))
    );
    assert_eq!(s["properties"]["tags"]["x-kubernetes-list-type"], "set");
    assert_eq!(s["properties"]["const"]["enum"], json!(["fixed"]));
    assert_eq!(
        s["properties"]["int_or_string"]["x-kubernetes-int-or-string"],
        true
    );
}
