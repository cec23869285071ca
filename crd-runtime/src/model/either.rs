//! Deserializers for the "schema or something else" keyword forms.
//!
//! `#[serde(untagged)]` would buffer every subtree and replace a precise error
//! (`unknown field "typo"` deep inside `items`) with "did not match any variant".
//! These visitors dispatch on the JSON kind instead, so inner errors and their
//! paths survive.

use std::fmt;

use serde::de::{self, MapAccess, SeqAccess, Visitor, value::MapAccessDeserializer};
use serde::{Deserialize, Deserializer};

use super::schema::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, JSONSchemaPropsOrStringArray,
};

fn schema_from_map<'de, A: MapAccess<'de>>(map: A) -> Result<JSONSchemaProps, A::Error> {
    JSONSchemaProps::deserialize(MapAccessDeserializer::new(map))
}

impl<'de> Deserialize<'de> for JSONSchemaPropsOrArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JSONSchemaPropsOrArray;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a schema object or an array of schemas")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                schema_from_map(map).map(JSONSchemaPropsOrArray::Schema)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<JSONSchemaProps>()? {
                    out.push(s);
                }
                Ok(JSONSchemaPropsOrArray::Schemas(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for JSONSchemaPropsOrBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JSONSchemaPropsOrBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a boolean or a schema object")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
                Ok(JSONSchemaPropsOrBool::Bool(b))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                schema_from_map(map).map(JSONSchemaPropsOrBool::Schema)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for JSONSchemaPropsOrStringArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JSONSchemaPropsOrStringArray;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a schema object or an array of property names")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                schema_from_map(map).map(JSONSchemaPropsOrStringArray::Schema)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(JSONSchemaPropsOrStringArray::Property(out))
            }
        }
        d.deserialize_any(V)
    }
}
