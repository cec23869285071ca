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
            (props.clone(), props).prop_map(|(a, b)| json!({
                "type": "object",
                "oneOf": [
                    {"type": "object", "properties": a},
                    {"type": "object", "properties": b}
                ]
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
    let text = serde_json::to_string(&doc).unwrap();
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
        .map(|n| crd(schema().new_tree(&mut runner).unwrap().current(), n))
        .collect()
}
