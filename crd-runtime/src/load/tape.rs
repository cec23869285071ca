//! Typed models straight from the YAML reader's event tapes, without building a
//! `serde_json::Value` tree first (a tree node per mapping, a key string per entry,
//! freed again right after typing: about a third of loading a large CRD).
//!
//! The deserializer presents each tape as `serde_json::Value`'s own deserializer
//! presents the value [`yaml_scan::parse`](super::yaml_scan::parse) builds from the
//! same text: the same visits (`null` options are `None`, scalars and flow
//! collections are deserialized by `Value` itself), only the keys come in text
//! order instead of sorted, which no model depends on (duplicate keys never reach
//! here). Anything this path does not take — JSON text, `List` documents, a failed
//! conversion — returns `None`, and the caller takes the value path, which also
//! words every error.

use std::borrow::Cow;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::Value;

use super::yaml_scan::{self, Event, Tape};
use super::{CrdDocument, LoadedCrds, SHALLOW, is_crd_or_skip, is_json, on_big_stack};
use crate::model::{
    API_VERSION_V1BETA1, CustomResourceDefinition, CustomResourceDefinitionV1Beta1,
};

/// Every CRD of a YAML manifest typed from tapes, or `None` when the value path
/// must read it (see the module docs).
pub(super) fn load_crds(text: &str) -> Option<LoadedCrds> {
    if is_json(text) {
        return None;
    }
    let mut out = LoadedCrds::default();
    for (document, tape) in yaml_scan::parse_tapes(text)?.into_iter().enumerate() {
        let (api_version, kind) = type_meta(&tape.events);
        if kind.ends_with("List") {
            return None;
        }
        let api_version = api_version.to_string();
        if !is_crd_or_skip(&mut out, document, &api_version, kind) {
            continue;
        }
        let crd = if api_version == API_VERSION_V1BETA1 {
            typed::<CustomResourceDefinitionV1Beta1>(tape)?.into_v1()
        } else {
            typed::<CustomResourceDefinition>(tape)?
        };
        out.crds.push(CrdDocument {
            document,
            crd,
            original_api_version: api_version,
        });
    }
    Some(out)
}

/// `apiVersion` and `kind` of a document whose root is a mapping, each `""` when
/// absent or not a string (as the value path reads them).
fn type_meta<'t>(events: &'t [Event<'_>]) -> (&'t str, &'t str) {
    let (mut api_version, mut kind) = ("", "");
    if !matches!(events.first(), Some(Event::Map)) {
        return (api_version, kind);
    }
    let mut i = 1;
    while let Some(Event::Key(key)) = events.get(i) {
        if let Some(Event::Value(Value::String(s))) = events.get(i + 1) {
            match key.as_ref() {
                "apiVersion" => api_version = s,
                "kind" => kind = s,
                _ => {}
            }
        }
        i = skip(events, i + 1);
    }
    (api_version, kind)
}

/// The index after the node starting at `i`.
fn skip(events: &[Event<'_>], mut i: usize) -> usize {
    let mut open = 0usize;
    loop {
        match events.get(i) {
            Some(Event::Map | Event::Seq) => open += 1,
            Some(Event::End) => open = open.saturating_sub(1),
            _ => {}
        }
        i += 1;
        if open == 0 || i >= events.len() {
            return i;
        }
    }
}

/// Deserializes a whole tape; `None` on any error (the value path words it). Deep
/// documents are typed on a big stack, as on the value path.
fn typed<T: DeserializeOwned + Send>(tape: Tape<'_>) -> Option<T> {
    let deep = tape.depth > SHALLOW;
    let events = tape.events;
    let convert = move || from_events(events);
    if deep {
        on_big_stack(convert).ok().flatten()
    } else {
        convert()
    }
}

/// `T` from a whole tape's events, on this thread.
pub(super) fn from_events<T: DeserializeOwned>(events: Vec<Event<'_>>) -> Option<T> {
    let mut reader = Events {
        events: events.into_iter().peekable(),
    };
    let typed = T::deserialize(&mut reader).ok()?;
    reader.events.next().is_none().then_some(typed)
}

/// A tape being deserialized, events moved out as they are read.
struct Events<'a> {
    events: std::iter::Peekable<std::vec::IntoIter<Event<'a>>>,
}

impl<'a> Events<'a> {
    /// Runs `visit` over the entries of the collection just opened; it must read them
    /// all, up to the collection's end.
    fn entries<T>(
        &mut self,
        visit: impl FnOnce(&mut Entries<'_, 'a>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut entries = Entries {
            reader: self,
            done: false,
        };
        let value = visit(&mut entries)?;
        if entries.done {
            Ok(value)
        } else {
            Err(unexpected())
        }
    }
}

type Error = serde_json::Error;

fn unexpected() -> Error {
    de::Error::custom("unexpected event on the tape")
}

impl<'de> Deserializer<'de> for &mut Events<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.events.next() {
            Some(Event::Value(value)) => value.deserialize_any(visitor),
            Some(Event::Map) => self.entries(|entries| visitor.visit_map(entries)),
            Some(Event::Seq) => self.entries(|entries| visitor.visit_seq(entries)),
            _ => Err(unexpected()),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Some(Event::Value(Value::Null)) = self.events.peek() {
            self.events.next();
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.events.next() {
            Some(Event::Value(value)) => value.deserialize_enum(name, variants, visitor),
            _ => Err(unexpected()),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let mut open = 0usize;
        loop {
            match self.events.next().ok_or_else(unexpected)? {
                Event::Map | Event::Seq => open += 1,
                Event::End => open = open.checked_sub(1).ok_or_else(unexpected)?,
                Event::Key(_) | Event::Value(_) => {}
            }
            if open == 0 {
                return visitor.visit_unit();
            }
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// The entries of a mapping or the items of a sequence, up to its `End`.
struct Entries<'r, 'a> {
    reader: &'r mut Events<'a>,
    done: bool,
}

impl Entries<'_, '_> {
    /// Consumes the `End` when it comes next.
    fn at_end(&mut self) -> bool {
        if matches!(self.reader.events.peek(), Some(Event::End)) {
            self.reader.events.next();
            self.done = true;
        }
        self.done
    }
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.at_end() {
            return Ok(None);
        }
        match self.reader.events.next() {
            Some(Event::Key(Cow::Borrowed(key))) => seed
                .deserialize(de::value::BorrowedStrDeserializer::<Error>::new(key))
                .map(Some),
            Some(Event::Key(Cow::Owned(key))) => seed
                .deserialize(de::value::StringDeserializer::<Error>::new(key))
                .map(Some),
            _ => Err(unexpected()),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.reader)
    }
}

impl<'de> SeqAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.at_end() {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}
