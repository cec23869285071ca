//! JSON objects read into a `Value` that already holds the previous object.
//!
//! A stream of objects of one shape (JSON lines of one kind) parsed into the same
//! value reuses its key strings, string buffers, maps and vectors: an entry whose key
//! is already there is overwritten in place, keys the new object lacks are removed
//! afterwards. Building a fresh tree per object (a string per key and value, a map
//! node per object, all freed again) was about half of reading.
//!
//! The reader takes only what it reads exactly as serde_json would: a number other
//! than a plain integer and a string with escapes are read by serde_json itself, one
//! at a time; anything else — a syntax error, a duplicate key, an escaped key, nesting
//! past [`IN_PLACE_DEPTH`] — returns `None`, and the caller reads the whole value with
//! serde_json, which also words every error. The text is valid UTF-8 (a `&str`), so
//! strings need no check of their own.

use serde_json::{Map, Number, Value};

use super::json_write::escape_free_run;
use crate::keyprint::{key_print, same_key};

/// Deepest nesting read in place (below serde_json's own limit of 128).
pub const IN_PLACE_DEPTH: usize = 100;

/// Reads JSON objects in place; keeps its scratch space between objects.
///
/// ```
/// use crd_runtime::load::{JsonInPlace, write_json};
/// use serde_json::Value;
///
/// let text = "{\"kind\": \"A\", \"spec\": {\"n\": 1}}\n{\"spec\": {\"n\": 2}, \"kind\": \"B\"}";
/// let mut reader = JsonInPlace::new();
/// let mut value = Value::Null;
/// let end = reader.read_object(text, 0, &mut value).expect("a plain object");
/// reader.read_object(text, end + 1, &mut value).expect("read into the same value");
/// let mut out = Vec::new();
/// write_json(&mut out, &value);
/// assert_eq!(out, br#"{"kind":"B","spec":{"n":2}}"#);
/// // `None`: serde_json must read it (a duplicate key, which it refuses in words).
/// assert_eq!(reader.read_object(r#"{"a": 1, "a": 2}"#, 0, &mut value), None);
/// ```
#[derive(Debug, Default)]
pub struct JsonInPlace {
    /// Per nesting level, the key spans of the object being read there.
    seen: Vec<Vec<(u32, u32)>>,
    /// Per nesting level, the entries new to the map being read there.
    added: Vec<Vec<Added>>,
}

/// A key new to the map being read (span and print), with its value.
type Added = (u32, u32, u64, Value);

impl JsonInPlace {
    /// A reader with no scratch space yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the object starting at byte `at` of `text` (which must hold `{` there)
    /// into `target`, and returns the offset just past it. `None` when the value
    /// must be read by serde_json instead (see the module docs); `target` then holds
    /// some valid but meaningless value.
    pub fn read_object(&mut self, text: &str, at: usize, target: &mut Value) -> Option<usize> {
        if text.len() > u32::MAX as usize || text.as_bytes().get(at) != Some(&b'{') {
            return None;
        }
        let mut r = Reader {
            text,
            bytes: text.as_bytes(),
            pos: at,
            seen: &mut self.seen,
            added: &mut self.added,
        };
        r.value(target, 0)?;
        Some(r.pos)
    }
}

struct Reader<'t, 's> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    seen: &'s mut Vec<Vec<(u32, u32)>>,
    added: &'s mut Vec<Vec<Added>>,
}

impl Reader<'_, '_> {
    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn value(&mut self, target: &mut Value, depth: usize) -> Option<()> {
        self.skip_ws();
        match self.peek()? {
            b'{' => self.object(target, depth + 1),
            b'[' => self.array(target, depth + 1),
            b'"' => {
                let (start, end, escaped) = self.string()?;
                if escaped {
                    *target = Value::String(unescape(&self.text[start - 1..=end])?);
                } else {
                    set_string(target, &self.text[start..end]);
                }
                Some(())
            }
            b't' => self.literal(b"true", target, Value::Bool(true)),
            b'f' => self.literal(b"false", target, Value::Bool(false)),
            b'n' => self.literal(b"null", target, Value::Null),
            b'-' | b'0'..=b'9' => {
                *target = Value::Number(self.number()?);
                Some(())
            }
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], target: &mut Value, v: Value) -> Option<()> {
        if !self.bytes[self.pos..].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        *target = v;
        Some(())
    }

    /// A string at `pos` (`"`): the span of its contents, and whether it has escapes.
    /// Leaves `pos` after the closing quote.
    #[inline]
    fn string(&mut self) -> Option<(usize, usize, bool)> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i += escape_free_run(&self.bytes[i..]);
            match *self.bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    // The escaped byte cannot end the string; serde_json checks it.
                    i += 2;
                    if i > self.bytes.len() {
                        return None;
                    }
                }
                _ => return None, // a control character: serde_json's error
            }
        }
        self.pos = i + 1;
        Some((start, i, escaped))
    }

    fn number(&mut self) -> Option<Number> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        let negative = b[i] == b'-';
        if negative {
            i += 1;
        }
        let digits_from = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = &b[digits_from..i];
        let plain = !digits.is_empty()
            && digits.len() <= 18
            && !(digits[0] == b'0' && digits.len() > 1)
            && !matches!(b.get(i), Some(b'.' | b'e' | b'E'));
        if plain {
            let magnitude = digits
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            self.pos = i;
            return Some(match (negative, magnitude) {
                (false, m) => Number::from(m),
                // serde_json reads `-0` as the float -0.0.
                (true, 0) => return self.number_by_serde(start),
                (true, m) => Number::from(-(m as i64)),
            });
        }
        self.number_by_serde(start)
    }

    /// A number serde_json reads itself (fractions, exponents, long digit runs):
    /// the same float rounding and the same limits.
    fn number_by_serde(&mut self, start: usize) -> Option<Number> {
        let b = self.bytes;
        let mut end = start;
        while b
            .get(end)
            .is_some_and(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            end += 1;
        }
        match serde_json::from_str::<Value>(&self.text[start..end]).ok()? {
            Value::Number(n) => {
                self.pos = end;
                Some(n)
            }
            _ => None,
        }
    }

    fn object(&mut self, target: &mut Value, depth: usize) -> Option<()> {
        if depth > IN_PLACE_DEPTH {
            return None;
        }
        self.pos += 1; // `{`
        if !target.is_object() {
            *target = Value::Object(Map::new());
        }
        let Value::Object(map) = target else {
            unreachable!("made an object above")
        };
        if map.len() <= SMALL {
            return self.small_object(map, depth);
        }
        if self.seen.len() < depth {
            self.seen.resize_with(depth, Vec::new);
        }
        let mut seen = std::mem::take(&mut self.seen[depth - 1]);
        seen.clear();
        let done = self.entries(map, &mut seen, depth);
        let kept = done.and_then(|()| settle(self.text, map, &mut seen));
        self.seen[depth - 1] = seen;
        kept
    }

    /// An object read into a map of at most [`SMALL`] entries: each key is found
    /// among the map's by its print (no tree search), marked when read (a second
    /// mark is a duplicate), and new keys are inserted and unmarked ones removed at
    /// the end.
    fn small_object(&mut self, map: &mut Map<String, Value>, depth: usize) -> Option<()> {
        // Slot arrays sized to the map: clearing sixteen slots for a map of three was
        // a `memset` of 640 bytes per object read.
        match map.len() {
            0..=4 => self.small_object_in::<4>(map, depth),
            5..=8 => self.small_object_in::<8>(map, depth),
            _ => self.small_object_in::<SMALL>(map, depth),
        }
    }

    fn small_object_in<const N: usize>(
        &mut self,
        map: &mut Map<String, Value>,
        depth: usize,
    ) -> Option<()> {
        let mut slots: [Option<Slot<'_>>; N] = [const { None }; N];
        for (slot, (key, value)) in slots.iter_mut().zip(map.iter_mut()) {
            *slot = Some(Slot {
                print: key_print(key),
                key,
                value,
                read: false,
            });
        }
        if self.added.len() < depth {
            self.added.resize_with(depth, Vec::new);
        }
        let mut added = std::mem::take(&mut self.added[depth - 1]);
        added.clear();
        let read = self.small_entries(&mut slots, &mut added, depth);
        if read.is_some() {
            let stale: Vec<String> = slots
                .iter()
                .map_while(Option::as_ref)
                .filter(|s| !s.read)
                .map(|s| s.key.to_owned())
                .collect();
            for key in stale {
                map.remove(&key);
            }
            for (start, end, _, value) in added.drain(..) {
                map.insert(self.text[start as usize..end as usize].to_owned(), value);
            }
        }
        self.added[depth - 1] = added;
        read
    }

    /// The entries of [`Reader::small_object`]'s object: into the map's slots, or
    /// into `added`.
    fn small_entries(
        &mut self,
        slots: &mut [Option<Slot<'_>>],
        added: &mut Vec<Added>,
        depth: usize,
    ) -> Option<()> {
        self.skip_ws();
        if self.peek()? == b'}' {
            self.pos += 1;
        } else {
            loop {
                let (start, end) = self.key()?;
                let key = &self.text[start..end];
                let print = key_print(key);
                let known = slots
                    .iter_mut()
                    .map_while(Option::as_mut)
                    .find(|s| same_key(s.print, s.key, print, key));
                match known {
                    Some(slot) if slot.read => return None, // a duplicate
                    Some(slot) => {
                        slot.read = true;
                        self.value(slot.value, depth)?;
                    }
                    None => {
                        let text = self.text;
                        let again = added
                            .iter()
                            .any(|a| same_key(a.2, &text[a.0 as usize..a.1 as usize], print, key));
                        // Many new keys: serde_json reads this one; the next object
                        // of its shape takes the large-map path.
                        if again || added.len() == 4 * SMALL {
                            return None;
                        }
                        let mut value = Value::Null;
                        self.value(&mut value, depth)?;
                        added.push((start as u32, end as u32, print, value));
                    }
                }
                if self.entry_end()? {
                    break;
                }
            }
        }
        Some(())
    }

    fn entries(
        &mut self,
        map: &mut Map<String, Value>,
        seen: &mut Vec<(u32, u32)>,
        depth: usize,
    ) -> Option<()> {
        self.skip_ws();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        loop {
            let (start, end) = self.key()?;
            let key = &self.text[start..end];
            seen.push((start as u32, end as u32));
            // One lookup for a key the previous object had; a new key is inserted.
            if let Some(slot) = map.get_mut(key) {
                self.value(slot, depth)?;
            } else {
                let slot = map.entry(key.to_owned()).or_insert(Value::Null);
                self.value(slot, depth)?;
            }
            if self.entry_end()? {
                return Some(());
            }
        }
    }

    /// An entry's key and its `:`: the key's span. `None` for anything but a plain
    /// string key (an escaped key goes to serde_json, which decodes it).
    #[inline]
    fn key(&mut self) -> Option<(usize, usize)> {
        self.skip_ws();
        if self.peek()? != b'"' {
            return None;
        }
        let (start, end, escaped) = self.string()?;
        if escaped {
            return None;
        }
        self.skip_ws();
        if self.peek()? != b':' {
            return None;
        }
        self.pos += 1;
        Some((start, end))
    }

    /// What follows an entry's value: `,` (false) or the object's `}` (true).
    #[inline]
    fn entry_end(&mut self) -> Option<bool> {
        self.skip_ws();
        let closed = match self.peek()? {
            b',' => false,
            b'}' => true,
            _ => return None,
        };
        self.pos += 1;
        Some(closed)
    }

    fn array(&mut self, target: &mut Value, depth: usize) -> Option<()> {
        if depth > IN_PLACE_DEPTH {
            return None;
        }
        self.pos += 1; // `[`
        if !target.is_array() {
            *target = Value::Array(Vec::new());
        }
        let Value::Array(items) = target else {
            unreachable!("made an array above")
        };
        self.skip_ws();
        let mut n = 0;
        if self.peek()? == b']' {
            self.pos += 1;
        } else {
            loop {
                if n == items.len() {
                    items.push(Value::Null);
                }
                self.value(&mut items[n], depth)?;
                n += 1;
                self.skip_ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b']' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        items.truncate(n);
        Some(())
    }
}

/// After an object's entries were read into `map`: refuses duplicate keys (serde_json
/// words that error) and removes the keys of the previous object the new one lacks.
fn settle(text: &str, map: &mut Map<String, Value>, seen: &mut [(u32, u32)]) -> Option<()> {
    let key = |&(s, e): &(u32, u32)| &text[s as usize..e as usize];
    seen.sort_unstable_by(|a, b| key(a).cmp(key(b)));
    if seen.windows(2).any(|w| key(&w[0]) == key(&w[1])) {
        return None;
    }
    if map.len() != seen.len() {
        map.retain(|k, _| seen.binary_search_by(|s| key(s).cmp(k)).is_ok());
    }
    Some(())
}

/// Objects with at most this many keys are read by [`Reader::small_object`].
const SMALL: usize = 16;

/// An entry of the map being read into, found by its key's print.
struct Slot<'m> {
    print: u64,
    key: &'m str,
    value: &'m mut Value,
    read: bool,
}

fn set_string(target: &mut Value, s: &str) {
    match target {
        Value::String(t) => {
            t.clear();
            t.push_str(s);
        }
        _ => *target = Value::String(s.to_owned()),
    }
}

/// A quoted string with escapes, decoded by serde_json (which checks them).
fn unescape(quoted: &str) -> Option<String> {
    serde_json::from_str::<String>(quoted).ok()
}

#[cfg(test)]
#[path = "json_in_place_tests.rs"]
mod tests;
