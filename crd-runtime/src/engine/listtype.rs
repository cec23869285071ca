//! `x-kubernetes-list-type` invariants (`listtype/validation.go`): items of a `set`
//! are unique, items of a `map` are objects unique by their key fields. Each
//! duplicated value is reported once, at its second occurrence.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::compiled::{Additional, CompiledSchema, ListType, NodeId};
use super::path::PathRef;
use super::validate::go_json;
use crate::depth::MAX_DEPTH;
use crate::field::{BadValue, ErrorList, FieldError};

pub(crate) fn validate(
    schema: &CompiledSchema,
    v: &Value,
    id: Option<NodeId>,
    path: &PathRef<'_>,
    errs: &mut ErrorList,
) {
    let Some(n) = schema.get(id) else { return };
    if !n.list_types_below || path.depth() > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            if let Additional::Schema(c) = n.additional {
                for (k, child) in map {
                    validate(schema, child, Some(c), &path.key(k), errs);
                }
            }
            for (k, child) in map {
                if let Some(c) = n.property(k) {
                    validate(schema, child, Some(c), &path.field(k), errs);
                }
            }
        }
        Value::Array(items) => {
            match &n.list_type {
                ListType::Set => {
                    for i in duplicates(items.iter().map(|x| Some(scalar_or_json_key(x)))) {
                        errs.push(FieldError::duplicate(
                            path.index(i).k8s_path(),
                            BadValue::from_json(&items[i]),
                        ));
                    }
                }
                ListType::Map(keys) => validate_map_list(path, keys, items, errs),
                ListType::Atomic => {}
            }
            for (i, item) in items.iter().enumerate() {
                validate(schema, item, n.items, &path.index(i), errs);
            }
        }
        _ => {}
    }
}

/// Indexes of second occurrences (one per duplicated key).
fn duplicates(keys: impl Iterator<Item = Option<String>>) -> Vec<usize> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut out = Vec::new();
    for (i, k) in keys.enumerate() {
        let Some(k) = k else { continue };
        let times = seen.entry(k).or_insert(0);
        *times += 1;
        if *times == 2 {
            out.push(i);
        }
    }
    out
}

/// Scalars compare by Go type and value (an integer never equals a float); compound
/// values by their JSON encoding.
fn scalar_or_json_key(v: &Value) -> String {
    match v {
        Value::Null => "n".into(),
        Value::Bool(b) => format!("b{b}"),
        Value::String(s) => format!("s{s}"),
        Value::Number(n) => match n.as_i64() {
            Some(i) => format!("i{i}"),
            None => format!("f{}", n.as_f64().unwrap_or(f64::NAN).to_bits()),
        },
        Value::Array(_) | Value::Object(_) => format!("j{}", go_json(v)),
    }
}

fn validate_map_list(path: &PathRef<'_>, keys: &[String], items: &[Value], errs: &mut ErrorList) {
    for (i, x) in items.iter().enumerate() {
        if !x.is_null() && !x.is_object() {
            errs.push(FieldError::invalid(
                path.index(i).k8s_path(),
                BadValue::from_json(x),
                "must be an object for an array of list-type map",
            ));
            return;
        }
    }
    if items.len() <= 1 {
        return;
    }
    let empty = Map::new();
    let key_of = |x: &Value| {
        let obj = x.as_object().unwrap_or(&empty);
        let mut s = String::new();
        for k in keys {
            match obj.get(k.as_str()) {
                // A missing key is "unspecified", different from an explicit null.
                None => s.push('u'),
                Some(v) => {
                    s.push('v');
                    s.push_str(&scalar_or_json_key(v));
                }
            }
            s.push('\u{0}');
        }
        Some(s)
    };
    for i in duplicates(items.iter().map(key_of)) {
        let obj = items[i].as_object().unwrap_or(&empty);
        let shown: Map<String, Value> = keys
            .iter()
            .filter_map(|k| obj.get(k.as_str()).map(|v| (k.clone(), v.clone())))
            .collect();
        errs.push(FieldError::duplicate(
            path.index(i).k8s_path(),
            BadValue::Json(Value::Object(shown)),
        ));
    }
}
