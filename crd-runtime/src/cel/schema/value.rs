//! JSON values to CEL values, typed by the schema as the API server types them
//! (`k8s.io/apiserver/pkg/cel/common` `UnstructuredToVal`).
//!
//! - Objects with `properties` become maps keyed by the escaped property names;
//!   keys without a schema (kept by `x-kubernetes-preserve-unknown-fields`) and
//!   properties whose names cannot be escaped are invisible.
//! - `additionalProperties` maps keep their keys literally.
//! - `format: date`/`date-time` strings become timestamps, `duration` strings
//!   durations, `byte` strings the decoded bytes. A string that does not parse
//!   stays a string (the server makes it an error value; either way a rule that
//!   uses it as a timestamp fails).
//! - `number` values are doubles even when written as integers; `integer`
//!   values written as integral floats (`1.0`) are ints.
//! - `x-kubernetes-int-or-string` values are ints or strings.
//! - Nodes CEL cannot see (no usable type) keep their JSON shape, untyped.
//!
//! Lists keep their order, including `x-kubernetes-list-type: set`/`map`
//! lists; `==` on those compares as the server does through a compile-time
//! rewrite ([`crate::cel::library::equality`]).

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine;
use kube_cel::cel::objects::{Key, Map, Value};
use serde_json::Value as Json;

use crate::cel::schema::CelSchema;

use crate::cel::schema::decl::{Decl, decl, fields};

/// Converts `v`, typed by `schema` (`resource_root`: the node is the root of a resource).
pub fn to_cel(v: &Json, schema: &CelSchema, resource_root: bool) -> Value {
    convert(v, decl(schema, resource_root))
}

fn convert(v: &Json, d: Option<Decl<'_>>) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    match (d, v) {
        (Some(Decl::Object(s, root)), Json::Object(m)) => {
            let mut out = HashMap::with_capacity(m.len());
            for (name, f) in fields(s, root) {
                if let Some(fv) = m.get(f.json_name) {
                    let child = decl(f.schema, f.schema.is_embedded_resource());
                    out.insert(Key::String(Arc::new(name)), convert(fv, child));
                }
            }
            map(out)
        }
        (Some(Decl::Map(vs)), Json::Object(m)) => {
            let child = decl(vs, vs.is_embedded_resource());
            let out = m
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), convert(v, child)))
                .collect();
            map(out)
        }
        (Some(Decl::List(items)), Json::Array(a)) => {
            let child = decl(items, items.is_embedded_resource());
            Value::List(Arc::new(a.iter().map(|x| convert(x, child)).collect()))
        }
        (Some(Decl::Timestamp), Json::String(s)) => parse_timestamp(s)
            .map(Value::Timestamp)
            .unwrap_or_else(|| string(s)),
        (Some(Decl::Duration), Json::String(s)) => parse_duration(s)
            .map(Value::Duration)
            .unwrap_or_else(|| string(s)),
        (Some(Decl::Bytes), Json::String(s)) => base64::engine::general_purpose::STANDARD
            .decode(s)
            .map(|b| Value::Bytes(Arc::new(b)))
            .unwrap_or_else(|_| string(s)),
        (Some(Decl::Double), Json::Number(n)) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        (Some(Decl::Int) | Some(Decl::IntOrString), Json::Number(n)) => number(n),
        (_, other) => untyped(other),
    }
}

fn map(m: HashMap<Key, Value>) -> Value {
    Value::Map(Map { map: Arc::new(m) })
}

fn string(s: &str) -> Value {
    Value::String(Arc::new(s.to_string()))
}

/// An integer when the number is integral, else a double (Go's unstructured decoding).
fn number(n: &serde_json::Number) -> Value {
    if let Some(i) = n.as_i64() {
        return Value::Int(i);
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

/// A value without a schema (admission's `object`, `params`, `request`, …).
pub(crate) fn from_json(v: &Json) -> Value {
    untyped(v)
}

/// A value without a schema: its JSON shape.
fn untyped(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => number(n),
        Json::String(s) => string(s),
        Json::Array(a) => Value::List(Arc::new(a.iter().map(untyped).collect())),
        Json::Object(m) => map(m
            .iter()
            .map(|(k, v)| (Key::String(Arc::new(k.clone())), untyped(v)))
            .collect()),
    }
}

/// RFC 3339 date-times (with or without fractional seconds) and full dates
/// (midnight UTC), like `strfmt.ParseDateTime` / `strfmt.RFC3339FullDate`.
pub(crate) fn parse_timestamp(s: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t);
    }
    let date = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
    let utc = chrono::FixedOffset::east_opt(0)?;
    date.and_hms_opt(0, 0, 0)?.and_local_timezone(utc).single()
}

/// Go-style durations (`1h30m`, `-1.5s`, `300ms`) plus `d` and `w`, like
/// `strfmt.ParseDuration` (the `duration` format).
pub(crate) fn parse_duration(s: &str) -> Option<chrono::Duration> {
    parse_go_duration(s, true)
}

/// Go's `time.ParseDuration` (units `ns` to `h`), with `d` and `w` too when
/// `day_units` is set.
pub(crate) fn parse_go_duration(s: &str, day_units: bool) -> Option<chrono::Duration> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(chrono::Duration::zero());
    }
    if rest.is_empty() {
        return None;
    }
    let mut total_ns: f64 = 0.0;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            "d" if day_units => 86400e9,
            "w" if day_units => 7.0 * 86400e9,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total_ns += num * scale;
    }
    if !total_ns.is_finite() || total_ns > i64::MAX as f64 {
        return None;
    }
    let ns = total_ns.round() as i64;
    Some(chrono::Duration::nanoseconds(if neg { -ns } else { ns }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Json) -> std::sync::Arc<CelSchema> {
        let s: crate::model::JSONSchemaProps = serde_json::from_value(v).expect("schema");
        CelSchema::new(&s)
    }

    fn get<'a>(v: &'a Value, k: &str) -> Option<&'a Value> {
        match v {
            Value::Map(m) => m.map.get(&Key::String(Arc::new(k.to_string()))),
            _ => None,
        }
    }

    #[test]
    fn objects_are_typed_by_their_schema() {
        let s = schema(json!({"type": "object", "properties": {
            "n": {"type": "number"}, "i": {"type": "integer"},
            "t": {"type": "string", "format": "date-time"},
            "d": {"type": "string", "format": "duration"},
            "b": {"type": "string", "format": "byte"},
            "ios": {"x-kubernetes-int-or-string": true},
            "foo-bar": {"type": "string"},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        }}));
        let v = to_cel(
            &json!({"n": 1, "i": 2.0, "t": "2024-01-02T03:04:05Z", "d": "1h30m",
                    "b": "aGk=", "ios": "50%", "foo-bar": "x", "unknown": 1,
                    "m": {"a.b/c": "v"}}),
            &s,
            false,
        );
        assert_eq!(get(&v, "n"), Some(&Value::Float(1.0)));
        assert_eq!(get(&v, "i"), Some(&Value::Int(2)));
        assert!(matches!(get(&v, "t"), Some(Value::Timestamp(_))));
        assert_eq!(
            get(&v, "d"),
            Some(&Value::Duration(chrono::Duration::minutes(90)))
        );
        assert_eq!(get(&v, "b"), Some(&Value::Bytes(Arc::new(b"hi".to_vec()))));
        assert_eq!(get(&v, "ios"), Some(&Value::from("50%")));
        assert_eq!(get(&v, "foo__dash__bar"), Some(&Value::from("x")));
        assert_eq!(get(&v, "unknown"), None);
        assert_eq!(
            get(get(&v, "m").expect("m"), "a.b/c"),
            Some(&Value::from("v"))
        );
    }

    #[test]
    fn resource_roots_expose_only_name_and_generate_name_of_metadata() {
        let s = schema(json!({"type": "object", "properties": {"spec": {"type": "object"}}}));
        let v = to_cel(
            &json!({"apiVersion": "a/v1", "kind": "K",
                    "metadata": {"name": "n", "labels": {"a": "b"}}}),
            &s,
            true,
        );
        assert_eq!(get(&v, "kind"), Some(&Value::from("K")));
        let meta = get(&v, "metadata").expect("metadata");
        assert_eq!(get(meta, "name"), Some(&Value::from("n")));
        assert_eq!(get(meta, "labels"), None);
    }

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(
            parse_duration("300ms"),
            Some(chrono::Duration::milliseconds(300))
        );
        assert_eq!(
            parse_duration("-1.5s"),
            Some(chrono::Duration::milliseconds(-1500))
        );
        assert_eq!(parse_duration("2d"), Some(chrono::Duration::days(2)));
        assert_eq!(parse_duration("0"), Some(chrono::Duration::zero()));
        assert_eq!(parse_duration("5"), None);
        assert_eq!(parse_duration("1x"), None);
        assert!(parse_timestamp("2024-01-02").is_some());
        assert!(parse_timestamp("2024-01-02T03:04:05.123+02:00").is_some());
        assert!(parse_timestamp("yesterday").is_none());
    }
}
