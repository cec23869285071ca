//! The messages whose JSON is not an object of their fields: times, quantities,
//! int-or-strings, raw JSON and the JSON schema's either-or types, each as its Go
//! type's `MarshalJSON` writes it. The tables' generator checks their field numbers
//! against k8s-pb.

use chrono::{DateTime, SecondsFormat};
use serde_json::{Map, Value};

use super::messages::{Message, decode_into};
use super::wire::{Payload, bad, fields, lossy};
use crate::api::status::ApiError;

/// A double as Go's encoding/json writes it (an integral one without a fraction).
pub fn number(x: f64) -> Result<Value, ApiError> {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        return Ok(Value::from(x as i64));
    }
    serde_json::Number::from_f64(x)
        .map(Value::Number)
        .ok_or_else(|| bad("a number is not finite"))
}

/// `metav1.Time` (seconds only, as kube-apiserver reads it) or `MicroTime`; empty is
/// the zero time, `null` in JSON.
pub fn time(buf: &[u8], micros: bool) -> Result<Value, ApiError> {
    if buf.is_empty() {
        return Ok(Value::Null);
    }
    let (mut seconds, mut nanos) = (0i64, 0u32);
    for (n, p) in fields(buf)? {
        match (n, p) {
            (1, Payload::Varint(v)) => seconds = v as i64,
            (2, Payload::Varint(v)) if micros => nanos = u32::try_from(v as i32).unwrap_or(0),
            _ => {}
        }
    }
    let t = DateTime::from_timestamp(seconds, nanos).ok_or_else(|| bad("a time out of range"))?;
    // Go's zero time (year 1) is `null` as well.
    if t.timestamp() == -62_135_596_800 && nanos == 0 {
        return Ok(Value::Null);
    }
    let format = if micros {
        SecondsFormat::Micros
    } else {
        SecondsFormat::Secs
    };
    Ok(Value::String(t.to_rfc3339_opts(format, true)))
}

/// `resource.Quantity`: its string (a zero quantity is `"0"`).
pub fn quantity(buf: &[u8]) -> Result<Value, ApiError> {
    let mut out = String::from("0");
    for (n, p) in fields(buf)? {
        if let (1, Payload::Bytes(b)) = (n, p) {
            out = lossy(b);
        }
    }
    Ok(Value::String(out))
}

/// `intstr.IntOrString`: type 0 is the number, 1 the string.
pub fn int_or_string(buf: &[u8]) -> Result<Value, ApiError> {
    let (mut ty, mut int, mut text) = (0u64, 0i32, String::new());
    for (n, p) in fields(buf)? {
        match (n, p) {
            (1, Payload::Varint(v)) => ty = v,
            (2, Payload::Varint(v)) => int = v as i32,
            (3, Payload::Bytes(b)) => text = lossy(b),
            _ => {}
        }
    }
    match ty {
        0 => Ok(Value::from(int)),
        1 => Ok(Value::String(text)),
        _ => Err(bad("an IntOrString of an unknown type")),
    }
}

/// Raw JSON bytes (`RawExtension`, `JSON`, `FieldsV1`): `null` when there are none.
pub fn raw(buf: &[u8]) -> Result<Value, ApiError> {
    let mut raw: &[u8] = &[];
    for (n, p) in fields(buf)? {
        if let (1, Payload::Bytes(b)) = (n, p) {
            raw = b;
        }
    }
    if raw.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(raw).map_err(|_| bad("an embedded value is not JSON"))
}

/// The schema (field `schema_field`) and the repeated field `list_field` of an
/// either-or message.
struct Either<'a> {
    schema: Option<Map<String, Value>>,
    list: Vec<Payload<'a>>,
    allows: bool,
}

fn either<'a>(
    m: &Message,
    buf: &'a [u8],
    schema_field: u32,
    list_field: u32,
    depth: usize,
) -> Result<Either<'a>, ApiError> {
    let mut out = Either {
        schema: None,
        list: Vec::new(),
        allows: false,
    };
    for (n, p) in fields(buf)? {
        match p {
            Payload::Bytes(b) if n == schema_field => {
                decode_into(m, b, out.schema.get_or_insert_with(Map::new), depth)?
            }
            p if n == list_field => out.list.push(p),
            Payload::Varint(v) if n == 1 => out.allows = v != 0,
            _ => {}
        }
    }
    Ok(out)
}

fn schemas(m: &Message, list: Vec<Payload<'_>>, depth: usize) -> Result<Value, ApiError> {
    let mut out = Vec::new();
    for p in list {
        let Payload::Bytes(b) = p else {
            return Err(bad("a schema is not length-delimited"));
        };
        let mut item = Map::new();
        decode_into(m, b, &mut item, depth)?;
        out.push(Value::Object(item));
    }
    Ok(Value::Array(out))
}

/// `JSONSchemaPropsOrArray`: the list when it has items, else the schema (or `null`).
pub fn or_array(m: &Message, buf: &[u8], depth: usize) -> Result<Value, ApiError> {
    let e = either(m, buf, 1, 2, depth)?;
    if !e.list.is_empty() {
        return schemas(m, e.list, depth);
    }
    Ok(e.schema.map_or(Value::Null, Value::Object))
}

/// `JSONSchemaPropsOrBool`: the schema when set, else the boolean.
pub fn or_bool(m: &Message, buf: &[u8], depth: usize) -> Result<Value, ApiError> {
    let e = either(m, buf, 2, 0, depth)?;
    Ok(e.schema.map_or(Value::Bool(e.allows), Value::Object))
}

/// `JSONSchemaPropsOrStringArray`: the strings when there are some, else the schema.
pub fn or_strings(m: &Message, buf: &[u8], depth: usize) -> Result<Value, ApiError> {
    let e = either(m, buf, 1, 2, depth)?;
    if !e.list.is_empty() {
        let mut out = Vec::new();
        for p in e.list {
            let Payload::Bytes(b) = p else {
                return Err(bad("a string is not length-delimited"));
            };
            out.push(Value::String(lossy(b)));
        }
        return Ok(Value::Array(out));
    }
    Ok(e.schema.map_or(Value::Null, Value::Object))
}
