//! YAML → `serde_json::Value` straight from `granit-parser` events.
//!
//! serde-saphyr's serde layer (event buffering, key fingerprints, replay) costs about
//! as much as the parser itself. For the plain shape manifests have — mappings,
//! sequences and untagged scalars — this builder gives the same values without it.
//! Anything else (anchors, aliases, tags, merge keys, keys that do not resolve to
//! strings, duplicate keys, non-finite floats, parser errors, documents near a budget)
//! makes [`parse`] return `None`, and the caller runs serde-saphyr on the whole input,
//! which keeps its exact values, limits and error messages.
//!
//! Loops over an explicit stack, so it needs no big-stack thread.

use granit_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};

use super::MAX_DEPTH;

/// Budgets kept well inside the ones serde-saphyr enforces (see `yaml_options`), so
/// that whatever this builder accepts, serde-saphyr accepts too.
pub(super) const MAX_EVENTS: usize = 50_000_000;
pub(super) const MAX_DOCUMENTS: usize = 500_000;
pub(super) const MAX_SCALAR_BYTES: usize = 512 << 20;
pub(super) const MAX_INPUT_BYTES: usize = 512 << 20;

/// Parser options as serde-saphyr sets them for our budget.
fn parser_options() -> granit_parser::Options {
    let mut options = granit_parser::Options::default();
    options.simple_key_max_lookahead = 1024;
    options.flow_nesting_limit = 255;
    options.block_nesting_limit = options.block_nesting_limit.max(MAX_DEPTH + 1);
    options.emit_comments = false;
    options
}

/// A container being built.
enum Frame {
    Seq(Vec<Value>),
    /// `key` is the key whose value comes next, if any.
    Map {
        map: Map<String, Value>,
        key: Option<String>,
    },
}

/// Every non-empty document of `text` as a JSON value, or `None` when the input is
/// not in the subset this builder handles (see the module docs).
pub(crate) fn parse(text: &str) -> Option<Vec<Value>> {
    if text.len() > MAX_INPUT_BYTES {
        return None;
    }
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let (mut events, mut documents, mut scalar_bytes) = (0usize, 0usize, 0usize);
    for item in Parser::new_from_str_with_options(text, parser_options()) {
        let (event, _span) = item.ok()?;
        events += 1;
        if events > MAX_EVENTS {
            return None;
        }
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(_, version) => {
                documents += 1;
                // A `%YAML` directive might change resolution rules: leave it to serde-saphyr.
                if version.is_some() || documents > MAX_DOCUMENTS {
                    return None;
                }
                continue;
            }
            Event::SequenceStart(_, anchor, tag) | Event::MappingStart(_, anchor, tag)
                if anchor != 0 || tag.is_some() =>
            {
                return None;
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if stack.len() >= MAX_DEPTH => {
                return None;
            }
            Event::SequenceStart(..) => {
                stack.push(Frame::Seq(Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                stack.push(Frame::Map {
                    map: Map::new(),
                    key: None,
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop()? {
                Frame::Seq(items) => Value::Array(items),
                Frame::Map { map, key: None } => Value::Object(map),
                Frame::Map { key: Some(_), .. } => return None,
            },
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                scalar_bytes += text.len();
                if scalar_bytes > MAX_SCALAR_BYTES {
                    return None;
                }
                match stack.last_mut() {
                    Some(Frame::Map {
                        key: key @ None, ..
                    }) => {
                        *key = Some(map_key(text.into_owned(), style)?);
                        continue;
                    }
                    None if style == ScalarStyle::Plain && is_null(&text) => continue,
                    _ => scalar(text.into_owned(), style)?,
                }
            }
            // Aliases, anchors, comments: not in the subset.
            _ => return None,
        };
        match stack.last_mut() {
            None => docs.push(node),
            Some(Frame::Seq(items)) => items.push(node),
            Some(Frame::Map { map, key }) => {
                let key = key.take()?;
                // A duplicate key is an error (or a fingerprint question) for serde-saphyr.
                if map.insert(key, node).is_some() {
                    return None;
                }
            }
        }
    }
    stack.is_empty().then_some(docs)
}

/// A mapping key: quoted and block scalars as written, plain ones only when they
/// resolve to a string. `<<` (merge) is left to serde-saphyr in any style.
fn map_key(text: String, style: ScalarStyle) -> Option<String> {
    if text == "<<" {
        return None;
    }
    if style != ScalarStyle::Plain {
        return Some(text);
    }
    match resolve_plain(&text)? {
        Plain::Str => Some(text),
        Plain::Null | Plain::Value(_) => None,
    }
}

/// A scalar in value position. `None` when serde-saphyr would fail on it.
fn scalar(text: String, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::String(text));
    }
    Some(match resolve_plain(&text)? {
        Plain::Null => Value::Null,
        Plain::Value(v) => v,
        Plain::Str => Value::String(text),
    })
}

/// What an untagged plain scalar resolves to.
#[derive(Debug, PartialEq)]
pub(crate) enum Plain {
    Null,
    /// A boolean or a number.
    Value(Value),
    /// The text itself.
    Str,
}

/// Padding serde-saphyr trims before typed parses.
fn trim(s: &str) -> &str {
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let b = s.as_bytes();
    let start = b.iter().position(|c| !blank(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !blank(c)).map_or(start, |i| i + 1);
    &s[start..end]
}

fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// Resolves an untagged plain scalar the way serde-saphyr's `deserialize_any` does
/// with our options: null, YAML 1.1 booleans, then integers (`i64` when negative,
/// else `u64`; `0x`/`0o`/`0b`, `_` between digits, no leading zeros), then floats
/// (Rust's grammar, finite only), else the text. `None` for non-finite floats
/// (`.inf`, `.nan`, `1e999`), which serde-saphyr rejects.
pub(crate) fn resolve_plain(s: &str) -> Option<Plain> {
    if is_null(s) {
        return Some(Plain::Null);
    }
    let t = trim(s);
    // Booleans and numbers start with one of these: skip the parses for ordinary words.
    let first = t.as_bytes().first().copied().unwrap_or(b' ');
    if !(first.is_ascii_digit() || b"+-.tTfFyYnNoO".contains(&first)) {
        return Some(Plain::Str);
    }
    if let Some(b) = yaml11_bool(t) {
        return Some(Plain::Value(Value::Bool(b)));
    }
    // No integer, and no float but NaN (which stays text), starts with a letter:
    // skip the parses for `type`, `object`, `nullable`.
    if first.is_ascii_alphabetic() {
        return Some(Plain::Str);
    }
    if let Some(rest) = t.strip_prefix('-') {
        if !leading_zero_decimal(rest)
            && let Some(v) = integer(rest).and_then(negate)
        {
            return Some(Plain::Value(Value::from(v)));
        }
    } else if let Some(v) =
        integer(t.strip_prefix('+').unwrap_or(t)).and_then(|m| u64::try_from(m).ok())
    {
        return Some(Plain::Value(Value::from(v)));
    }
    float(t)
}

fn yaml11_bool(t: &str) -> Option<bool> {
    let is = |words: [&str; 4]| words.iter().any(|w| t.eq_ignore_ascii_case(w));
    if is(["true", "yes", "y", "on"]) {
        Some(true)
    } else if is(["false", "no", "n", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// `-0127` style: serde-saphyr skips the integer parse for these (they become floats).
fn leading_zero_decimal(digits: &str) -> bool {
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

fn negate(magnitude: u128) -> Option<i64> {
    if magnitude > 1 << 63 {
        return None;
    }
    i64::try_from(-(magnitude as i128)).ok()
}

/// Magnitude of an unsigned integer spelling (sign already removed).
fn integer(rest: &str) -> Option<u128> {
    let prefixed = |lower: &str, upper: &str| rest.strip_prefix(lower).or(rest.strip_prefix(upper));
    if let Some(d) = prefixed("0x", "0X") {
        digits(d, 16)
    } else if let Some(d) = prefixed("0o", "0O") {
        digits(d, 8)
    } else if let Some(d) = prefixed("0b", "0B") {
        digits(d, 2)
    } else if rest.starts_with('0') && rest != "0" {
        None
    } else {
        digits(rest, 10)
    }
}

/// Digits in `radix` with single `_` separators between digits; at least one digit.
fn digits(s: &str, radix: u32) -> Option<u128> {
    let bytes = s.as_bytes();
    let mut value: u128 = 0;
    let mut saw = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let prev_ok = i > 0 && bytes[i - 1] != b'_';
            let next_ok = bytes.get(i + 1).is_some_and(|&n| n != b'_');
            if !prev_ok || !next_ok {
                return None;
            }
            continue;
        }
        let d = char::from(b).to_digit(radix)?;
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(d))?;
        saw = true;
    }
    saw.then_some(value)
}

/// The float step: YAML's `.inf`/`.nan` spellings and literals that overflow are
/// errors for serde-saphyr (`None`); other finite Rust float literals are numbers.
fn float(t: &str) -> Option<Plain> {
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if matches!(
        unsigned,
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF"
    ) {
        return None;
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Some(Plain::Value(Value::Number(Number::from_f64(v)?))),
        Ok(v) if v.is_infinite() && unsigned.as_bytes().first().is_some_and(u8::is_ascii_digit) => {
            None
        }
        _ => Some(Plain::Str),
    }
}
