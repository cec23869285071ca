//! Reading objects to validate: a stream of JSON values (one document, or JSON
//! lines) parsed with serde_json in one pass, or multi-document YAML.
//!
//! `serde_json::Value` silently keeps the last of duplicate keys; the API server's
//! strict decoding rejects them, so JSON objects are read through a visitor that
//! reports a duplicate key as an error with its position.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value read with duplicate keys rejected.
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
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field {key:?}")));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// A syntax error with its position (1-based; 0 when unknown).
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Calls `f` with every JSON value of `bytes` (whitespace-separated, so JSON lines
/// work), as soon as it is parsed; stops at the first syntax error and returns it.
pub fn for_each_json_value(bytes: &[u8], mut f: impl FnMut(Value)) -> Option<SyntaxError> {
    let stream = serde_json::Deserializer::from_slice(bytes).into_iter::<StrictValue>();
    for item in stream {
        match item {
            Ok(StrictValue(v)) => f(v),
            Err(e) => {
                let msg = e.to_string();
                let message = match msg.rfind(" at line ") {
                    Some(i) => msg[..i].to_string(),
                    None => msg,
                };
                return Some(SyntaxError {
                    line: e.line(),
                    column: e.column(),
                    message,
                });
            }
        }
    }
    None
}

/// Every JSON value of `bytes`, and the syntax error that stopped the parse, if any.
#[cfg(test)]
fn json_values(bytes: &[u8]) -> (Vec<Value>, Option<SyntaxError>) {
    let mut out = Vec::new();
    let err = for_each_json_value(bytes, |v| out.push(v));
    (out, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_and_duplicates() {
        let (v, err) = json_values(b"{\"a\":1}\n{\"b\":[1,2.5,null]}\n");
        assert!(err.is_none());
        assert_eq!(v.len(), 2);
        let (v, err) = json_values(b"{\"a\":1}\n{\"a\":1,\"a\":2}\n");
        assert_eq!(v.len(), 1);
        let err = err.unwrap();
        assert_eq!(
            (err.line, err.message.as_str()),
            (2, "duplicate field \"a\"")
        );
        let deep = "[".repeat(10_000);
        let (_, err) = json_values(deep.as_bytes());
        assert!(err.unwrap().message.contains("recursion limit"));
        let (_, err) = json_values(b"{\"a\":\"\xff\"}");
        assert!(err.is_some());
    }
}
