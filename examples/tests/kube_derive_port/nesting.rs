//! Mixing the two derives while migrating one type at a time: crd-derive types inside a
//! kube-derive resource (their `schemars::JsonSchema` is their CRD schema, crd-runtime
//! feature `schemars`), and kube-derive/schemars types inside a crd-derive resource
//! (`#[crd(schemars)]`).

use crd_runtime::{CheckOptions, CrdSchema, CustomResource, validate_crd};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Already migrated: derives `CrdSchema` only.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    /// Attempts before giving up.
    #[crd(minimum = 1, maximum = 10, default = 3)]
    pub attempts: u8,
    /// Called after each failure, by name.
    #[serde(default)]
    #[crd(list_type = "map", list_map_keys = ["name"])]
    pub hooks: Vec<Hook>,
    pub backoff: Backoff,
    #[crd(validation(rule = "self.startsWith('#')", message = "a channel"))]
    pub channel: Option<String>,
    /// Seconds or a duration.
    pub timeout: Option<crd_runtime::IntOrString>,
    /// Kept as written.
    pub labels: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Hook {
    pub name: String,
    pub url: Option<String>,
}

/// How long to wait between attempts.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Backoff {
    Linear,
    Exponential,
}

/// Not migrated yet: kube-derive, with a crd-derive field.
#[derive(kube::CustomResource, schemars::JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "nest.example.com", version = "v1", kind = "Outer", namespaced)]
pub struct OuterSpec {
    pub image: String,
    /// The policy.
    pub retry: Retry,
    pub fallback: Option<Retry>,
    pub retries: Vec<Retry>,
}

fn outer_crd() -> Value {
    serde_json::to_value(<Outer as kube::CustomResourceExt>::crd()).unwrap()
}

fn retry_schema() -> Value {
    serde_json::to_value(Retry::crd_schema()).unwrap()
}

/// What kube-derive's schema transforms do to `Retry`'s schema.
fn kube_transformed(mut retry: Value) -> Value {
    let attempts = &mut retry["properties"]["attempts"];
    attempts["minimum"] = json!(1.0);
    attempts["maximum"] = json!(10.0);
    retry["properties"]["timeout"]["nullable"] = json!(true);
    retry
}

#[test]
fn crd_derive_type_inside_kube_derive_is_structural() {
    let crd = outer_crd();
    let ours: crd_runtime::CustomResourceDefinition = serde_json::from_value(crd.clone()).unwrap();
    assert_eq!(
        validate_crd(&ours, &CheckOptions::v1_create()).strings(),
        Vec::<String>::new()
    );

    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    let props = &spec["properties"];
    // The field: the type's schema with the field's doc comment (schemars puts field docs
    // on the inlined schema, as crd-derive does), after kube-derive's own transforms:
    // they write numbers as floats (`minimum: 1.0`, the same number to the API server)
    // and make optional int-or-string properties nullable.
    let mut retry = kube_transformed(retry_schema());
    retry["description"] = json!("The policy.");
    assert_eq!(props["retry"], retry);
    // `Option<Retry>`: kube-derive marks it nullable, as for any Option.
    let mut fallback = kube_transformed(retry_schema());
    fallback["nullable"] = json!(true);
    assert_eq!(props["fallback"], fallback);
    assert_eq!(props["retries"]["items"], kube_transformed(retry_schema()));
    // The structural parts kube-derive's own schemars path would not write.
    assert_eq!(
        props["retry"]["properties"]["hooks"]["x-kubernetes-list-type"],
        "map"
    );
    assert_eq!(
        props["retry"]["properties"]["timeout"]["x-kubernetes-int-or-string"],
        true
    );
    assert_eq!(spec["required"], json!(["image", "retries", "retry"]));
}

#[test]
fn crd_derive_type_inside_kube_derive_admits_like_the_crd() {
    let crd: crd_runtime::CustomResourceDefinition = serde_json::from_value(outer_crd()).unwrap();
    let engine = crd_runtime::Engine::for_crd(&crd, "v1").unwrap();
    let mut obj = json!({
        "apiVersion": "nest.example.com/v1", "kind": "Outer",
        "metadata": {"name": "o", "namespace": "default"},
        "spec": {"image": "i", "retries": [], "retry": {"backoff": "linear", "channel": "ops", "hooks": []}},
    });
    let errs = engine.admit(&mut obj).unwrap_err();
    assert_eq!(
        errs.strings(),
        ["spec.retry.channel: Invalid value: \"ops\": a channel"]
    );
    obj["spec"]["retry"]["channel"] = json!("#ops");
    engine.admit(&mut obj).unwrap();
    // The default of the crd-derive type applies inside the kube-derive resource.
    assert_eq!(obj["spec"]["retry"]["attempts"], 3);
    let read: Outer = serde_json::from_value(obj).unwrap();
    assert_eq!(read.spec.retry.attempts, 3);
}

/// The other way round: a kube-derive type (`KubeSchema`, from kube-rs's example) inside a
/// crd-derive resource.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "nest.example.com", version = "v1", kind = "Inner", namespaced)]
pub struct InnerSpec {
    #[crd(schemars)]
    pub sub: super::original::crd_derive_schema::FooSubSpec,
    /// A crd-derive type through schemars and back.
    #[crd(schemars)]
    pub retry: Retry,
}

#[test]
fn kube_derive_type_inside_crd_derive_is_structural() {
    use crd_runtime::CustomResourceExt as _;
    let crd = Inner::crd();
    crd_runtime::assert_valid_crd(&crd);
    let crd = serde_json::to_value(&crd).unwrap();
    let props = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert_eq!(
        props["sub"],
        json!({
            "type": "object",
            "properties": {
                "field": {
                    "type": "string",
                    "description": "Heterogenous CEL rule set",
                    "x-kubernetes-validations": [
                        {"rule": "self != 'not legal'"},
                        {"rule": "self != 'not that'"},
                        {"rule": "self != 'also not that'", "message": "some pretty good reason"},
                    ],
                },
                "other": {"type": "string", "nullable": true},
            },
            "required": ["field"],
        })
    );
    // Through `JsonSchema` and `#[crd(schemars)]` the schema is unchanged.
    let mut retry = retry_schema();
    retry["description"] = json!("A crd-derive type through schemars and back.");
    assert_eq!(props["retry"], retry);
}

/// Tagged enums keep serde's "exactly one variant" as `oneOf` branches that each pin the
/// tag to one value. kube-derive's `StructuralSchemaRewriter` moves branch properties up
/// into the parent and panics when two branches give one property different schemas, so
/// such a crd-derive type cannot sit inside a kube-derive type (migrate the kube-derive
/// side first). This test fails when kube-derive changes that.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Schedule {
    Cron { expression: String },
    Every { minutes: u32 },
}

#[derive(kube::CustomResource, schemars::JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "nest.example.com",
    version = "v1",
    kind = "Tagged",
    namespaced
)]
pub struct TaggedSpec {
    pub schedule: Schedule,
}

#[test]
fn tagged_enum_inside_kube_derive_panics_in_kube_derive() {
    let panic = std::panic::catch_unwind(<Tagged as kube::CustomResourceExt>::crd).unwrap_err();
    let message = panic.downcast_ref::<String>().expect("a formatted panic");
    assert!(
        message
            .contains("The schemas for a property used in multiple subschemas must be identical"),
        "{message}"
    );
}

/// Untagged enums (branches that only list `required`) pass kube-derive's rewriter.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum Source {
    Image { image: String },
    Git { repo: String, rev: Option<String> },
}

#[derive(kube::CustomResource, schemars::JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "nest.example.com",
    version = "v1",
    kind = "Untagged",
    namespaced
)]
pub struct UntaggedSpec {
    pub source: Source,
}

#[test]
fn untagged_enum_inside_kube_derive_is_structural() {
    let crd = serde_json::to_value(<Untagged as kube::CustomResourceExt>::crd()).unwrap();
    let ours: crd_runtime::CustomResourceDefinition = serde_json::from_value(crd.clone()).unwrap();
    assert_eq!(
        validate_crd(&ours, &CheckOptions::v1_create()).strings(),
        Vec::<String>::new()
    );
    let source = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["source"];
    assert_eq!(*source, serde_json::to_value(Source::crd_schema()).unwrap());
}
