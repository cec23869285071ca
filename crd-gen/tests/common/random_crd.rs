//! Random CRD schemas for the generator's property tests and compile checks: every
//! shape the generator maps (structs, enums, lists, maps, int-or-string, preserved
//! and embedded objects, oneOf), with names and text chosen to break naive code.

use crd_runtime::CustomResourceDefinition;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Property names a generator must sanitize: keywords, leading digits, punctuation,
/// non-ASCII, names that collide once cased.
pub fn property_name() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        "[a-z][a-zA-Z0-9]{0,8}",
        Just("type".to_string()),
        Just("self".to_string()),
        Just("r#loop".to_string()),
        Just("x-foo".to_string()),
        Just("x_foo".to_string()),
        Just("$ref".to_string()),
        Just("@type".to_string()),
        Just("1st".to_string()),
        Just("é".to_string()),
        Just("*/".to_string()),
        Just("spec".to_string()),
        Just("Value".to_string()),
        Just("fooBar".to_string()),
        Just("foo_bar".to_string()),
        Just("FooBar".to_string()),
        Just("foo-bar".to_string()),
        Just("FOO_BAR".to_string()),
        Just("additionalProperties".to_string()),
        Just("Option".to_string()),
        Just("String".to_string()),
    ]
}

/// Text a description or enum value may hold, including comment and quote breakers.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,20}",
        Just(String::new()),
        Just("*/ fn evil() {} /*".to_string()),
        Just("\"#; panic!(); r#\"".to_string()),
        Just("line\nbreak\r\nand\ttab".to_string()),
        Just("\u{202e}rtl".to_string()),
        Just("///#0".to_string()),
    ]
}

pub fn leaf() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"type": "string", "format": "byte"})),
        Just(json!({"type": "integer", "format": "int32", "minimum": -3, "maximum": 7})),
        Just(json!({"type": "integer", "format": "int64", "default": 5})),
        Just(json!({"type": "number", "multipleOf": 0.5})),
        Just(json!({"type": "boolean", "default": true})),
        Just(json!({"x-kubernetes-int-or-string": true})),
        Just(
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})
        ),
        Just(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})),
        Just(
            json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true})
        ),
        Just(json!({"type": "string", "pattern": "^[a-z]+$", "maxLength": 9})),
        Just(json!({})),
        Just(json!({"type": "string", "format": "date"})),
        Just(json!({"type": "string", "format": "duration", "default": "1h"})),
        Just(json!({"type": "string", "default": ""})),
        Just(json!({"type": "string", "enum": ["a", "b"], "default": "a"})),
        Just(json!({"type": "integer", "enum": [1, 2, 3]})),
        Just(json!({"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1e3})),
        Just(json!({"type": "object"})),
        Just(json!({"type": "string", "x-kubernetes-validations": [
            {"rule": "self.size() > 0", "message": "must not be empty"}
        ]})),
        Just(json!({"type": "array", "items": {"type": "string"},
                    "x-kubernetes-list-type": "set", "maxItems": 3})),
        Just(json!({"type": "object", "x-kubernetes-map-type": "atomic",
                    "additionalProperties": {"type": "string"}})),
        Just(
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"known": {"type": "string"}}})
        ),
        Just(json!({"type": "string", "nullable": true, "default": null})),
        Just(json!({"type": "integer", "format": "int32", "nullable": true, "enum": [1, 2, null]})),
        Just(json!({"type": "object", "maxProperties": 3,
                    "additionalProperties": {"type": "integer"}})),
        Just(json!({"type": "string", "title": "T", "example": "x"})),
        Just(json!({"type": "array", "items": {"type": "integer"},
                    "x-kubernetes-list-type": "set", "default": [1, 2]})),
        Just(json!({"type": "string", "x-kubernetes-validations": [{
            "rule": "self != 'x'", "messageExpression": "'bad ' + self",
            "reason": "FieldValueForbidden"
        }]})),
        Just(json!({"type": "number", "format": "double", "default": 1.5})),
        Just(
            json!({"x-kubernetes-int-or-string": true, "pattern": "^\\d+%?$",
                    "anyOf": [{"type": "integer"}, {"type": "string"}]})
        ),
        Just(json!({"type": "array", "items": {"type": "array", "items": {"type": "string"}}})),
    ];
    let enum_values = prop::collection::vec(text(), 1..4);
    prop_oneof![
        4 => scalar,
        1 => enum_values.prop_map(|v| json!({"type": "string", "enum": v})),
    ]
}

/// Decorates a node with the keywords any node may carry.
pub fn decorated(node: Value, description: Option<String>, nullable: bool) -> Value {
    let mut node = node;
    if let Some(d) = description {
        node["description"] = Value::String(d);
    }
    if nullable {
        node["nullable"] = Value::Bool(true);
    }
    node
}

pub fn schema() -> impl Strategy<Value = Value> {
    let leaf = (leaf(), prop::option::of(text()), any::<bool>())
        .prop_map(|(n, d, nullable)| decorated(n, d, nullable));
    leaf.prop_recursive(5, 40, 5, |inner| {
        let props = prop::collection::btree_map(property_name(), inner.clone(), 1..5);
        prop_oneof![
            (props.clone(), any::<u8>(), prop::option::of(text())).prop_map(
                |(props, required_mask, description)| {
                    let required: Vec<&String> = props
                        .keys()
                        .enumerate()
                        .filter(|(i, _)| required_mask & (1 << (i % 8)) != 0)
                        .map(|(_, k)| k)
                        .collect();
                    let mut node = json!({"type": "object", "properties": props});
                    if !required.is_empty() {
                        node["required"] = json!(required);
                    }
                    decorated(node, description, false)
                }
            ),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            inner.clone().prop_map(
                |items| json!({"type": "array", "items": items, "x-kubernetes-list-type": "atomic"})
            ),
            inner
                .clone()
                .prop_map(|values| json!({"type": "object", "additionalProperties": values})),
            (props.clone(), props.clone()).prop_map(|(a, b)| json!({
                "type": "object",
                "oneOf": [
                    {"type": "object", "properties": a},
                    {"type": "object", "properties": b}
                ]
            })),
            // Exactly one of two fields, the way real CRDs say it.
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({
                "type": "object",
                "properties": {"a": a, "b": b},
                "oneOf": [{"required": ["a"]}, {"required": ["b"]}]
            })),
            // A list map keyed by `name`.
            props.clone().prop_map(|mut props| {
                props.insert("name".into(), json!({"type": "string"}));
                json!({
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"], "properties": props}
                })
            }),
            // Value validations in junctors, as structural schemas allow them.
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({
                "type": "object",
                "properties": {"a": a, "b": b},
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
                "not": {"required": ["a", "b"]}
            })),
            inner.clone().prop_map(|a| json!({
                "type": "object",
                "properties": {"a": a, "s": {"type": "string"}},
                "allOf": [{"properties": {"s": {"minLength": 1}}}]
            })),
            // An object with a default, nullable, with a rule on itself.
            props.prop_map(|props| json!({
                "type": "object",
                "nullable": true,
                "default": {},
                "properties": props,
                "x-kubernetes-validations": [{"rule": "has(self.x) || !has(self.x)"}]
            })),
        ]
    })
}

/// A CRD whose `spec` is `spec`; `n` makes its names unique among several.
pub fn crd(spec: Value, n: usize) -> CustomResourceDefinition {
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), json!({"spec": spec}));
    let doc = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("random{n}s.example.com")},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {
                "plural": format!("random{n}s"),
                "singular": format!("random{n}"),
                "kind": format!("Random{n}")
            },
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": Value::Object(root)}
            }]
        }
    });
    load(&doc)
}

/// What a random CRD has besides its schemas.
#[derive(Clone, Debug)]
pub struct Resource {
    /// Per version (`v1alpha1`, `v1beta1`, `v1`, the last stored): spec and status.
    pub versions: Vec<(Value, Option<Value>)>,
    /// Cluster-scoped instead of namespaced.
    pub cluster: bool,
    /// Short names and categories.
    pub short_names: bool,
    /// The first of several versions is deprecated, with a warning.
    pub deprecated_first: bool,
    /// A scale subresource and `replicas` fields for it (when there is a status).
    pub scale: bool,
    /// Printer columns: one on a spec field, one on metadata, one on nothing.
    pub columns: bool,
    /// The root schema's description.
    pub root_description: Option<String>,
    /// A top-level property besides `spec` and `status` (like ConfigMap's `data`).
    pub extra_root: Option<Value>,
}

pub fn resource() -> impl Strategy<Value = Resource> {
    let version = (schema(), prop::option::of(schema()));
    (
        prop::collection::vec(version, 1..=3),
        any::<(bool, bool, bool, bool, bool)>(),
        prop::option::of(text()),
        prop::option::of(schema()),
    )
        .prop_map(
            |(
                versions,
                (cluster, short_names, deprecated_first, scale, columns),
                root_description,
                extra_root,
            )| {
                Resource {
                    versions,
                    cluster,
                    short_names,
                    deprecated_first,
                    scale,
                    columns,
                    root_description,
                    extra_root,
                }
            },
        )
}

/// `schema` as an object holding `replicas` (for the scale subresource).
fn with_replicas(schema: &Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "replicas": {"type": "integer", "format": "int32"},
            "x": schema
        }
    })
}

/// The CRD of `r`; `n` makes its names unique among several.
pub fn resource_crd(r: &Resource, n: usize) -> CustomResourceDefinition {
    const NAMES: [&str; 3] = ["v1alpha1", "v1beta1", "v1"];
    let count = r.versions.len();
    let versions: Vec<Value> = r
        .versions
        .iter()
        .enumerate()
        .map(|(i, (spec, status))| {
            let scale = r.scale && status.is_some();
            let mut props = Map::new();
            props.insert(
                "spec".into(),
                if scale {
                    with_replicas(spec)
                } else {
                    spec.clone()
                },
            );
            if let Some(status) = status {
                props.insert(
                    "status".into(),
                    if scale {
                        with_replicas(status)
                    } else {
                        status.clone()
                    },
                );
            }
            if let Some(extra) = &r.extra_root {
                props.insert("data".into(), extra.clone());
            }
            let mut root = json!({"type": "object", "properties": props});
            if let Some(d) = &r.root_description {
                root["description"] = json!(d);
            }
            let mut v = json!({
                "name": NAMES[3 - count + i],
                "served": true,
                "storage": i == count - 1,
                "schema": {"openAPIV3Schema": root}
            });
            if r.deprecated_first && i == 0 && count > 1 {
                v["deprecated"] = json!(true);
                v["deprecationWarning"] = json!("use a newer version");
            }
            if status.is_some() {
                v["subresources"] = json!({"status": {}});
                if scale {
                    v["subresources"]["scale"] = json!({
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas"
                    });
                }
            }
            if r.columns {
                v["additionalPrinterColumns"] = json!([
                    {"name": "X", "type": "string", "jsonPath": ".spec.x", "priority": 1},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    {"name": "Gone", "type": "integer", "jsonPath": ".status.nothing.here",
                     "description": "*/ no field"}
                ]);
            }
            v
        })
        .collect();
    let mut names = json!({
        "plural": format!("random{n}s"),
        "singular": format!("random{n}"),
        "kind": format!("Random{n}")
    });
    if r.short_names {
        names["shortNames"] = json!([format!("rnd{n}")]);
        names["categories"] = json!(["all", "random"]);
        names["listKind"] = json!(format!("Random{n}List"));
    }
    let doc = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("random{n}s.example.com")},
        "spec": {
            "group": "example.com",
            "scope": if r.cluster { "Cluster" } else { "Namespaced" },
            "names": names,
            "versions": versions
        }
    });
    load(&doc)
}

fn load(doc: &Value) -> CustomResourceDefinition {
    let text = serde_json::to_string(doc).unwrap();
    crd_runtime::load_crds("random.json", &text)
        .expect("the generated CRD loads")
        .crds
        .remove(0)
        .crd
}

/// `count` random CRDs from a fixed seed: the same ones on every run.
pub fn fixed_sample(count: usize) -> Vec<CustomResourceDefinition> {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..count)
        .map(|n| resource_crd(&resource().new_tree(&mut runner).unwrap().current(), n))
        .collect()
}
