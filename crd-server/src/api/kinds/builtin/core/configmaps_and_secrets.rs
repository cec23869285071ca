//! ConfigMaps and Secrets, as kube-apiserver's core validation and conversion treat
//! them: keys checked as config keys, 1 MiB of data at most, `immutable` objects whose
//! data cannot change, a Secret's `data` in base64 with `stringData` merged into it and
//! its `type` defaulted to `Opaque` (then immutable), and their printers' columns.

use base64::Engine as _;
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::config_map_key;
use serde_json::{Map, Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::{default_field, immutable_data, immutable_field};
use crate::api::table::Column;

/// `core.MaxSecretSize`: the bytes of data a ConfigMap or Secret may hold.
const MAX_SIZE: usize = 1024 * 1024;

/// The decoded bytes of a base64 value, or Go's decoding error.
fn base64_bytes(text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| match e {
            base64::DecodeError::InvalidByte(at, _)
            | base64::DecodeError::InvalidLastSymbol(at, _) => {
                format!("illegal base64 data at input byte {at}")
            }
            base64::DecodeError::InvalidLength(at) => {
                format!("illegal base64 data at input byte {at}")
            }
            base64::DecodeError::InvalidPadding => {
                format!("illegal base64 data at input byte {}", text.len())
            }
        })
}

/// Checks that every value of the map `field` is base64 (`[]byte` in Go).
fn check_base64(obj: &Value, field: &str) -> Result<(), String> {
    if let Some(Value::Object(m)) = obj.get(field) {
        for v in m.values() {
            if let Value::String(s) = v {
                base64_bytes(s)?;
            }
        }
    }
    Ok(())
}

fn string_map<'a>(obj: &'a Value, field: &str) -> Option<&'a Map<String, Value>> {
    obj.get(field).and_then(Value::as_object)
}

/// Keys checked as config keys; the size of the values, in bytes (decoded for binary).
fn check_keys(obj: &Value, field: &str, binary: bool, errs: &mut ErrorList) -> usize {
    let mut size = 0;
    for (key, value) in string_map(obj, field).into_iter().flatten() {
        for m in config_map_key(key) {
            errs.push(FieldError::invalid(
                Path::new(field).key(key),
                BadValue::Str(key.clone()),
                m,
            ));
        }
        let text = value.as_str().unwrap_or("");
        size += if binary {
            base64_bytes(text).map(|b| b.len()).unwrap_or(text.len())
        } else {
            text.len()
        };
    }
    size
}

fn count(obj: &Value, fields: &[&str]) -> Value {
    json!(
        fields
            .iter()
            .filter_map(|f| string_map(obj, f))
            .map(Map::len)
            .sum::<usize>()
    )
}

/// ConfigMaps.
pub struct ConfigMaps;

defaults!(ConfigMaps: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for ConfigMaps {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        check_base64(obj, "binaryData")
    }
}

impl Validator for ConfigMaps {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let mut size = check_keys(obj, "data", false, errs);
        if let (Some(data), Some(binary)) = (string_map(obj, "data"), string_map(obj, "binaryData"))
        {
            for key in data.keys().filter(|k| binary.contains_key(*k)) {
                errs.push(FieldError::invalid(
                    Path::new("data").key(key),
                    BadValue::Str(key.clone()),
                    "duplicate of key present in binaryData",
                ));
            }
        }
        size += check_keys(obj, "binaryData", true, errs);
        if size > MAX_SIZE {
            // The server reports the whole object with `field.NewPath("")`, printed `[]`.
            errs.push(FieldError::too_long(Path::root().key(""), MAX_SIZE as i64));
        }
        if let Some(old) = old {
            immutable_data(obj, old, &["data", "binaryData"], errs);
        }
    }
}

impl Printer for ConfigMaps {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Data",
                "string",
                "Data contains the configuration data.",
                |o| count(o, &["data", "binaryData"]),
            ),
            Column::builtin_age(),
        ]
    }
}

/// The data keys a Secret of each type needs (`ValidateSecret`).
fn required_keys(secret: &Value, errs: &mut ErrorList) {
    let data = string_map(secret, "data");
    let has = |k: &str| data.is_some_and(|d| d.contains_key(k));
    let data_path = Path::new("data");
    let required =
        |errs: &mut ErrorList, key: &str| errs.push(FieldError::required(data_path.key(key), ""));
    match secret.get("type").and_then(Value::as_str).unwrap_or("") {
        "kubernetes.io/service-account-token" => {
            let named = secret
                .pointer("/metadata/annotations/kubernetes.io~1service-account.name")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty());
            if !named {
                errs.push(FieldError::required(
                    Path::new("metadata")
                        .child("annotations")
                        .key("kubernetes.io/service-account.name"),
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" => docker_json(secret, ".dockercfg", errs),
        "kubernetes.io/dockerconfigjson" => docker_json(secret, ".dockerconfigjson", errs),
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            // The server builds these paths oddly (`data[%s][username]`); kept as it prints them.
            errs.push(FieldError::required(
                Path::new("data[%s]").key("username"),
                "",
            ));
            errs.push(FieldError::required(
                Path::new("data[%s]").key("password"),
                "",
            ));
        }
        "kubernetes.io/ssh-auth" => {
            let empty = data
                .and_then(|d| d.get("ssh-privatekey"))
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            if empty {
                errs.push(FieldError::required(
                    Path::new("data[%s]").key("ssh-privatekey"),
                    "",
                ));
            }
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if !has(key) {
                    required(errs, key);
                }
            }
        }
        _ => {}
    }
}

/// A docker config Secret's key must hold JSON.
fn docker_json(secret: &Value, key: &str, errs: &mut ErrorList) {
    let Some(text) = string_map(secret, "data")
        .and_then(|d| d.get(key))
        .and_then(Value::as_str)
    else {
        errs.push(FieldError::required(Path::new("data").key(key), ""));
        return;
    };
    let bytes = base64_bytes(text).unwrap_or_default();
    if let Err(e) = serde_json::from_slice::<Map<String, Value>>(&bytes) {
        errs.push(FieldError::invalid(
            Path::new("data").key(key),
            BadValue::Str("<secret contents redacted>".into()),
            e.to_string(),
        ));
    }
}

/// Secrets.
pub struct Secrets;

defaults!(Secrets: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for Secrets {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        check_base64(obj, "data")?;
        // The v1 → internal conversion: `stringData` overwrites `data`, then goes.
        if let Some(Value::Object(strings)) =
            obj.as_object_mut().and_then(|m| m.remove("stringData"))
        {
            if !obj.get("data").is_some_and(Value::is_object) {
                obj["data"] = json!({});
            }
            for (k, v) in strings {
                let text = v.as_str().unwrap_or("");
                obj["data"][k.as_str()] =
                    json!(base64::engine::general_purpose::STANDARD.encode(text));
            }
        }
        default_field(obj, "type", json!("Opaque"));
        Ok(())
    }
}

impl Validator for Secrets {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let size = check_keys(obj, "data", true, errs);
        if size > MAX_SIZE {
            errs.push(FieldError::too_long(Path::new("data"), MAX_SIZE as i64));
        }
        required_keys(obj, errs);
        if let Some(old) = old {
            immutable_field(obj, old, "/type", Path::new("type"), errs);
            immutable_data(obj, old, &["data"], errs);
        }
    }
}

impl Printer for Secrets {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed("Type", "string", "The type of the secret", |o| {
                o.get("type").cloned().unwrap_or(Value::Null)
            }),
            Column::computed("Data", "string", "Data contains the secret data.", |o| {
                count(o, &["data"])
            }),
            Column::builtin_age(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_data_goes_into_data_and_type_defaults() {
        let mut s = json!({"stringData": {"user": "admin"}, "data": {"pw": "cHc="}});
        Secrets.decode(&mut s).unwrap();
        assert_eq!(
            s,
            json!({"data": {"pw": "cHc=", "user": "YWRtaW4="}, "type": "Opaque"})
        );
        let mut bad = json!({"data": {"pw": "not base64!"}});
        assert_eq!(
            Secrets.decode(&mut bad).unwrap_err(),
            "illegal base64 data at input byte 3"
        );
    }

    #[test]
    fn keys_sizes_and_immutability_are_checked() {
        let mut errs = ErrorList::new();
        let cm = json!({"data": {"a b": "x", "k": "v"}, "binaryData": {"k": "dg=="}});
        ConfigMaps.validate(&cm, None, &mut errs);
        let out = errs.strings();
        assert!(
            out[0].starts_with("data[a b]: Invalid value: \"a b\": a valid config key"),
            "{out:?}"
        );
        assert_eq!(
            out[1],
            "data[k]: Invalid value: \"k\": duplicate of key present in binaryData"
        );

        let old = json!({"immutable": true, "data": {"k": "v"}});
        assert_eq!(
            errors_of(&ConfigMaps, &json!({"data": {"k": "w"}}), Some(&old)),
            [
                "immutable: Forbidden: field is immutable when `immutable` is set",
                "data: Forbidden: field is immutable when `immutable` is set"
            ]
        );

        let big = json!({"data": {"k": "x".repeat(MAX_SIZE + 1)}});
        assert_eq!(
            errors_of(&ConfigMaps, &big, None),
            ["[]: Too long: may not be more than 1048576 bytes"]
        );

        let mut errs = ErrorList::new();
        let tls = json!({"type": "kubernetes.io/tls", "data": {"tls.crt": "eA=="}});
        Secrets.validate(&tls, Some(&json!({"type": "Opaque"})), &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "data[tls.key]: Required value",
                "type: Invalid value: \"kubernetes.io/tls\": field is immutable"
            ]
        );
    }
}
