//! Reading and writing the parts of an object every kind shares: its name, metadata,
//! timestamps, and the bytes it is stored as.

use bytes::Bytes;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

/// Now, as the API server writes timestamps (RFC 3339, seconds).
pub fn now() -> String {
    // RFC 3339 in whole seconds with `Z`, as Kubernetes writes times (one allocation,
    // where a format string is parsed again on every call).
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `metadata.name` (empty when absent).
pub fn name_of(obj: &Value) -> &str {
    str_at(obj, "/metadata/name")
}

/// The string at a JSON pointer (empty when absent or not a string).
pub fn str_at<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// A copy of the array at a JSON pointer (empty when absent or not an array).
pub fn list_at(obj: &Value, pointer: &str) -> Vec<Value> {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The integer at a JSON pointer (0 when absent or not an integer).
pub fn int_at(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// The generation of `old` plus one, in `new` (an update that changed what the
/// generation counts).
pub fn bump_generation(new: &mut Value, old: &Value) {
    let g = old
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    meta_mut(new).insert("generation".into(), json!(g + 1));
}

/// `metadata`, made an object when it is not one.
pub fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.get("metadata").is_some_and(Value::is_object) {
        obj["metadata"] = json!({});
    }
    match obj.get_mut("metadata") {
        Some(Value::Object(m)) => m,
        _ => unreachable!("metadata was just made an object"),
    }
}

/// The object at `field` of the object `obj`, made an empty one when it is not one.
pub fn object_at<'a>(obj: &'a mut Value, field: &str) -> &'a mut Value {
    if !obj.get(field).is_some_and(Value::is_object) {
        obj[field] = json!({});
    }
    &mut obj[field]
}

/// Whether `metadata.finalizers` is a non-empty list.
pub fn has_finalizers(obj: &Value) -> bool {
    obj.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

/// Whether `metadata.deletionTimestamp` is set.
pub fn is_deleting(obj: &Value) -> bool {
    obj.pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
}

/// `metadata.deletionGracePeriodSeconds` (0 when absent).
pub fn grace_period_of(obj: &Value) -> i64 {
    obj.pointer("/metadata/deletionGracePeriodSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Sets `metadata.resourceVersion` to a store revision.
pub fn set_resource_version(obj: &mut Value, revision: u64) {
    if obj.is_object() {
        meta_mut(obj).insert(
            "resourceVersion".into(),
            Value::String(revision.to_string()),
        );
    }
}

/// A top-level field replaced by `old`'s (removed when `old` has none).
pub fn copy_field(new: &mut Value, old: &Value, field: &str) {
    if let Value::Object(m) = new {
        match old.get(field) {
            Some(v) => m.insert(field.into(), v.clone()),
            None => m.remove(field),
        };
    }
}

/// `to[field]` set to a copy of the map at `pointer` in `from` (left alone when there
/// is no map there).
pub fn copy_map_at(to: &mut Value, field: &str, from: &Value, pointer: &str) {
    if let Some(map) = from.pointer(pointer).filter(|m| m.is_object()) {
        to[field] = map.clone();
    }
}

/// The bytes an object is stored as: its JSON without `metadata.resourceVersion` and
/// `selfLink` (the store's revision is the version), written without copying it.
pub fn encode(obj: &Value) -> Bytes {
    Bytes::from(serde_json::to_vec(&Stored(obj)).unwrap_or_default())
}

struct Stored<'a>(&'a Value);
struct StoredMeta<'a>(&'a Map<String, Value>);

impl Serialize for Stored<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Value::Object(map) = self.0 else {
            return self.0.serialize(s);
        };
        let mut out = s.serialize_map(Some(map.len()))?;
        for (k, v) in map {
            match (k.as_str(), v) {
                ("metadata", Value::Object(meta)) => out.serialize_entry(k, &StoredMeta(meta))?,
                _ => out.serialize_entry(k, v)?,
            }
        }
        out.end()
    }
}

impl Serialize for StoredMeta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_map(None)?;
        for (k, v) in self.0 {
            if k != "resourceVersion" && k != "selfLink" {
                out.serialize_entry(k, v)?;
            }
        }
        out.end()
    }
}

/// A name suffix as `generateName` gets it: five characters from the server's
/// alphabet (no vowels, so no words; no look-alike characters).
pub fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    bytes[..5]
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_form_leaves_out_the_version_and_keeps_the_rest() {
        let obj = json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "a",
            "resourceVersion": "7", "selfLink": "/x", "labels": {"k": "v"}}, "spec": {"x": [1]}});
        let stored: Value = serde_json::from_slice(&encode(&obj)).unwrap();
        assert_eq!(
            stored,
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "a", "labels": {"k": "v"}},
                   "spec": {"x": [1]}})
        );
        assert_eq!(
            obj["metadata"]["resourceVersion"], "7",
            "the object is not changed"
        );
    }

    #[test]
    fn generated_suffixes_use_the_servers_alphabet() {
        let s = random_suffix();
        assert_eq!(s.len(), 5);
        assert!(
            s.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)),
            "{s}"
        );
    }
}
