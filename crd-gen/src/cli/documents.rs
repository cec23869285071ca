//! Reading the documents of one input: JSON (one value, or JSON lines) streamed,
//! or multi-document YAML; bad documents are reported and skipped.

use crd_runtime::load::{LoadError, parse_documents_bytes};
use serde_json::Value;

use super::inputs::Input;
use crd_gen::json_stream::for_each_json_value;

fn load_error(e: &LoadError) -> String {
    e.to_string()
}

/// Whether the input is JSON (its first non-blank byte opens a value).
pub fn is_json(bytes: &[u8]) -> bool {
    matches!(
        bytes.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{') | Some(b'[')
    )
}

/// Calls `f` with each JSON value of `bytes` (a piece of input `name` starting after
/// `lines_before()` lines, asked only for an error), or with
/// `Err("file:line:column: message")`. The value is lent: the next one is read into it.
pub fn for_each_json_document(
    name: &str,
    bytes: &[u8],
    lines_before: impl Fn() -> usize,
    mut f: impl FnMut(Result<&mut Value, String>),
) {
    for_each_json_value(bytes, |r| {
        f(r.map_err(|e| {
            let line = if e.line == 0 {
                0
            } else {
                e.line + lines_before()
            };
            format!("{name}:{line}:{}: {}", e.column, e.message)
        }))
    });
}

/// JSON input cut into pieces of about `size` bytes, each holding whole values, with
/// the offset each starts at. A cut is made only at a line that starts with `{` or
/// `[` right after a line ending in `}` or `]`: in valid JSON that is always between
/// two top-level values.
pub fn json_pieces(bytes: &[u8], size: usize) -> Vec<(usize, &[u8])> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let target = start + size;
        if target >= bytes.len() {
            break;
        }
        at = target;
        let mut cut = None;
        while let Some(nl) = memchr::memchr(b'\n', &bytes[at..]) {
            let p = at + nl;
            at = p + 1;
            let before = bytes[..p]
                .iter()
                .rev()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\r'));
            if matches!(before, Some(b'}') | Some(b']'))
                && matches!(bytes.get(p + 1), Some(b'{') | Some(b'['))
            {
                cut = Some(p + 1);
                break;
            }
        }
        let Some(cut) = cut else { break };
        pieces.push((start, &bytes[start..cut]));
        start = cut;
    }
    pieces.push((start, &bytes[start..]));
    pieces
}

/// Line numbers of an input's offsets, counted only when an error asks for one (a
/// valid input is never counted) and at most once per stretch: each answer is kept,
/// and the next question counts on from the nearest offset answered before it.
pub struct LineIndex<'a> {
    bytes: &'a [u8],
    /// Offsets answered, with the newlines before each.
    known: std::sync::Mutex<std::collections::BTreeMap<usize, usize>>,
}

impl<'a> LineIndex<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        LineIndex {
            bytes,
            known: Default::default(),
        }
    }

    /// How many newlines come before `offset`.
    pub fn lines_before(&self, offset: usize) -> usize {
        let mut known = self
            .known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (from, lines) = known
            .range(..=offset)
            .next_back()
            .map_or((0, 0), |(&at, &n)| (at, n));
        let lines = lines + memchr::memchr_iter(b'\n', &self.bytes[from..offset]).count();
        known.insert(offset, lines);
        lines
    }
}

/// Calls `f` with each document of an input (YAML documents, or JSON values /
/// JSON lines, streamed), or with `Err("file:line:column: message")` for each one
/// that cannot be read. Reading goes on after a bad JSON value (at the next
/// line that starts a value) and after a bad YAML document (at the next `---`).
pub fn for_each_document(input: &Input, mut f: impl FnMut(Result<Value, String>)) {
    if is_json(&input.bytes) {
        return for_each_json_document(
            &input.name,
            &input.bytes,
            || 0,
            |r| f(r.map(std::mem::take)),
        );
    }
    match parse_documents_bytes(&input.name, &input.bytes) {
        Ok(docs) => docs.into_iter().map(Ok).for_each(f),
        Err(e) => {
            let chunks = yaml_document_chunks(&input.bytes);
            if chunks.len() < 2 {
                return f(Err(load_error(&e)));
            }
            for (first_line, chunk) in chunks {
                match parse_documents_bytes(&input.name, chunk) {
                    Ok(docs) => docs.into_iter().map(Ok).for_each(&mut f),
                    Err(e) => f(Err(load_error(&shift_lines(e, first_line)))),
                }
            }
        }
    }
}

/// A YAML stream cut before each `---` line, with the number of lines before each
/// piece. A document marker in column 1 ends any block scalar, so each piece holds
/// whole documents.
fn yaml_document_chunks(bytes: &[u8]) -> Vec<(usize, &[u8])> {
    let mut chunks = Vec::new();
    let (mut start, mut start_line, mut line, mut at) = (0, 0, 0, 0);
    while at < bytes.len() {
        let rest = &bytes[at..];
        let is_marker = rest.starts_with(b"---")
            && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        if is_marker && at > start {
            chunks.push((start_line, &bytes[start..at]));
            (start, start_line) = (at, line);
        }
        match memchr::memchr(b'\n', rest) {
            Some(nl) => {
                at += nl + 1;
                line += 1;
            }
            None => break,
        }
    }
    chunks.push((start_line, &bytes[start..]));
    chunks
}

/// Makes a piece's syntax error point into the whole file.
fn shift_lines(e: LoadError, lines_before: usize) -> LoadError {
    match e {
        LoadError::Syntax {
            source,
            line,
            column,
            message,
        } if line > 0 => LoadError::Syntax {
            source,
            line: line + lines_before,
            column,
            message,
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_pieces_cut_between_top_level_values_only() {
        let text = b"{\"a\":\n[1]\n}\n{\"b\":2}\n[3]\n{\"c\":\n{\"d\":4}}\n";
        let pieces = json_pieces(text, 1);
        let joined: Vec<u8> = pieces.iter().flat_map(|(_, p)| p.iter().copied()).collect();
        assert_eq!(joined, text.to_vec());
        let lines = LineIndex::new(text);
        let starts: Vec<(usize, &str)> = pieces
            .iter()
            .map(|(at, p)| {
                assert_eq!(&text[*at..*at + p.len()], *p);
                let first = std::str::from_utf8(p).unwrap().lines().next().unwrap();
                (lines.lines_before(*at), first)
            })
            .collect();
        // `[1]` and `{"d":4}` start lines inside values and are never cut at.
        assert_eq!(
            starts,
            vec![(0, "{\"a\":"), (3, "{\"b\":2}"), (4, "[3]"), (5, "{\"c\":")]
        );
    }

    #[test]
    fn line_index_answers_in_any_order() {
        let text = b"a\nb\n\nc\nd";
        let lines = LineIndex::new(text);
        let expect = |at: usize| text[..at].iter().filter(|&&b| b == b'\n').count();
        for at in [7, 2, 8, 0, 3, 6, 4, 1, 8] {
            assert_eq!(lines.lines_before(at), expect(at), "offset {at}");
        }
    }
}
