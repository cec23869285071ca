//! Flow collections written on one line: `[]`, `{}`, `[a, "b"]`, `{a: 1, b: [c]}`.
//!
//! Entries are quoted scalars or plain scalars made of ordinary characters, keys
//! are followed by `: `. Anything else (a line break or comment inside, empty
//! entries, trailing commas, `[a: b]` pairs, `{a}` keys without values, adjacent
//! `"a":b` values, indicators) is left to the full parser.

use serde_json::{Map, Value};

use super::lines::{at, spaces};
use super::scalars::quoted;
use super::{Budget, MAX_KEY_BYTES, key_text, plain_value};
use crate::load::MAX_DEPTH;

enum Open {
    Seq(Vec<Value>),
    /// The key whose value comes next, if any.
    Map(Map<String, Value>, Option<String>),
}

/// The flow collection starting at `p` (`[` or `{`) nested `depth` collections
/// deep: its value and the position after its closing bracket.
pub(super) fn flow(
    text: &str,
    p: usize,
    depth: usize,
    budget: &mut Budget,
) -> Option<(Value, usize)> {
    let b = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut i = p;
    loop {
        // A node starts at `i`.
        let mut value = match b[i] {
            bracket @ (b'[' | b'{') => {
                if depth + open.len() >= MAX_DEPTH {
                    return None;
                }
                budget.collection()?;
                i = skip(b, i + 1)?;
                match (bracket, b[i]) {
                    (b'[', b']') => {
                        i += 1;
                        Value::Array(Vec::new())
                    }
                    (b'{', b'}') => {
                        i += 1;
                        Value::Object(Map::new())
                    }
                    (b'[', _) => {
                        open.push(Open::Seq(Vec::new()));
                        continue;
                    }
                    _ => {
                        let (key, next) = key(text, i, budget)?;
                        open.push(Open::Map(Map::new(), Some(key)));
                        i = next;
                        continue;
                    }
                }
            }
            b'"' | b'\'' => {
                let (s, end) = single_line_quoted(text, i)?;
                budget.scalar(s.len())?;
                i = end;
                Value::String(s)
            }
            _ => {
                let (end, next) = plain(b, i)?;
                let s = &text[i..end];
                budget.scalar(s.len())?;
                i = next;
                plain_value(s)?
            }
        };
        // The node is complete: add it to its collection, then read what follows.
        loop {
            match open.last_mut() {
                None => return Some((value, i)),
                Some(Open::Seq(items)) => items.push(value),
                Some(Open::Map(map, key)) => {
                    if map.insert(key.take()?, value).is_some() {
                        return None;
                    }
                }
            }
            i = skip(b, i)?;
            match (b[i], open.last()) {
                (b',', Some(top)) => {
                    i = skip(b, i + 1)?;
                    if matches!(b[i], b']' | b'}') {
                        return None;
                    }
                    if matches!(top, Open::Map(..)) {
                        let (key, next) = key(text, i, budget)?;
                        if let Some(Open::Map(_, slot)) = open.last_mut() {
                            *slot = Some(key);
                        }
                        i = next;
                    }
                    break;
                }
                (b']', Some(Open::Seq(_))) | (b'}', Some(Open::Map(_, None))) => {
                    i += 1;
                    value = match open.pop()? {
                        Open::Seq(items) => Value::Array(items),
                        Open::Map(map, _) => Value::Object(map),
                    };
                }
                _ => return None,
            }
        }
    }
}

/// Skips spaces inside a flow collection; `None` at a tab, a line break, a comment
/// or the end of input.
fn skip(b: &[u8], i: usize) -> Option<usize> {
    let j = i + spaces(b, i);
    match at(b, j) {
        b'\t' | b'\n' | b'#' | 0 => None,
        _ => Some(j),
    }
}

/// A key at `i`, its `: ` separator, and the position of its value.
fn key(text: &str, i: usize, budget: &mut Budget) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let (key, end) = match b[i] {
        b'"' | b'\'' => single_line_quoted(text, i)?,
        _ => {
            let (end, _) = plain(b, i)?;
            (key_text(&text[i..end])?.to_owned(), end)
        }
    };
    let colon = end + spaces(b, end);
    if colon - i > MAX_KEY_BYTES || key == "<<" || at(b, colon) != b':' || at(b, colon + 1) != b' '
    {
        return None;
    }
    budget.scalar(key.len())?;
    Some((key, skip(b, colon + 1)?))
}

/// A quoted scalar that closes on its own line, and the position after it.
fn single_line_quoted(text: &str, i: usize) -> Option<(String, usize)> {
    // No column can be deeper than the line length: any continuation line is refused.
    match quoted(text, i, isize::MAX)? {
        (s, end, false) => Some((s, end)),
        _ => None,
    }
}

/// A plain scalar inside a flow collection: the end of its text and where its
/// separator or closing bracket is.
fn plain(b: &[u8], i: usize) -> Option<(usize, usize)> {
    match b[i] {
        b'-' if matches!(
            at(b, i + 1),
            b' ' | b',' | b'[' | b']' | b'{' | b'}' | b'\t' | b'\n' | 0
        ) =>
        {
            return None;
        }
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => return None,
        _ => {}
    }
    let mut j = i;
    loop {
        match at(b, j) {
            b',' | b']' | b'}' => break,
            b':' => match at(b, j + 1) {
                b' ' => break,
                b',' | b'[' | b']' | b'{' | b'}' | b'\t' | b'\n' | 0 => return None,
                _ => j += 1,
            },
            b'[' | b'{' | b'#' | b'\t' | b'\n' | 0 => return None,
            _ => j += 1,
        }
    }
    let mut end = j;
    while end > i && b[end - 1] == b' ' {
        end -= 1;
    }
    Some((end, j))
}
