//! controller-gen's markers as `#[crd(...)]` attributes: `immutable` (`+k8s:immutable`),
//! the one-of groups (`+kubebuilder:validation:{AtMostOneOf,ExactlyOneOf,AtLeastOneOf}`),
//! `required`/`optional`, `title`, `external_docs`, unit enums (`+k8s:enum`). Each is
//! checked in the emitted schema (the rule and message text of controller-gen v0.21), in
//! the CRD checks the API server runs, and in admission (create and update).

use std::collections::BTreeMap;

use crd_runtime::model::ValidationRule;
use crd_runtime::{
    CrdSchema, CustomResource, CustomResourceExt, JSONSchemaProps, assert_valid_crd,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Set once, never changed: immutable as a type, wherever it is used.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(immutable)]
pub struct Seal {
    pub key: String,
}

/// A unit-only enum is controller-gen's `+k8s:enum` string type.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Protocol {
    #[serde(rename = "TCP")]
    Tcp,
    #[serde(rename = "UDP")]
    Udp,
}

/// A group on a `CrdSchema` type, with Rust field names and a rename.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[crd(exactly_one_of(config_map, secret))]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub config_map: Option<String>,
    #[serde(rename = "secretName")]
    pub secret: Option<String>,
}

/// An endpoint with controller-gen's v0.19–v0.21 markers.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "markers.example.com", version = "v1", kind = "Endpoint", namespaced,
      spec_schema(validation(rule = "self.port > 0", message = "port must be positive"),
                  at_most_one_of = ["http", "grpc"], exactly_one_of(email, phone),
                  at_least_one_of(http, grpc, raw)))]
#[serde(rename_all = "camelCase")]
pub struct EndpointSpec {
    #[crd(immutable)]
    pub port: i32,
    #[crd(immutable)]
    pub target_port: Option<i32>,
    /// Optional in the schema because the API server fills the default in.
    #[crd(immutable, default = "TCP")]
    pub protocol: Protocol,
    #[crd(immutable)]
    #[serde(rename = "x-tag")]
    pub tag: Option<String>,
    #[crd(
        title = "HTTP endpoint",
        external_docs(url = "https://example.com/http", description = "HTTP")
    )]
    pub http: Option<String>,
    pub grpc: Option<String>,
    pub raw: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    #[crd(optional)]
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[crd(required)]
    pub owner: Option<String>,
    pub seal: Option<Seal>,
    pub source: Option<Source>,
}

fn spec_schema() -> JSONSchemaProps {
    let crd = Endpoint::crd();
    crd.spec.versions[0]
        .open_api_schema()
        .unwrap()
        .properties
        .as_ref()
        .unwrap()["spec"]
        .as_ref()
        .clone()
}

fn rules(s: &JSONSchemaProps) -> Vec<(String, String)> {
    s.x_kubernetes_validations
        .iter()
        .flatten()
        .map(|r: &ValidationRule| (r.rule.clone(), r.message.clone().unwrap_or_default()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_crd_passes_the_api_servers_checks() {
    assert_valid_crd(&Endpoint::crd());
}

#[test]
fn rules_are_controller_gens() {
    let spec = spec_schema();
    assert_eq!(
        rules(&spec),
        pairs(&[
            // After the properties, for the optional immutable fields, in field order.
            (
                "!has(oldSelf.targetPort) || has(self.targetPort)",
                "field targetPort is immutable once set"
            ),
            (
                "!has(oldSelf.protocol) || has(self.protocol)",
                "field protocol is immutable once set"
            ),
            (
                "!has(oldSelf.x__dash__tag) || has(self.x__dash__tag)",
                "field x-tag is immutable once set"
            ),
            // Then the node's own keywords, in attribute order.
            ("self.port > 0", "port must be positive"),
            (
                "[has(self.http),has(self.grpc)].filter(x,x==true).size() <= 1",
                "at most one of the fields in [http grpc] may be set"
            ),
            (
                "[has(self.email),has(self.phone)].filter(x,x==true).size() == 1",
                "exactly one of the fields in [email phone] must be set"
            ),
            (
                "[has(self.http),has(self.grpc),has(self.raw)].filter(x,x==true).size() >= 1",
                "at least one of the fields in [http grpc raw] must be set"
            ),
        ])
    );
    let props = spec.properties.as_ref().unwrap();
    for f in ["port", "targetPort", "protocol", "x-tag"] {
        assert_eq!(
            rules(&props[f]),
            pairs(&[("self == oldSelf", "field is immutable")]),
            "{f}"
        );
    }
    assert_eq!(
        rules(&props["seal"]),
        pairs(&[("self == oldSelf", "field is immutable")])
    );
    assert_eq!(
        rules(&props["source"]),
        pairs(&[(
            "[has(self.configMap),has(self.secretName)].filter(x,x==true).size() == 1",
            "exactly one of the fields in [configMap secretName] must be set"
        )])
    );
    // `required` on an Option, `optional` on a defaulted map; `port` is required, so it
    // gets no once-set rule.
    assert_eq!(
        spec.required.as_deref().unwrap(),
        ["port", "owner"].map(String::from)
    );
    let http = &props["http"];
    assert_eq!(http.title.as_deref(), Some("HTTP endpoint"));
    let docs = http.external_docs.as_ref().unwrap();
    assert_eq!(docs.url.as_deref(), Some("https://example.com/http"));
    assert_eq!(docs.description.as_deref(), Some("HTTP"));
    assert_eq!(
        props["protocol"].enum_.as_ref().unwrap(),
        &[json!("TCP"), json!("UDP")]
    );
}

fn object(spec: Value) -> Value {
    json!({
        "apiVersion": "markers.example.com/v1", "kind": "Endpoint",
        "metadata": {"name": "e", "namespace": "default"},
        "spec": spec,
    })
}

fn base() -> Value {
    json!({"port": 80, "targetPort": 8080, "email": "a@example.com", "http": "h", "owner": "me"})
}

fn create(spec: Value) -> Result<Value, Vec<String>> {
    let mut v = object(spec);
    let engine = Endpoint::engine().expect("engine");
    engine.admit(&mut v).map(|()| v).map_err(|e| e.strings())
}

fn update(old: Value, new: Value) -> Result<(), Vec<String>> {
    let old = create(old).expect("old object is valid");
    let mut v = object(new);
    let engine = Endpoint::engine().expect("engine");
    engine.admit_update(&mut v, &old).map_err(|e| e.strings())
}

fn with(mut v: Value, key: &str, val: Value) -> Value {
    match val {
        Value::Null => v.as_object_mut().unwrap().remove(key),
        val => v.as_object_mut().unwrap().insert(key.into(), val),
    };
    v
}

#[test]
fn immutable_fields_on_update() {
    assert_eq!(update(base(), base()), Ok(()));
    assert_eq!(
        update(base(), with(base(), "port", json!(81))),
        Err(vec![
            r#"spec.port: Invalid value: 81: field is immutable"#.to_string()
        ])
    );
    assert_eq!(
        update(base(), with(base(), "targetPort", json!(9090))),
        Err(vec![
            r#"spec.targetPort: Invalid value: 9090: field is immutable"#.to_string()
        ])
    );
    // Removing an optional immutable field: the field's rule cannot run, the parent's does.
    assert_eq!(
        update(base(), with(base(), "targetPort", Value::Null)),
        Err(vec![
            r#"spec: Invalid value: field targetPort is immutable once set"#.to_string()
        ])
    );
    // Unset → set once is allowed, as controller-gen documents.
    assert_eq!(
        update(
            with(base(), "x-tag", Value::Null),
            with(base(), "x-tag", json!("v1"))
        ),
        Ok(())
    );
    assert_eq!(
        update(
            with(base(), "x-tag", json!("v1")),
            with(base(), "x-tag", json!("v2"))
        ),
        Err(vec![
            r#"spec.x-tag: Invalid value: "v2": field is immutable"#.to_string()
        ])
    );
    // The default is filled in on update too, so the defaulted field stays set.
    assert_eq!(
        update(base(), with(base(), "protocol", Value::Null)),
        Ok(())
    );
    assert_eq!(
        update(base(), with(base(), "protocol", json!("UDP"))),
        Err(vec![
            r#"spec.protocol: Invalid value: "UDP": field is immutable"#.to_string()
        ])
    );
    // An immutable type: the whole object is compared.
    let sealed = with(base(), "seal", json!({"key": "k1"}));
    assert_eq!(update(sealed.clone(), sealed.clone()), Ok(()));
    assert_eq!(
        update(sealed, with(base(), "seal", json!({"key": "k2"}))),
        Err(vec![
            r#"spec.seal: Invalid value: field is immutable"#.to_string()
        ])
    );
}

#[test]
fn one_of_groups_on_create() {
    assert!(create(base()).is_ok());
    let both = with(base(), "phone", json!("1"));
    assert_eq!(
        create(both),
        Err(vec![
            r#"spec: Invalid value: exactly one of the fields in [email phone] must be set"#
                .to_string()
        ])
    );
    let none = with(base(), "email", Value::Null);
    assert_eq!(
        create(none),
        Err(vec![
            r#"spec: Invalid value: exactly one of the fields in [email phone] must be set"#
                .to_string()
        ])
    );
    let two = with(base(), "grpc", json!("g"));
    assert_eq!(
        create(two),
        Err(vec![
            r#"spec: Invalid value: at most one of the fields in [http grpc] may be set"#
                .to_string()
        ])
    );
    let zero = with(base(), "http", Value::Null);
    assert_eq!(
        create(zero),
        Err(vec![
            r#"spec: Invalid value: at least one of the fields in [http grpc raw] must be set"#
                .to_string()
        ])
    );
    let source = with(
        base(),
        "source",
        json!({"configMap": "c", "secretName": "s"}),
    );
    assert_eq!(
        create(source),
        Err(vec![r#"spec.source: Invalid value: exactly one of the fields in [configMap secretName] must be set"#.to_string()])
    );
    assert!(create(with(base(), "source", json!({"secretName": "s"}))).is_ok());
}

#[test]
fn required_and_optional_on_create() {
    assert_eq!(
        create(with(base(), "owner", Value::Null)),
        Err(vec![
            "spec.owner: Required value".to_string(),
            // The API server's note when CEL rules were skipped (apiextensions-apiserver).
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation".to_string(),
        ])
    );
    // `labels` is optional and serde defaults it: the typed object reads back.
    let v = create(base()).unwrap();
    let e: Endpoint = serde_json::from_value(v).unwrap();
    assert!(e.spec.labels.is_empty());
    assert_eq!(e.spec.protocol, Protocol::Tcp);
}

// Ported test data: the types of controller-tools v0.21.0
// `pkg/crd/testdata/immutable/types.go` (Apache-2.0, kubernetes-sigs/controller-tools), and
// below, their spec schema from `pkg/crd/testdata/testdata.kubebuilder.io_immutabletypes.yaml`
// (YAML turned into JSON). crd-derive must emit the same schema.

// Go's `NestedStruct` (no doc comment: Go's has none, and it would be the description).
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct NestedStruct {
    pub key: String,
    pub value: String,
}

// Go's `ImmutableSpec`: `*T` is `Option<T>`, `+optional` on a plain field is
// `optional` with a serde default.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "testdata.kubebuilder.io",
    version = "v1",
    kind = "ImmutableType"
)]
#[serde(rename_all = "camelCase")]
pub struct ImmutableSpec {
    #[crd(immutable)]
    pub required_string: String,
    #[crd(immutable, optional)]
    pub optional_string: Option<String>,
    #[crd(immutable, optional)]
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub optional_literal_string: String,
    #[crd(immutable)]
    pub required_struct: NestedStruct,
    #[crd(immutable, optional)]
    pub optional_struct: Option<NestedStruct>,
    #[crd(immutable, optional)]
    #[serde(default)]
    pub optional_omit_zero_struct: NestedStruct,
    #[crd(immutable)]
    pub required_slice: Vec<String>,
    #[crd(immutable, optional)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub optional_slice: Vec<String>,
    #[crd(immutable)]
    pub required_map: BTreeMap<String, String>,
    #[crd(immutable, optional)]
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub optional_map: BTreeMap<String, String>,
    pub mutable_string: String,
}

const CONTROLLER_GEN_IMMUTABLE_SPEC: &str = r#"{
 "properties": {
  "mutableString": {
   "type": "string"
  },
  "optionalLiteralString": {
   "type": "string",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "optionalMap": {
   "additionalProperties": {
    "type": "string"
   },
   "type": "object",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "optionalOmitZeroStruct": {
   "properties": {
    "key": {
     "type": "string"
    },
    "value": {
     "type": "string"
    }
   },
   "required": [
    "key",
    "value"
   ],
   "type": "object",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "optionalSlice": {
   "items": {
    "type": "string"
   },
   "type": "array",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "optionalString": {
   "type": "string",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "optionalStruct": {
   "properties": {
    "key": {
     "type": "string"
    },
    "value": {
     "type": "string"
    }
   },
   "required": [
    "key",
    "value"
   ],
   "type": "object",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "requiredMap": {
   "additionalProperties": {
    "type": "string"
   },
   "type": "object",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "requiredSlice": {
   "items": {
    "type": "string"
   },
   "type": "array",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "requiredString": {
   "type": "string",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  },
  "requiredStruct": {
   "properties": {
    "key": {
     "type": "string"
    },
    "value": {
     "type": "string"
    }
   },
   "required": [
    "key",
    "value"
   ],
   "type": "object",
   "x-kubernetes-validations": [
    {
     "message": "field is immutable",
     "rule": "self == oldSelf"
    }
   ]
  }
 },
 "required": [
  "mutableString",
  "requiredMap",
  "requiredSlice",
  "requiredString",
  "requiredStruct"
 ],
 "type": "object",
 "x-kubernetes-validations": [
  {
   "message": "field optionalString is immutable once set",
   "rule": "!has(oldSelf.optionalString) || has(self.optionalString)"
  },
  {
   "message": "field optionalLiteralString is immutable once set",
   "rule": "!has(oldSelf.optionalLiteralString) || has(self.optionalLiteralString)"
  },
  {
   "message": "field optionalStruct is immutable once set",
   "rule": "!has(oldSelf.optionalStruct) || has(self.optionalStruct)"
  },
  {
   "message": "field optionalOmitZeroStruct is immutable once set",
   "rule": "!has(oldSelf.optionalOmitZeroStruct) || has(self.optionalOmitZeroStruct)"
  },
  {
   "message": "field optionalSlice is immutable once set",
   "rule": "!has(oldSelf.optionalSlice) || has(self.optionalSlice)"
  },
  {
   "message": "field optionalMap is immutable once set",
   "rule": "!has(oldSelf.optionalMap) || has(self.optionalMap)"
  }
 ]
}"#;

#[test]
fn immutable_matches_controller_gen_testdata() {
    let crd = ImmutableType::crd();
    assert_valid_crd(&crd);
    let mut ours = serde_json::to_value(
        crd.spec.versions[0]
            .open_api_schema()
            .unwrap()
            .properties
            .as_ref()
            .unwrap()["spec"]
            .as_ref(),
    )
    .unwrap();
    // controller-gen lists `required` alphabetically, crd-derive in field order.
    ours["required"]
        .as_array_mut()
        .unwrap()
        .sort_by_key(|v| v.to_string());
    let theirs: Value = serde_json::from_str(CONTROLLER_GEN_IMMUTABLE_SPEC).unwrap();
    assert_eq!(ours, theirs);
}
