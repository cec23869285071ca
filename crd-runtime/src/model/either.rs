//! Deserializers for the "schema or something else" keyword forms.
//!
//! `#[serde(untagged)]` would buffer every subtree and replace a precise error
//! (`unknown field "typo"` deep inside `items`) with "did not match any variant".
//! These visitors dispatch on the JSON kind instead, so inner errors and their
//! paths survive.

use std::fmt;

use serde::de::{self, MapAccess, SeqAccess, Unexpected, Visitor, value::MapAccessDeserializer};
use serde::{Deserialize, Deserializer};

use super::schema::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, JSONSchemaPropsOrStringArray,
};

/// The visitor of a "schema or something else" keyword: a JSON object is the
/// schema; a boolean, or an array of `Item`s, is what `boolean` or `list` makes of
/// it, and refused with serde's usual "invalid type" error (naming `expecting`)
/// where the keyword has no such form.
struct SchemaOr<T, Item> {
    expecting: &'static str,
    schema: fn(JSONSchemaProps) -> T,
    boolean: Option<fn(bool) -> T>,
    list: Option<fn(Vec<Item>) -> T>,
}

impl<'de, T, Item: Deserialize<'de>> Visitor<'de> for SchemaOr<T, Item> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<T, E> {
        match self.boolean {
            Some(boolean) => Ok(boolean(b)),
            None => Err(E::invalid_type(Unexpected::Bool(b), &self)),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        JSONSchemaProps::deserialize(MapAccessDeserializer::new(map)).map(self.schema)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let Some(list) = self.list else {
            return Err(de::Error::invalid_type(Unexpected::Seq, &self));
        };
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<Item>()? {
            out.push(item);
        }
        Ok(list(out))
    }
}

impl<'de> Deserialize<'de> for JSONSchemaPropsOrArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SchemaOr {
            expecting: "a schema object or an array of schemas",
            schema: Self::Schema,
            boolean: None,
            list: Some(Self::Schemas),
        })
    }
}

impl<'de> Deserialize<'de> for JSONSchemaPropsOrBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // No array form: `()` stands for its (absent) item type.
        d.deserialize_any(SchemaOr::<_, ()> {
            expecting: "a boolean or a schema object",
            schema: Self::Schema,
            boolean: Some(Self::Bool),
            list: None,
        })
    }
}

impl<'de> Deserialize<'de> for JSONSchemaPropsOrStringArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SchemaOr {
            expecting: "a schema object or an array of property names",
            schema: Self::Schema,
            boolean: None,
            list: Some(Self::Property),
        })
    }
}
