//! Field-level keywords: every validation keyword, defaults, nullable, int-or-string,
//! preserve-unknown-fields, embedded resources, list/map types, CEL rules, one-of
//! helpers, fragments, nested `items(...)`/`values(...)`, docs — each checked in the
//! schema, and the whole CRD against the API server's rules.

use std::collections::{BTreeMap, BTreeSet};

use crd_runtime::{
    CrdSchema, CustomResource, CustomResourceExt as _, IntOrString, JSONSchemaProps,
    assert_valid_crd,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One list entry keyed by `name`.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Port {
    /// Port name.
    pub name: String,
    #[crd(minimum = 1, maximum = 65535)]
    pub port: i32,
    /// A list-map key need not be required when it has a schema default.
    #[serde(default)]
    #[crd(default = "TCP")]
    pub protocol: Option<String>,
}

/// A unit-only enum.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Mode {
    Fast,
    #[serde(rename = "slow")]
    Slow,
}

fn custom_schema() -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("string".into()),
        format: Some("custom".into()),
        ..Default::default()
    }
}

/// Everything, in one spec.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "example.com", version = "v1", kind = "Kitchen", namespaced,
      spec_schema(exactly_one_of = ["oven", "stove"], at_most_one_of = ["a", "b"], at_least_one_of = ["mode", "oven"],
                  min_properties = 1, max_properties = 40,
                  validation(rule = "self.name != 'root'", field_path = ".name")))]
#[serde(rename_all = "camelCase")]
pub struct KitchenSpec {
    #[crd(minimum = -5, maximum = 5.5, exclusive_minimum, exclusive_maximum, multiple_of = 0.5)]
    pub number: f64,
    #[crd(
        min_length = 1,
        max_length = 10,
        pattern = "^[a-z]+$",
        format = "hostname",
        title = "Name",
        example = "abc",
        external_docs(url = "https://example.com", description = "docs")
    )]
    pub name: String,
    #[crd(enum_values = ["red", "green", 3, null], nullable)]
    pub color: Option<Value>,
    /// `Option<T>` takes a `null` default whatever `T` is.
    #[crd(nullable, default = null)]
    pub nickname: Option<String>,
    /// ... inside a map too (the check sees the value type through `MapSchema`).
    #[crd(values(nullable, default = null))]
    pub aliases: BTreeMap<String, Option<String>>,
    #[crd(
        min_items = 1,
        max_items = 3,
        unique_items = false,
        items(max_length = 5, pattern = "^x")
    )]
    pub tags: Vec<String>,
    #[crd(list_type = "map", list_map_keys = ["name", "protocol"])]
    pub ports: Vec<Port>,
    #[crd(list_type = "set")]
    pub set: BTreeSet<String>,
    #[crd(map_type = "atomic", values(min_length = 2), min_properties = 0)]
    pub labels: BTreeMap<String, String>,
    #[crd(default = json!({"a": [1, 2], "b": {"c": null}}))]
    pub blob: Value,
    #[crd(default = ["x", "y"])]
    pub list_default: Vec<String>,
    #[crd(default = 8080)]
    pub target: IntOrString,
    #[crd(int_or_string, type = null)]
    pub other_target: Option<String>,
    #[crd(embedded_resource, type = "object")]
    pub template: Option<Value>,
    // A messageExpression with a bounded cost: `'bad: ' + string(self.size())` is
    // rejected by the API server (a converted string has no size bound for its
    // cost estimator, kubernetes/kubernetes#124234).
    #[crd(
        validation(
            rule = "oldSelf.hasValue() || self.size() > 0",
            message = "non-empty",
            message_expression = "self.size() == 0 ? 'empty' : 'bad'",
            reason = "FieldValueInvalid",
            optional_old_self = true
        ),
        validation = "!('forbidden' in self)"
    )]
    // A map, so that the rule's `fieldPath: .x` names something (the API server
    // rejects a fieldPath that does not resolve in the schema).
    pub checked: BTreeMap<String, String>,
    #[crd(any_of = [json!({"required": ["x"]}), json!({"required": ["y"]})], not = json!({"required": ["z"]}),
          one_of = json!([{"required": ["x"]}]), all_of = [json!({"minProperties": 1})])]
    pub fragmented: Option<BTreeMap<String, i64>>,
    #[crd(schema_with = custom_schema, description = "custom")]
    pub custom: String,
    #[crd(extra = json!({"x-kubernetes-map-type": "granular"}), additional_properties = false, type = "object")]
    pub raw: Option<Value>,
    #[crd(items_schema = json!({"type": "integer"}))]
    pub raw_items: Vec<i64>,
    #[crd(required = false)]
    pub forced_optional: String,
    #[crd(required)]
    pub forced_required: Option<String>,
    pub mode: Option<Mode>,
    pub oven: Option<bool>,
    pub stove: Option<bool>,
    pub a: Option<u8>,
    pub b: Option<u64>,
    /// Line one.
    ///
    /// Line three.
    pub documented: Option<i8>,
}

fn spec() -> JSONSchemaProps {
    let crd = Kitchen::crd();
    assert_valid_crd(&crd);
    crd.spec.versions[0]
        .open_api_schema()
        .unwrap()
        .properties
        .as_ref()
        .unwrap()["spec"]
        .as_ref()
        .clone()
}

fn prop(name: &str) -> JSONSchemaProps {
    spec().properties.unwrap()[name].as_ref().clone()
}

#[test]
fn numeric_and_string_keywords() {
    let n = prop("number");
    assert_eq!(
        serde_json::to_value(&n).unwrap(),
        json!({"type": "number", "minimum": -5, "maximum": 5.5,
        "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": 0.5})
    );
    let s = prop("name");
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({"type": "string", "minLength": 1, "maxLength": 10,
        "pattern": "^[a-z]+$", "format": "hostname", "title": "Name", "example": "abc",
        "externalDocs": {"url": "https://example.com", "description": "docs"}})
    );
}

#[test]
fn enum_nullable_and_defaults() {
    let c = prop("color");
    assert_eq!(
        c.enum_,
        Some(vec![json!("red"), json!("green"), json!(3), Value::Null])
    );
    assert_eq!(c.nullable, Some(true));
    let n = prop("nickname");
    assert_eq!((n.nullable, n.default), (Some(true), Some(Value::Null)));
    let values = prop("aliases")
        .additional_properties_schema()
        .cloned()
        .unwrap();
    assert_eq!(
        (values.nullable, values.default),
        (Some(true), Some(Value::Null))
    );
    assert_eq!(
        prop("blob").default,
        Some(json!({"a": [1, 2], "b": {"c": null}}))
    );
    assert_eq!(prop("listDefault").default, Some(json!(["x", "y"])));
    let t = prop("target");
    assert_eq!((t.is_int_or_string(), t.default), (true, Some(json!(8080))));
    let o = prop("otherTarget");
    assert_eq!(
        serde_json::to_value(&o).unwrap(),
        json!({"x-kubernetes-int-or-string": true})
    );
}

#[test]
fn lists_maps_and_nested_keywords() {
    let tags = prop("tags");
    assert_eq!(
        (tags.min_items, tags.max_items, tags.unique_items),
        (Some(1), Some(3), Some(false))
    );
    let items = tags.items_schema().unwrap();
    assert_eq!(
        (items.max_length, items.pattern.as_deref()),
        (Some(5), Some("^x"))
    );
    let ports = prop("ports");
    assert_eq!(ports.x_kubernetes_list_type.as_deref(), Some("map"));
    assert_eq!(
        ports.x_kubernetes_list_map_keys,
        Some(vec!["name".to_string(), "protocol".to_string()])
    );
    let port = ports.items_schema().unwrap();
    assert_eq!(port.required, Some(vec!["name".into(), "port".into()]));
    assert_eq!(
        port.properties.as_ref().unwrap()["name"]
            .description
            .as_deref(),
        Some("Port name.")
    );
    assert_eq!(prop("set").x_kubernetes_list_type.as_deref(), Some("set"));
    let labels = prop("labels");
    assert_eq!(labels.x_kubernetes_map_type.as_deref(), Some("atomic"));
    assert_eq!(
        labels.additional_properties_schema().unwrap().min_length,
        Some(2)
    );
    let t = prop("template");
    assert!(t.is_embedded_resource() && t.preserves_unknown_fields());
    assert_eq!(
        serde_json::to_value(prop("rawItems").items).unwrap(),
        json!({"type": "integer"})
    );
    let raw = prop("raw");
    assert_eq!(
        serde_json::to_value(&raw).unwrap(),
        json!({"type": "object", "additionalProperties": false, "x-kubernetes-map-type": "granular",
               "x-kubernetes-preserve-unknown-fields": true})
    );
}

#[test]
fn cel_rules_and_one_of_helpers() {
    let rules = prop("checked").x_kubernetes_validations.unwrap();
    assert_eq!(
        serde_json::to_value(&rules).unwrap(),
        json!([
        {"rule": "oldSelf.hasValue() || self.size() > 0", "message": "non-empty", "messageExpression": "self.size() == 0 ? 'empty' : 'bad'",
         "reason": "FieldValueInvalid", "optionalOldSelf": true},
        {"rule": "!('forbidden' in self)"}])
    );
    let spec = spec();
    let field_path = &spec.x_kubernetes_validations.as_ref().unwrap()[3].field_path;
    assert_eq!(field_path.as_deref(), Some(".name"));
    let rules: Vec<String> = spec
        .x_kubernetes_validations
        .unwrap()
        .into_iter()
        .map(|r| r.rule)
        .collect();
    assert_eq!(
        rules,
        [
            "[has(self.oven),has(self.stove)].filter(x,x==true).size() == 1",
            "[has(self.a),has(self.b)].filter(x,x==true).size() <= 1",
            "[has(self.mode),has(self.oven)].filter(x,x==true).size() >= 1",
            "self.name != 'root'",
        ]
    );
    assert_eq!(
        (spec.min_properties, spec.max_properties),
        (Some(1), Some(40))
    );
}

#[test]
fn fragments_docs_types_and_required() {
    let f = prop("fragmented");
    assert_eq!(f.any_of.as_ref().unwrap().len(), 2);
    assert_eq!(
        f.one_of.as_ref().unwrap()[0].required,
        Some(vec!["x".into()])
    );
    assert_eq!(f.all_of.as_ref().unwrap()[0].min_properties, Some(1));
    assert_eq!(f.not.as_ref().unwrap().required, Some(vec!["z".into()]));
    let c = prop("custom");
    assert_eq!(
        (c.format.as_deref(), c.description.as_deref()),
        (Some("custom"), Some("custom"))
    );
    assert_eq!(
        prop("documented").description.as_deref(),
        Some("Line one.\n\nLine three.")
    );
    assert_eq!(
        serde_json::to_value(prop("documented")).unwrap()["maximum"],
        json!(127)
    );
    assert_eq!(prop("b").minimum, Some(0.into()));
    assert_eq!(prop("mode").enum_, Some(vec![json!("Fast"), json!("slow")]));
    let req = spec().required.unwrap();
    for must in [
        "number",
        "name",
        "tags",
        "ports",
        "set",
        "labels",
        "checked",
        "custom",
        "forcedRequired",
    ] {
        assert!(
            req.contains(&must.to_string()),
            "{must} should be required: {req:?}"
        );
    }
    for not in [
        "color",
        "blob",
        "listDefault",
        "target",
        "forcedOptional",
        "mode",
        "documented",
    ] {
        assert!(
            !req.contains(&not.to_string()),
            "{not} should not be required: {req:?}"
        );
    }
}

/// `schema = ...` replaces a field's base schema; its doc comment and the other
/// keywords still apply on top (crd-gen relies on this for arrays without `items`).
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Untyped {
    /// Any values.
    #[crd(schema = json!({"type": "array"}), max_items = 3)]
    pub anything: Vec<Value>,
}

#[test]
fn a_replaced_base_keeps_the_doc_comment_and_keywords() {
    let s = serde_json::to_value(Untyped::crd_schema()).unwrap();
    assert_eq!(
        s["properties"]["anything"],
        json!({"type": "array", "description": "Any values.", "maxItems": 3})
    );
}

/// A type whose schema a field re-describes (as for a k8s-openapi type).
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Described {
    /// The type's word for it.
    pub name: String,
    /// Kept.
    pub kept: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Redescribed {
    /// The field's own doc comment.
    #[crd(descriptions = {"/properties/name": "The CRD's word for it.", "/properties/kept": null})]
    pub one: Described,
    #[crd(descriptions = {"": null}, items(descriptions = {"/properties/name": "Per item."}))]
    pub many: Vec<Described>,
    #[crd(descriptions = {"/properties/nothing": "x"})]
    pub wrong: Option<Described>,
}

#[test]
fn descriptions_set_and_remove_nested_descriptions() {
    let s = serde_json::to_value(Redescribed::crd_schema()).unwrap();
    let one = &s["properties"]["one"];
    assert_eq!(one["description"], "The field's own doc comment.");
    assert_eq!(
        one["properties"]["name"]["description"],
        "The CRD's word for it."
    );
    assert!(one["properties"]["kept"].get("description").is_none());
    let many = &s["properties"]["many"];
    assert!(many.get("description").is_none());
    assert_eq!(
        many["items"]["properties"]["name"]["description"],
        "Per item."
    );
    assert_eq!(many["items"]["properties"]["kept"]["description"], "Kept.");
    // A pointer to nothing is reported, not ignored.
    assert_eq!(
        s["properties"]["wrong"]["type"],
        "(#[crd(descriptions)] names no schema node at /properties/nothing)"
    );
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Undescribed {
    /// Only this one.
    #[crd(no_descriptions, descriptions = {"/properties/kept": "Set again."})]
    pub one: Described,
    #[crd(description = null)]
    pub bare: Described,
}

#[test]
fn no_descriptions_strips_nested_descriptions_only() {
    let s = serde_json::to_value(Undescribed::crd_schema()).unwrap();
    let one = &s["properties"]["one"];
    assert_eq!(one["description"], "Only this one.");
    assert!(one["properties"]["name"].get("description").is_none());
    assert_eq!(one["properties"]["kept"]["description"], "Set again.");
    let bare = &s["properties"]["bare"];
    assert!(bare.get("description").is_none());
    assert_eq!(
        bare["properties"]["name"]["description"],
        "The type's word for it."
    );
}
