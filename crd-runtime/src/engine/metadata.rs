//! `metadata` round-tripped through `ObjectMeta` the way the API server decodes and
//! re-encodes it: unknown fields disappear, empty ones are omitted, timestamps are
//! normalized to RFC 3339 in UTC, and a field of the wrong type is an error (with
//! Go's `encoding/json` wording), or is dropped when reading leniently.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::formats::{format_rfc3339, is_written_rfc3339, parse_rfc3339};

fn json_kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

fn type_error(field: &str, v: &Value, go_type: &str) -> String {
    let kind = match v {
        Value::Number(_) if go_type == "string" => "number".to_string(),
        other => json_kind(other),
    };
    format!(
        "json: cannot unmarshal {kind} into Go struct field ObjectMeta.{field} of type {go_type}"
    )
}

fn string_field(field: &str, v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(_) => Ok(Some(v.clone())),
        other => Err(type_error(field, other, "string")),
    }
}

fn time_field(field: &str, v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => match parse_rfc3339(s).and_then(format_rfc3339) {
            Some(t) => Ok(Some(Value::String(t))),
            None => Err(format!(
                "parsing time {} as \"2006-01-02T15:04:05Z07:00\": cannot parse {} as \"2006\"",
                crate::go::quote(s),
                crate::go::quote(s)
            )),
        },
        other => Err(type_error(field, other, "string")),
    }
}

fn int_field(field: &str, v: &Value, keep_zero: bool) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_i64() {
            Some(0) if !keep_zero => Ok(None),
            Some(_) => Ok(Some(v.clone())),
            None => Err(type_error(field, v, "int64")),
        },
        other => Err(type_error(field, other, "int64")),
    }
}

fn string_map(field: &str, v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, val) in m {
                let s = match val {
                    Value::Null => String::new(),
                    Value::String(s) => s.clone(),
                    other => return Err(type_error(field, other, "string")),
                };
                out.insert(k.clone(), Value::String(s));
            }
            Ok((!out.is_empty()).then_some(Value::Object(out)))
        }
        other => Err(type_error(field, other, "map[string]string")),
    }
}

/// A list field: `null` is dropped, every item converted by `item`, and an empty
/// list dropped; anything but an array is a type error naming `list_type`.
fn list(
    field: &str,
    v: &Value,
    list_type: &str,
    item: impl Fn(&Value) -> Result<Value, String>,
) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Array(items) => {
            let out = items.iter().map(item).collect::<Result<Vec<_>, _>>()?;
            Ok((!out.is_empty()).then_some(Value::Array(out)))
        }
        other => Err(type_error(field, other, list_type)),
    }
}

fn object_list(
    field: &str,
    v: &Value,
    item: impl Fn(&Map<String, Value>) -> Result<Map<String, Value>, String>,
) -> Result<Option<Value>, String> {
    list(field, v, "array", |it| match it {
        Value::Null => Ok(Value::Object(item(&Map::new())?)),
        Value::Object(m) => Ok(Value::Object(item(m)?)),
        other => Err(type_error(field, other, "object")),
    })
}

fn owner_reference(m: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for key in ["apiVersion", "kind", "name", "uid"] {
        let s = match m.get(key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(type_error(
                    &format!("ownerReferences.{key}"),
                    other,
                    "string",
                ));
            }
        };
        out.insert(key.to_string(), Value::String(s));
    }
    for key in ["controller", "blockOwnerDeletion"] {
        match m.get(key) {
            None | Some(Value::Null) => {}
            Some(b @ Value::Bool(_)) => {
                out.insert(key.to_string(), b.clone());
            }
            Some(other) => {
                return Err(type_error(&format!("ownerReferences.{key}"), other, "bool"));
            }
        }
    }
    Ok(out)
}

fn managed_field(m: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for (k, v) in m {
        let f = format!("managedFields.{k}");
        let nv = match k.as_str() {
            "manager" | "operation" | "apiVersion" | "fieldsType" | "subresource" => {
                string_field(&f, v)?
            }
            "time" => time_field(&f, v)?,
            "fieldsV1" => (!v.is_null()).then(|| v.clone()),
            _ => None,
        };
        if let Some(nv) = nv {
            out.insert(k.clone(), nv);
        }
    }
    Ok(out)
}

fn finalizers(v: &Value) -> Result<Option<Value>, String> {
    list("finalizers", v, "[]string", |it| match it {
        Value::Null => Ok(Value::String(String::new())),
        Value::String(_) => Ok(it.clone()),
        other => Err(type_error("finalizers", other, "string")),
    })
}

/// One `ObjectMeta` field after a JSON round trip (`None`: empty or unknown, dropped).
fn meta_field(k: &str, v: &Value) -> Result<Option<Value>, String> {
    match k {
        "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" => {
            string_field(k, v)
        }
        "generation" => int_field(k, v, false),
        "deletionGracePeriodSeconds" => int_field(k, v, true),
        "creationTimestamp" | "deletionTimestamp" => time_field(k, v),
        "labels" | "annotations" => string_map(k, v),
        "ownerReferences" => object_list(k, v, owner_reference),
        "finalizers" => finalizers(v),
        "managedFields" => object_list(k, v, managed_field),
        _ => Ok(None),
    }
}

/// Whether a timestamp is already as the round trip writes it (`2006-01-02T15:04:05Z`),
/// checked without formatting it again.
fn canonical_time(v: &Value) -> bool {
    v.as_str().is_some_and(is_written_rfc3339)
}

fn nonempty_string(v: &Value) -> bool {
    matches!(v, Value::String(s) if !s.is_empty())
}

/// Whether an owner reference survives the round trip unchanged: the four identity
/// strings present (written even when empty) and the flags booleans.
fn unchanged_owner_reference(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    ["apiVersion", "kind", "name", "uid"]
        .iter()
        .all(|k| m.get(*k).is_some_and(Value::is_string))
        && m.iter().all(|(k, v)| match k.as_str() {
            "apiVersion" | "kind" | "name" | "uid" => true,
            "controller" | "blockOwnerDeletion" => v.is_boolean(),
            _ => false,
        })
}

/// Whether a `managedFields` entry survives the round trip unchanged.
fn unchanged_managed_field(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    m.iter().all(|(k, v)| match k.as_str() {
        "manager" | "operation" | "apiVersion" | "fieldsType" | "subresource" => nonempty_string(v),
        "time" => canonical_time(v),
        "fieldsV1" => !v.is_null(),
        _ => false,
    })
}

/// Whether a field survives the round trip unchanged (the common case, checked
/// without allocating).
fn unchanged(k: &str, v: &Value) -> bool {
    let nonempty_list = |item: fn(&Value) -> bool| {
        v.as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(item))
    };
    match k {
        "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" => {
            nonempty_string(v)
        }
        "generation" => v.as_i64().is_some_and(|i| i != 0),
        "deletionGracePeriodSeconds" => v.as_i64().is_some(),
        "creationTimestamp" | "deletionTimestamp" => canonical_time(v),
        "labels" | "annotations" => v
            .as_object()
            .is_some_and(|m| !m.is_empty() && m.values().all(Value::is_string)),
        "finalizers" => nonempty_list(Value::is_string),
        "ownerReferences" => nonempty_list(unchanged_owner_reference),
        "managedFields" => nonempty_list(unchanged_managed_field),
        _ => false,
    }
}

/// Whether `metadata` is already what the round trip would produce.
pub fn is_normalized(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.iter().all(|(k, v)| unchanged(k, v)))
}

/// Round-trips `metadata` through `ObjectMeta`. With `drop_invalid`, fields that do
/// not decode are dropped one by one instead of failing the whole object.
pub fn normalize_meta(v: &Value, drop_invalid: bool) -> Result<Value, String> {
    let m = match v {
        Value::Object(m) => m,
        Value::Null => return Ok(Value::Object(Map::new())),
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
                json_kind(other)
            ));
        }
    };
    let mut out = Map::new();
    for (k, val) in m {
        match meta_field(k, val) {
            Ok(Some(nv)) => {
                out.insert(k.clone(), nv);
            }
            Ok(None) => {}
            Err(_) if drop_invalid => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Value::Object(out))
}

/// `metadata` after the round trip, borrowed when it is already normalized.
pub fn normalized(v: &Value) -> Result<Cow<'_, Value>, String> {
    if is_normalized(v) {
        Ok(Cow::Borrowed(v))
    } else {
        normalize_meta(v, false).map(Cow::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_round_trip_drops_unknown_and_empty() {
        let m = normalize_meta(
            &json!({"name": "a", "unknown": 1, "labels": {}, "generation": 0,
                    "creationTimestamp": "2024-01-02T03:04:05.9+01:00", "namespace": null}),
            false,
        )
        .unwrap();
        assert_eq!(
            m,
            json!({"name": "a", "creationTimestamp": "2024-01-02T02:04:05Z"})
        );
        let e = normalize_meta(&json!({"namespace": ["abc"]}), false).unwrap_err();
        assert!(e.contains("cannot unmarshal array"), "{e}");
        let m = normalize_meta(&json!({"name": "x", "namespace": ["abc"]}), true).unwrap();
        assert_eq!(m, json!({"name": "x"}));
    }

    #[test]
    fn the_fast_check_agrees_with_the_round_trip() {
        let written = json!({"name": "a", "namespace": "d", "uid": "u", "resourceVersion": "7",
            "generation": 2, "creationTimestamp": "2024-01-02T03:04:05Z", "labels": {"k": "v"},
            "finalizers": ["f"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "o", "uid": "x", "controller": true}],
            "managedFields": [{"manager": "m", "operation": "Apply", "apiVersion": "x/v1",
                "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]});
        assert!(
            is_normalized(&written),
            "what the server writes needs no round trip"
        );
        let mut cases = vec![written.clone()];
        for (pointer, value) in [
            ("/creationTimestamp", json!("2024-01-02T03:04:60Z")),
            ("/creationTimestamp", json!("2024-01-02t03:04:05Z")),
            ("/creationTimestamp", json!("2024-01-02T03:04:05.5Z")),
            ("/ownerReferences/0/name", json!(null)),
            ("/ownerReferences/0/extra", json!(1)),
            ("/managedFields/0/manager", json!("")),
            ("/managedFields/0/time", json!("2024-01-02T03:04:05+00:00")),
            ("/managedFields/0/unknown", json!("x")),
            ("/managedFields/0/fieldsV1", json!(null)),
            ("/finalizers", json!([])),
        ] {
            let mut v = written.clone();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            v.pointer_mut(parent)
                .unwrap()
                .as_object_mut()
                .map(|m| m.insert(key.into(), value.clone()));
            if let Some(list) = v.pointer_mut(parent).and_then(Value::as_array_mut) {
                list[key.parse::<usize>().unwrap()] = value;
            }
            cases.push(v);
        }
        for v in cases {
            let round = normalize_meta(&v, true).unwrap();
            assert_eq!(is_normalized(&v), round == v, "{v}");
        }
    }
}
