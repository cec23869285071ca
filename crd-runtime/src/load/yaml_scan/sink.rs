//! What the reader builds: JSON values ([`Values`]), or per document a flat list of
//! events ([`Tapes`]) that a typed model deserializes from directly, without a value
//! tree in between (see `load::tape`).
//!
//! The reader keeps the structure (indentation, which key is waiting for its value);
//! a sink only records. Both sinks refuse duplicate keys, as the reader always has.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Receives the nodes of a YAML stream in document order.
pub(crate) trait Sink<'a> {
    /// A block mapping opens, with its first key.
    fn open_map(&mut self, key: Cow<'a, str>) -> Option<()>;
    /// A further key of the innermost mapping (its previous value is complete).
    fn key(&mut self, key: Cow<'a, str>) -> Option<()>;
    /// A block sequence opens.
    fn open_seq(&mut self) -> Option<()>;
    /// The innermost collection is complete.
    fn close(&mut self) -> Option<()>;
    /// A scalar or flow collection, as a whole value.
    fn value(&mut self, value: Value) -> Option<()>;
}

/// Builds one JSON value per non-null document.
#[derive(Default)]
pub(crate) struct Values {
    open: Vec<Open>,
    pub(crate) docs: Vec<Value>,
}

enum Open {
    Seq(Vec<Value>),
    /// The key whose value comes next.
    Map(Map<String, Value>, Option<String>),
}

impl Values {
    fn add(&mut self, value: Value) -> Option<()> {
        match self.open.last_mut() {
            None if value.is_null() => {}
            None => self.docs.push(value),
            Some(Open::Seq(items)) => items.push(value),
            Some(Open::Map(map, key)) => {
                if map.insert(key.take()?, value).is_some() {
                    return None;
                }
            }
        }
        Some(())
    }
}

impl<'a> Sink<'a> for Values {
    fn open_map(&mut self, key: Cow<'a, str>) -> Option<()> {
        self.open
            .push(Open::Map(Map::new(), Some(key.into_owned())));
        Some(())
    }

    fn key(&mut self, key: Cow<'a, str>) -> Option<()> {
        match self.open.last_mut() {
            Some(Open::Map(_, slot @ None)) => *slot = Some(key.into_owned()),
            _ => return None,
        }
        Some(())
    }

    fn open_seq(&mut self) -> Option<()> {
        self.open.push(Open::Seq(Vec::new()));
        Some(())
    }

    fn close(&mut self) -> Option<()> {
        let value = match self.open.pop()? {
            Open::Map(map, None) => Value::Object(map),
            Open::Map(_, Some(_)) => return None,
            Open::Seq(items) => Value::Array(items),
        };
        self.add(value)
    }

    fn value(&mut self, value: Value) -> Option<()> {
        self.add(value)
    }
}

/// One step of a document's tape.
#[derive(Debug, PartialEq)]
pub(crate) enum Event<'a> {
    /// A mapping opens: keys and values follow, then [`Event::End`].
    Map,
    /// A sequence opens: items follow, then [`Event::End`].
    Seq,
    End,
    /// A mapping key (borrowed from the text when written plain).
    Key(Cow<'a, str>),
    /// A scalar or a flow collection.
    Value(Value),
}

/// A non-null document as events, with how deep its collections nest (a root
/// mapping is 1).
#[derive(Debug)]
pub(crate) struct Tape<'a> {
    pub(crate) events: Vec<Event<'a>>,
    pub(crate) depth: usize,
}

/// Builds a [`Tape`] per non-null document.
#[derive(Default)]
pub(crate) struct Tapes<'a> {
    pub(crate) docs: Vec<Tape<'a>>,
    events: Vec<Event<'a>>,
    /// Per open collection: where its keys start in `keys` (`None` for a sequence).
    open: Vec<Option<usize>>,
    /// Event indices of the keys of the open mappings, innermost last.
    keys: Vec<usize>,
    depth: usize,
}

impl<'a> Tapes<'a> {
    fn push_key(&mut self, key: Cow<'a, str>) -> Option<()> {
        let first = (*self.open.last()?)?;
        for &k in &self.keys[first..] {
            if matches!(&self.events[k], Event::Key(seen) if *seen == key) {
                return None;
            }
        }
        self.keys.push(self.events.len());
        self.events.push(Event::Key(key));
        Some(())
    }

    fn opened(&mut self, event: Event<'a>, keys: Option<usize>) {
        self.events.push(event);
        self.open.push(keys);
        self.depth = self.depth.max(self.open.len());
    }

    fn document_done(&mut self) {
        if self.open.is_empty() {
            self.docs.push(Tape {
                events: std::mem::take(&mut self.events),
                depth: std::mem::take(&mut self.depth),
            });
        }
    }
}

impl<'a> Sink<'a> for Tapes<'a> {
    fn open_map(&mut self, key: Cow<'a, str>) -> Option<()> {
        self.opened(Event::Map, Some(self.keys.len()));
        self.push_key(key)
    }

    fn key(&mut self, key: Cow<'a, str>) -> Option<()> {
        self.push_key(key)
    }

    fn open_seq(&mut self) -> Option<()> {
        self.opened(Event::Seq, None);
        Some(())
    }

    fn close(&mut self) -> Option<()> {
        if let Some(first) = self.open.pop()? {
            self.keys.truncate(first);
        }
        self.events.push(Event::End);
        self.document_done();
        Some(())
    }

    fn value(&mut self, value: Value) -> Option<()> {
        if self.open.is_empty() && value.is_null() {
            return Some(());
        }
        let depth = self.open.len() + nesting(&value);
        self.depth = self.depth.max(depth);
        self.events.push(Event::Value(value));
        self.document_done();
        Some(())
    }
}

/// How deep a (flow) value's collections nest.
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}
