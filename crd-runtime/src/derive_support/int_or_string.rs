//! `IntOrString`: a value that is an integer or a string (`x-kubernetes-int-or-string`).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::literal::{Integer, Str};
use super::{AcceptsDefault, CrdSchema};
use crate::model::JSONSchemaProps;

/// An integer or a string, like k8s-openapi's `IntOrString` (ports, percentages).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntOrString {
    /// An integer.
    Int(i32),
    /// A string.
    String(String),
}

impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

impl From<i32> for IntOrString {
    fn from(v: i32) -> Self {
        IntOrString::Int(v)
    }
}

impl From<&str> for IntOrString {
    fn from(v: &str) -> Self {
        IntOrString::String(v.to_string())
    }
}

impl From<String> for IntOrString {
    fn from(v: String) -> Self {
        IntOrString::String(v)
    }
}

impl fmt::Display for IntOrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrString::Int(i) => write!(f, "{i}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

impl Serialize for IntOrString {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            IntOrString::Int(i) => s.serialize_i32(*i),
            IntOrString::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = IntOrString;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an int32 or a string")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::String(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl CrdSchema for IntOrString {
    fn crd_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            x_kubernetes_int_or_string: Some(true),
            ..Default::default()
        }
    }
}
impl AcceptsDefault<Integer> for IntOrString {}
impl AcceptsDefault<Str> for IntOrString {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_both_forms() {
        for (json, v) in [
            ("8080", IntOrString::Int(8080)),
            ("\"50%\"", IntOrString::from("50%")),
        ] {
            assert_eq!(serde_json::from_str::<IntOrString>(json).unwrap(), v);
            assert_eq!(serde_json::to_string(&v).unwrap(), json);
        }
        assert!(serde_json::from_str::<IntOrString>("1.5").is_err());
        assert!(serde_json::from_str::<IntOrString>("4294967296").is_err());
        assert!(IntOrString::crd_schema().is_int_or_string());
    }
}
