//! ApplyConfiguration mutations merged into the object as structured-merge-diff's
//! `TypedValue.Merge` merges an apply configuration (`ApplyStructuredMergeDiff`):
//! maps and structs merged field by field, `x-kubernetes-list-type: map` lists
//! merged item by item on their keys, `set` lists united, scalars replaced.
//! Atomic lists and maps (`x-kubernetes-list-type: atomic` or no list type, which
//! is atomic for CRDs, and `x-kubernetes-map-type: atomic`) may not be set by a
//! mutation, as kube-apiserver's `validatePatch` refuses them. Without a schema
//! objects are merged and lists replaced. A `null` in the configuration removes
//! the field.

use serde_json::{Map, Value};

use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};

fn property<'a>(s: Option<&'a JSONSchemaProps>, name: &str) -> Option<&'a JSONSchemaProps> {
    let s = s?;
    if let Some(p) = s.properties.as_ref().and_then(|p| p.get(name)) {
        return Some(p);
    }
    match s.additional_properties.as_deref() {
        Some(JSONSchemaPropsOrBool::Schema(a)) => Some(a),
        _ => None,
    }
}

fn items(s: Option<&JSONSchemaProps>) -> Option<&JSONSchemaProps> {
    match s?.items.as_deref() {
        Some(JSONSchemaPropsOrArray::Schema(i)) => Some(i),
        _ => None,
    }
}

fn list_type(s: &JSONSchemaProps) -> &str {
    s.x_kubernetes_list_type.as_deref().unwrap_or("atomic")
}

/// `findAtomics`: the paths (`.spec.args`, `.spec.ports[0].x`) where the
/// configuration sets an atomic list or map.
fn atomics(path: &str, s: &JSONSchemaProps, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if s.x_kubernetes_map_type.as_deref() == Some("atomic") {
                out.push(path.to_string());
            }
            for (k, child) in m {
                if let Some(p) = s.properties.as_ref().and_then(|p| p.get(k)) {
                    atomics(&format!("{path}.{k}"), p, child, out);
                }
            }
        }
        Value::Array(a) => {
            if list_type(s) == "atomic" {
                out.push(path.to_string());
            }
            if let Some(i) = items(Some(s)) {
                for (n, child) in a.iter().enumerate() {
                    atomics(&format!("{path}[{n}]"), i, child, out);
                }
            }
        }
        _ => {}
    }
}

/// Merges `patch` into `live`; the error is kube-apiserver's
/// (`error applying patch: invalid ApplyConfiguration: …`).
pub(super) fn merge(
    live: &Value,
    patch: &Value,
    schema: Option<&JSONSchemaProps>,
) -> Result<Value, String> {
    if let Some(s) = schema {
        let mut found = Vec::new();
        atomics("", s, patch, &mut found);
        if !found.is_empty() {
            return Err(format!(
                "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {}",
                found.join(", ")
            ));
        }
    }
    Ok(merge_value(live, patch, schema))
}

fn merge_value(live: &Value, patch: &Value, s: Option<&JSONSchemaProps>) -> Value {
    match (live, patch) {
        (Value::Object(l), Value::Object(p)) => {
            let mut out: Map<String, Value> = l.clone();
            for (k, pv) in p {
                if pv.is_null() {
                    out.remove(k);
                    continue;
                }
                let merged = match l.get(k) {
                    Some(lv) => merge_value(lv, pv, property(s, k)),
                    None => strip_nulls(pv),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Array(l), Value::Array(p)) => match s {
            Some(s) if list_type(s) == "map" => {
                let keys = s.x_kubernetes_list_map_keys.clone().unwrap_or_default();
                let item_schema = items(Some(s));
                let key_of = |v: &Value| -> Vec<Value> {
                    keys.iter()
                        .map(|k| v.get(k).cloned().unwrap_or(Value::Null))
                        .collect()
                };
                let mut out = l.clone();
                for pv in p {
                    let key = key_of(pv);
                    match out.iter_mut().find(|lv| key_of(lv) == key) {
                        Some(lv) => *lv = merge_value(lv, pv, item_schema),
                        None => out.push(strip_nulls(pv)),
                    }
                }
                Value::Array(out)
            }
            Some(s) if list_type(s) == "set" => {
                let mut out = l.clone();
                for pv in p {
                    if !out.contains(pv) {
                        out.push(pv.clone());
                    }
                }
                Value::Array(out)
            }
            _ => Value::Array(p.clone()),
        },
        (_, p) => strip_nulls(p),
    }
}

/// A new value from the configuration, its null fields left out.
fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_nulls(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// A resource with labels, `replicas`, `args`, a set, an atomic map and a map list.
    pub(in crate::admission::policy) fn schema() -> JSONSchemaProps {
        serde_json::from_value(json!({"type": "object", "properties": {
            "metadata": {"type": "object", "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
            "spec": {"type": "object", "properties": {
                "replicas": {"type": "integer"},
                "args": {"type": "array", "items": {"type": "string"}},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "additionalProperties": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "port": {"type": "integer"},
                        "protocol": {"type": "string"}}}}}}}}))
        .unwrap()
    }

    #[test]
    fn maps_merge_lists_by_their_type() {
        let live = json!({"metadata": {"labels": {"a": "1"}},
            "spec": {"replicas": 1, "tags": ["x"], "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}});
        let patch = json!({"metadata": {"labels": {"b": "2"}},
            "spec": {"replicas": 3, "tags": ["y", "x"],
                "ports": [{"name": "http", "port": 8080}, {"name": "grpc", "port": 9090}]}});
        let got = merge(&live, &patch, Some(&schema())).unwrap();
        assert_eq!(
            got,
            json!({"metadata": {"labels": {"a": "1", "b": "2"}},
            "spec": {"replicas": 3, "tags": ["x", "y"],
                "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}, {"name": "grpc", "port": 9090}]}})
        );
        let removed = merge(
            &live,
            &json!({"metadata": {"labels": {"a": null}}}),
            Some(&schema()),
        )
        .unwrap();
        assert_eq!(removed["metadata"]["labels"], json!({}));
    }

    #[test]
    fn atomic_lists_and_maps_are_refused() {
        let live = json!({"spec": {}});
        let err = merge(
            &live,
            &json!({"spec": {"args": ["a"], "selector": {"x": "y"}}}),
            Some(&schema()),
        )
        .unwrap_err();
        assert_eq!(
            err,
            "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args, .spec.selector"
        );
        // Without a schema lists are replaced whole.
        let got = merge(
            &json!({"spec": {"args": ["a"]}}),
            &json!({"spec": {"args": ["b"]}}),
            None,
        )
        .unwrap();
        assert_eq!(got, json!({"spec": {"args": ["b"]}}));
    }
}
