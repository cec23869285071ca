//! Normal form of a CRD for semantic comparison: what the API server would store,
//! minus what it writes itself.
//!
//! - `status` and server-written metadata (`creationTimestamp`, `uid`, ...) are
//!   dropped; `name`, `labels` and `annotations` are kept.
//! - Defaults the API server fills in are made explicit: `names.singular` (lower-cased
//!   kind), `names.listKind` (`<kind>List`), `conversion.strategy: None`.
//! - In schemas, boolean keywords that are `false` equal their absence (`nullable`,
//!   `x-kubernetes-*` flags, `uniqueItems`, `exclusive*`), `required` is a set (sorted,
//!   empty = absent), and numbers compare by value (`1` = `1.0`).
//! - `deprecated: false` on a version and `preserveUnknownFields: false` equal absence.

use serde_json::{Map, Value};

/// Schema keywords whose `false` means the same as their absence.
const FALSE_IS_ABSENT: &[&str] = &[
    "nullable",
    "uniqueItems",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
];

/// Keywords whose value is a schema.
const SCHEMA_KEYWORDS: &[&str] = &["items", "additionalProperties", "not", "additionalItems"];
/// Keywords whose value is a map of schemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "definitions"];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf"];

/// Normalizes a CRD (as JSON) in place.
pub fn normalize_crd(crd: &mut Value) {
    let Some(obj) = crd.as_object_mut() else {
        return;
    };
    obj.remove("status");
    if let Some(Value::Object(meta)) = obj.get_mut("metadata") {
        meta.retain(|k, v| {
            matches!(k.as_str(), "name" | "labels" | "annotations")
                && !v.as_object().is_some_and(Map::is_empty)
        });
    }
    let Some(Value::Object(spec)) = obj.get_mut("spec") else {
        return;
    };
    if spec.get("preserveUnknownFields") == Some(&Value::Bool(false)) {
        spec.remove("preserveUnknownFields");
    }
    if !spec.contains_key("conversion") {
        spec.insert("conversion".into(), serde_json::json!({"strategy": "None"}));
    }
    if let Some(Value::Object(names)) = spec.get_mut("names") {
        let kind = names
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        names
            .entry("singular")
            .or_insert_with(|| Value::String(kind.to_lowercase()));
        names
            .entry("listKind")
            .or_insert_with(|| Value::String(format!("{kind}List")));
        remove_empty_list(names, "shortNames");
        remove_empty_list(names, "categories");
    }
    if let Some(Value::Array(versions)) = spec.get_mut("versions") {
        for v in versions {
            let Some(v) = v.as_object_mut() else { continue };
            if v.get("deprecated") == Some(&Value::Bool(false)) {
                v.remove("deprecated");
            }
            remove_empty_list(v, "additionalPrinterColumns");
            if v.get("subresources")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
            {
                v.remove("subresources");
            }
            remove_empty_list(v, "selectableFields");
            if let Some(schema) = v
                .get_mut("schema")
                .and_then(|s| s.get_mut("openAPIV3Schema"))
            {
                normalize_schema(schema);
            }
        }
    }
}

/// An empty list equals an absent one (`shortNames: []`).
fn remove_empty_list(obj: &mut Map<String, Value>, key: &str) {
    if obj
        .get(key)
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        obj.remove(key);
    }
}

/// Normalizes one schema node and everything below it.
pub fn normalize_schema(node: &mut Value) {
    let Some(obj) = node.as_object_mut() else {
        return;
    };
    for key in FALSE_IS_ABSENT {
        if obj.get(*key) == Some(&Value::Bool(false)) {
            obj.remove(*key);
        }
    }
    if let Some(Value::Array(req)) = obj.get_mut("required") {
        req.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        req.dedup();
        if req.is_empty() {
            obj.remove("required");
        }
    }
    for key in ["minimum", "maximum", "multipleOf"] {
        if let Some(v) = obj.get_mut(key) {
            normalize_number(v);
        }
    }
    for key in ["default", "example", "enum"] {
        if let Some(v) = obj.get_mut(key) {
            normalize_numbers_deep(v);
        }
    }
    for key in SCHEMA_KEYWORDS {
        if let Some(v) = obj.get_mut(*key) {
            match v {
                Value::Array(list) => list.iter_mut().for_each(normalize_schema),
                other => normalize_schema(other),
            }
        }
    }
    for key in SCHEMA_MAPS {
        if let Some(Value::Object(map)) = obj.get_mut(*key) {
            map.values_mut().for_each(normalize_schema);
        }
    }
    for key in SCHEMA_LISTS {
        if let Some(Value::Array(list)) = obj.get_mut(*key) {
            list.iter_mut().for_each(normalize_schema);
        }
    }
}

/// `1.0` → `1`: JSON does not distinguish them.
fn normalize_number(v: &mut Value) {
    if let Value::Number(n) = v
        && let Some(f) = n.as_f64()
        && n.is_f64()
        && f.fract() == 0.0
        && f.abs() < 9.0e15
    {
        *v = Value::from(f as i64);
    }
}

fn normalize_numbers_deep(v: &mut Value) {
    match v {
        Value::Number(_) => normalize_number(v),
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers_deep),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers_deep),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn api_server_defaults_and_server_fields() {
        let mut a = json!({
            "metadata": {"name": "x", "creationTimestamp": null, "annotations": {}},
            "spec": {"names": {"kind": "CronTab"}, "preserveUnknownFields": false,
                     "versions": [{"deprecated": false}]},
            "status": {"storedVersions": ["v1"]}
        });
        normalize_crd(&mut a);
        assert_eq!(
            a,
            json!({
                "metadata": {"name": "x"},
                "spec": {"names": {"kind": "CronTab", "singular": "crontab", "listKind": "CronTabList"},
                         "conversion": {"strategy": "None"}, "versions": [{}]}
            })
        );
    }

    #[test]
    fn schema_equivalences() {
        let mut a = json!({"nullable": false, "required": ["b", "a"], "maximum": 10.0,
            "properties": {"x": {"x-kubernetes-preserve-unknown-fields": false, "default": [1.0]}},
            "items": {"required": []}, "anyOf": [{"minimum": 2.0}]});
        normalize_schema(&mut a);
        assert_eq!(
            a,
            json!({"required": ["a", "b"], "maximum": 10,
                "properties": {"x": {"default": [1]}}, "items": {}, "anyOf": [{"minimum": 2}]})
        );
        let mut b = json!({"nullable": true, "maximum": 0.5});
        normalize_schema(&mut b);
        assert_eq!(b, json!({"nullable": true, "maximum": 0.5}));
    }
}
