//! Descriptors of the protobuf messages this server reads (field numbers and JSON names
//! as `k8s.io/api`'s `generated.proto` declares them), and decoding a message into
//! the JSON the same object has in `application/json`.

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat};
use serde_json::{Map, Value};

use super::wire::{Payload, bad, fields, text};
use crate::api::status::ApiError;

/// A message type.
pub struct Message {
    pub fields: &'static [Field],
}

/// One field: its number, its JSON name, and how its payload reads.
pub struct Field {
    pub number: u32,
    pub name: &'static str,
    pub ty: Ty,
}

/// How a field's payload reads.
pub enum Ty {
    /// `string` (an empty one is left out, as Go's `omitempty` leaves it out).
    String,
    Bool,
    /// Any varint integer (`int32`, `int64`; negative ones are ten-byte varints).
    Int,
    /// `metav1.Time`: RFC 3339 in seconds.
    Time,
    /// `metav1.MicroTime`: RFC 3339 in microseconds.
    MicroTime,
    Msg(&'static Message),
    /// `map<string, string>`.
    StringMap,
    /// `map<string, bytes>`.
    BytesMap,
    /// `repeated string`.
    Strings,
    /// `repeated` message.
    Messages(&'static Message),
}

pub const fn f(number: u32, name: &'static str, ty: Ty) -> Field {
    Field { number, name, ty }
}

/// `metav1.OwnerReference`.
pub static OWNER_REFERENCE: Message = Message {
    fields: &[
        f(1, "kind", Ty::String),
        f(3, "name", Ty::String),
        f(4, "uid", Ty::String),
        f(5, "apiVersion", Ty::String),
        f(6, "controller", Ty::Bool),
        f(7, "blockOwnerDeletion", Ty::Bool),
    ],
};

/// `metav1.ObjectMeta` (managed fields are the server's: not read from a body).
pub static OBJECT_META: Message = Message {
    fields: &[
        f(1, "name", Ty::String),
        f(2, "generateName", Ty::String),
        f(3, "namespace", Ty::String),
        f(4, "selfLink", Ty::String),
        f(5, "uid", Ty::String),
        f(6, "resourceVersion", Ty::String),
        f(7, "generation", Ty::Int),
        f(8, "creationTimestamp", Ty::Time),
        f(9, "deletionTimestamp", Ty::Time),
        f(10, "deletionGracePeriodSeconds", Ty::Int),
        f(11, "labels", Ty::StringMap),
        f(12, "annotations", Ty::StringMap),
        f(13, "ownerReferences", Ty::Messages(&OWNER_REFERENCE)),
        f(14, "finalizers", Ty::Strings),
    ],
};

/// `runtime.TypeMeta` of the envelope.
pub static TYPE_META: Message = Message {
    fields: &[f(1, "apiVersion", Ty::String), f(2, "kind", Ty::String)],
};

/// Decodes a message of type `m`.
pub fn decode(m: &Message, buf: &[u8]) -> Result<Value, ApiError> {
    let mut out = Map::new();
    for (number, payload) in fields(buf)? {
        // Fields this server does not know are skipped, as a decoder of an older
        // version skips them.
        let Some(field) = m.fields.iter().find(|f| f.number == number) else {
            continue;
        };
        read(field, payload, &mut out)?;
    }
    Ok(Value::Object(out))
}

fn bytes<'a>(payload: Payload<'a>, field: &Field) -> Result<&'a [u8], ApiError> {
    match payload {
        Payload::Bytes(b) => Ok(b),
        _ => Err(bad(&format!(
            "field {} is not length-delimited",
            field.name
        ))),
    }
}

fn integer(payload: Payload<'_>, field: &Field) -> Result<i64, ApiError> {
    match payload {
        // Two's complement: an int32 or int64 below zero is a ten-byte varint.
        Payload::Varint(v) => Ok(v as i64),
        _ => Err(bad(&format!("field {} is not a varint", field.name))),
    }
}

fn time(buf: &[u8], micros: bool) -> Result<Value, ApiError> {
    let (mut seconds, mut nanos) = (0i64, 0i64);
    for (n, p) in fields(buf)? {
        match (n, p) {
            (1, Payload::Varint(v)) => seconds = v as i64,
            (2, Payload::Varint(v)) => nanos = v as i64,
            _ => {}
        }
    }
    let t = DateTime::from_timestamp(seconds, u32::try_from(nanos).unwrap_or(0))
        .ok_or_else(|| bad("a time out of range"))?;
    let format = if micros {
        SecondsFormat::Micros
    } else {
        SecondsFormat::Secs
    };
    Ok(Value::String(t.to_rfc3339_opts(format, true)))
}

fn map_entry(buf: &[u8], binary: bool) -> Result<(String, Value), ApiError> {
    let (mut key, mut value) = (String::new(), Value::String(String::new()));
    for (n, p) in fields(buf)? {
        match (n, p) {
            (1, Payload::Bytes(b)) => key = text(b)?,
            (2, Payload::Bytes(b)) if binary => {
                value = Value::String(base64::engine::general_purpose::STANDARD.encode(b))
            }
            (2, Payload::Bytes(b)) => value = Value::String(text(b)?),
            _ => {}
        }
    }
    Ok((key, value))
}

fn push(out: &mut Map<String, Value>, name: &str, item: Value) {
    match out.entry(name).or_insert_with(|| Value::Array(Vec::new())) {
        Value::Array(items) => items.push(item),
        other => *other = Value::Array(vec![item]),
    }
}

fn insert(out: &mut Map<String, Value>, name: &str, key: String, value: Value) {
    match out.entry(name).or_insert_with(|| Value::Object(Map::new())) {
        Value::Object(m) => {
            m.insert(key, value);
        }
        other => *other = Value::Object(Map::from_iter([(key, value)])),
    }
}

fn read(field: &Field, payload: Payload<'_>, out: &mut Map<String, Value>) -> Result<(), ApiError> {
    let name = field.name;
    match &field.ty {
        Ty::String => {
            let s = text(bytes(payload, field)?)?;
            if s.is_empty() {
                out.remove(name);
            } else {
                out.insert(name.into(), Value::String(s));
            }
        }
        Ty::Bool => _ = out.insert(name.into(), Value::Bool(integer(payload, field)? != 0)),
        Ty::Int => _ = out.insert(name.into(), Value::from(integer(payload, field)?)),
        Ty::Time => _ = out.insert(name.into(), time(bytes(payload, field)?, false)?),
        Ty::MicroTime => _ = out.insert(name.into(), time(bytes(payload, field)?, true)?),
        Ty::Msg(m) => _ = out.insert(name.into(), decode(m, bytes(payload, field)?)?),
        Ty::StringMap | Ty::BytesMap => {
            let (k, v) = map_entry(bytes(payload, field)?, matches!(field.ty, Ty::BytesMap))?;
            insert(out, name, k, v);
        }
        Ty::Strings => push(out, name, Value::String(text(bytes(payload, field)?)?)),
        Ty::Messages(m) => push(out, name, decode(m, bytes(payload, field)?)?),
    }
    Ok(())
}
