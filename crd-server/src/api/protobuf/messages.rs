//! Message descriptors (field numbers, JSON names, types; the tables themselves are
//! generated into [`super::generated`]) and decoding a message into the JSON the same
//! object has in `application/json`, as kube-apiserver's Go types would marshal it.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::special;
use super::wire::{Payload, bad, fields, lossy, packed};
use crate::api::status::ApiError;

/// A message type.
pub struct Message {
    /// Sorted by number.
    pub fields: &'static [Field],
}

/// One field: its number, its JSON name, its type and how often it occurs.
pub struct Field {
    pub number: u32,
    pub name: &'static str,
    pub ty: Ty,
    pub card: Card,
}

/// How often a field occurs and how its JSON is written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Card {
    /// One value; a zero scalar is left out (Go's `omitempty` on a non-pointer).
    Optional,
    /// One value, kept even when zero (a Go pointer, or no `omitempty`).
    Kept,
    Repeated,
    /// `map<string, ty>`.
    Map,
    /// A Go struct embedded with `json:",inline"`: its fields are the parent's.
    Inline,
}

/// How a payload reads.
#[derive(Clone, Copy)]
pub enum Ty {
    Str,
    /// Base64 in JSON.
    Bytes,
    Bool,
    Int32,
    Int64,
    Double,
    /// `metav1.Time`: RFC 3339 in seconds (`null` when zero).
    Time,
    /// `metav1.MicroTime`: RFC 3339 in microseconds (`null` when zero).
    MicroTime,
    /// `resource.Quantity`: its string.
    Quantity,
    /// `intstr.IntOrString`: a JSON number or string.
    IntOrString,
    /// `runtime.RawExtension`, apiextensions `JSON`, `FieldsV1`: raw JSON bytes.
    Raw,
    /// authentication's and authorization's `ExtraValue`: a list of strings.
    StringList,
    Msg(&'static Message),
    /// `JSONSchemaPropsOrArray` (of the schema message).
    OrArray(&'static Message),
    /// `JSONSchemaPropsOrBool`.
    OrBool(&'static Message),
    /// `JSONSchemaPropsOrStringArray`.
    OrStrings(&'static Message),
}

/// A field of one value (`omitempty` applies).
pub const fn o(number: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        number,
        name,
        ty,
        card: Card::Optional,
    }
}

/// A field of one value kept when zero.
pub const fn k(number: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        number,
        name,
        ty,
        card: Card::Kept,
    }
}

/// A repeated field.
pub const fn r(number: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        number,
        name,
        ty,
        card: Card::Repeated,
    }
}

/// A map field (`ty` is the values').
pub const fn m(number: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        number,
        name,
        ty,
        card: Card::Map,
    }
}

/// An inlined message field.
pub const fn i(number: u32, name: &'static str, ty: Ty) -> Field {
    Field {
        number,
        name,
        ty,
        card: Card::Inline,
    }
}

/// `runtime.TypeMeta` of the envelope.
pub static TYPE_META: Message = Message {
    fields: &[o(1, "apiVersion", Ty::Str), o(2, "kind", Ty::Str)],
};

/// How deep messages may nest: far beyond any real object, well within the stack.
const MAX_DEPTH: usize = 200;

/// Decodes a message of type `m`.
pub fn decode(m: &Message, buf: &[u8]) -> Result<Value, ApiError> {
    let mut out = Map::new();
    decode_into(m, buf, &mut out, 0)?;
    Ok(Value::Object(out))
}

/// Decodes into `out`: a message read twice merges, as protobuf merges it.
pub(super) fn decode_into(
    m: &Message,
    buf: &[u8],
    out: &mut Map<String, Value>,
    depth: usize,
) -> Result<(), ApiError> {
    if depth > MAX_DEPTH {
        return Err(bad("messages nested too deeply"));
    }
    for (number, payload) in fields(buf)? {
        // Fields this server does not know are skipped, as a decoder of an older
        // version skips them.
        let Ok(at) = m.fields.binary_search_by_key(&number, |f| f.number) else {
            continue;
        };
        read(&m.fields[at], payload, out, depth)?;
    }
    Ok(())
}

fn read(
    field: &Field,
    payload: Payload<'_>,
    out: &mut Map<String, Value>,
    depth: usize,
) -> Result<(), ApiError> {
    let name = field.name;
    match field.card {
        Card::Repeated => {
            let items = match (field.ty, payload) {
                // Packed scalars: one payload holding many.
                (Ty::Int32 | Ty::Int64 | Ty::Bool | Ty::Double, Payload::Bytes(b)) => {
                    packed(b, matches!(field.ty, Ty::Double))?
                        .into_iter()
                        .map(|p| value(field, p, depth))
                        .collect::<Result<Vec<_>, _>>()?
                }
                _ => vec![value(field, payload, depth)?],
            };
            let slot = out.entry(name).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = slot {
                list.extend(items);
            }
        }
        Card::Map => {
            let (key, v) = map_entry(field, bytes(field, payload)?, depth)?;
            let slot = out.entry(name).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(map) = slot {
                map.insert(key, v);
            }
        }
        Card::Inline | Card::Optional | Card::Kept => {
            if let Ty::Msg(sub) = field.ty {
                let b = bytes(field, payload)?;
                if field.card == Card::Inline {
                    return decode_into(sub, b, out, depth + 1);
                }
                let slot = out.entry(name).or_insert_with(|| Value::Object(Map::new()));
                if !slot.is_object() {
                    *slot = Value::Object(Map::new());
                }
                if let Value::Object(map) = slot {
                    decode_into(sub, b, map, depth + 1)?;
                }
                return Ok(());
            }
            let v = value(field, payload, depth)?;
            if field.card == Card::Optional && is_zero(field.ty, &v) {
                out.remove(name);
            } else {
                out.insert(name.into(), v);
            }
        }
    }
    Ok(())
}

/// A zero scalar, which Go's `omitempty` leaves out.
fn is_zero(ty: Ty, v: &Value) -> bool {
    match ty {
        Ty::Str | Ty::Bytes => v.as_str() == Some(""),
        Ty::Bool => v == &Value::Bool(false),
        Ty::Int32 | Ty::Int64 | Ty::Double => v.as_f64() == Some(0.0),
        _ => false,
    }
}

fn bytes<'a>(field: &Field, payload: Payload<'a>) -> Result<&'a [u8], ApiError> {
    match payload {
        Payload::Bytes(b) => Ok(b),
        _ => Err(wire_type(field)),
    }
}

fn wire_type(field: &Field) -> ApiError {
    bad(&format!("field {} has the wrong wire type", field.name))
}

fn varint(field: &Field, payload: Payload<'_>) -> Result<u64, ApiError> {
    match payload {
        Payload::Varint(v) => Ok(v),
        _ => Err(wire_type(field)),
    }
}

/// One value of `field`'s type.
fn value(field: &Field, payload: Payload<'_>, depth: usize) -> Result<Value, ApiError> {
    Ok(match field.ty {
        Ty::Str => Value::String(lossy(bytes(field, payload)?)),
        Ty::Bytes => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes(field, payload)?))
        }
        Ty::Bool => Value::Bool(varint(field, payload)? != 0),
        // Negative numbers are ten-byte two's complement varints; an int32 keeps the
        // low 32 bits, as Go's decoder does.
        Ty::Int32 => Value::from(varint(field, payload)? as i32),
        Ty::Int64 => Value::from(varint(field, payload)? as i64),
        Ty::Double => match payload {
            Payload::Fixed64(bits) => special::number(f64::from_bits(bits))?,
            _ => return Err(wire_type(field)),
        },
        Ty::Time => special::time(bytes(field, payload)?, false)?,
        Ty::MicroTime => special::time(bytes(field, payload)?, true)?,
        Ty::Quantity => special::quantity(bytes(field, payload)?)?,
        Ty::IntOrString => special::int_or_string(bytes(field, payload)?)?,
        Ty::Raw => special::raw(bytes(field, payload)?)?,
        Ty::StringList => special::string_list(bytes(field, payload)?)?,
        Ty::Msg(sub) => {
            let mut out = Map::new();
            decode_into(sub, bytes(field, payload)?, &mut out, depth + 1)?;
            Value::Object(out)
        }
        Ty::OrArray(schema) => or_array(schema, bytes(field, payload)?, depth + 1)?,
        Ty::OrBool(schema) => or_bool(schema, bytes(field, payload)?, depth + 1)?,
        Ty::OrStrings(schema) => or_strings(schema, bytes(field, payload)?, depth + 1)?,
    })
}

/// A map entry: key 1, value 2 (a missing value is its type's zero).
fn map_entry(field: &Field, buf: &[u8], depth: usize) -> Result<(String, Value), ApiError> {
    let (mut key, mut raw) = (String::new(), None);
    for (n, p) in fields(buf)? {
        match (n, p) {
            (1, Payload::Bytes(b)) => key = lossy(b),
            (2, p) => raw = Some(p),
            _ => {}
        }
    }
    let v = value(field, raw.unwrap_or(Payload::Bytes(&[])), depth)?;
    Ok((key, v))
}

// The JSON schema's either-or messages, as their Go types' `MarshalJSON` write them.

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
