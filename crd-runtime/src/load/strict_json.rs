//! JSON values read the way the API server's strict decoding reads them.
//!
//! `serde_json::Value` silently keeps the last of duplicate keys; the API server's
//! strict decoding rejects them (`duplicate field "kind"`), so JSON is read through
//! a visitor that reports a duplicate key as an error at its position.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value read with duplicate keys rejected.
#[derive(Debug, Clone, PartialEq)]
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        StrictValue::deserialize(d).map(|v| v.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let StrictValue(v) = map.next_value()?;
            // One map lookup per key: insert, or report the key already there.
            match out.entry(key) {
                serde_json::map::Entry::Vacant(e) => {
                    e.insert(v);
                }
                serde_json::map::Entry::Occupied(e) => {
                    return Err(de::Error::custom(format_args!(
                        "duplicate field {}",
                        crate::go::quote(e.key())
                    )));
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// Reads a JSON text nesting `depth` levels (measured by
/// [`crate::depth::json_text_depth`], which refuses texts deeper than the API server
/// reads) as [`StrictValue`], on a stack sized for that depth.
pub(crate) fn parse(text: &str, depth: usize) -> Result<StrictValue, serde_json::Error> {
    crate::depth::with_stack_for(depth, || {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let v = StrictValue::deserialize(&mut de)?;
        de.end()?;
        Ok(v)
    })
}

/// A serde_json error's message without its `at line L column C` tail (positions are
/// reported separately), in the same words as YAML errors where they mean the same.
pub fn json_message(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => &msg,
    };
    if msg == "recursion limit exceeded" {
        format!("document nests deeper than {} levels", super::MAX_DEPTH)
    } else {
        msg.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_depth_are_errors_in_words() {
        let e = serde_json::from_str::<StrictValue>(r#"{"a": {"b": 1, "b": 2}}"#).unwrap_err();
        assert_eq!(json_message(&e), "duplicate field \"b\"");
        assert_eq!((e.line(), e.column()), (1, 22));
        let deep = "[".repeat(20_000);
        let e = parse(&deep, 20_000).unwrap_err();
        assert_eq!(json_message(&e), "EOF while parsing a list");
        let v = serde_json::from_str::<StrictValue>(r#"{"a": [1, 2.5, null, "x"]}"#).unwrap();
        assert_eq!(v.0, serde_json::json!({"a": [1, 2.5, null, "x"]}));
    }
}
