//! The messages whose JSON is not an object of their fields: times, quantities,
//! int-or-strings and raw JSON, each as its Go type's `MarshalJSON` writes it. The
//! tables' generator checks their field numbers against k8s-pb.

use chrono::{DateTime, SecondsFormat};
use serde_json::Value;

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

/// `ExtraValue` (a user's extra attributes): its repeated `items`, as a JSON array.
pub fn string_list(buf: &[u8]) -> Result<Value, ApiError> {
    let mut out = Vec::new();
    for (n, p) in fields(buf)? {
        if let (1, Payload::Bytes(b)) = (n, p) {
            out.push(Value::String(lossy(b)));
        }
    }
    Ok(Value::Array(out))
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
