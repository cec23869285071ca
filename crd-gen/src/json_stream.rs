//! Reading objects to validate as a stream of JSON values (one document, or JSON
//! lines) parsed with serde_json in one pass; a bad value costs only itself.
//! Duplicate keys are errors ([`StrictValue`]).

use crd_runtime::load::{JsonInPlace, StrictValue, json_message};
use serde_json::Value;

/// A syntax error with its position (1-based; 0 when unknown).
pub struct SyntaxError {
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// What is wrong, without the position.
    pub message: String,
}

/// Calls `f` with every JSON value of `bytes` (whitespace-separated, so JSON lines
/// work) as soon as it is parsed, and with every syntax error. The value lent to `f`
/// is read into again for the next one (`std::mem::take` it to keep it).
///
/// After an error, reading resumes at the next line after the one where the bad
/// value began that starts (in column 1) with `{` or `[`: in JSON lines every good
/// line is still read, and a bad pretty-printed document costs one error, not one per
/// line.
pub fn for_each_json_value(bytes: &[u8], mut f: impl FnMut(Result<&mut Value, SyntaxError>)) {
    // Nearly every value nests less than serde_json's own limit: read with that limit
    // on a stack sized for it, without scanning the text for its depth first (the
    // scan was a tenth of a run). At the first value past it, the rest of the text is
    // read the measured way, from that value on.
    let handoff = crd_runtime::__private::depth::with_stack_for(SERDE_LIMIT, || {
        stream(bytes, Mode::Limited, 0, &mut f)
    });
    if let Some(at) = handoff {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        read_measured(
            &bytes[at..],
            lines_in(&bytes[..at]),
            at - line_start,
            &mut f,
        );
    }
}

/// serde_json's recursion limit (levels it reads with it on).
const SERDE_LIMIT: usize = 128;

/// How [`stream`] reads.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// With serde_json's recursion limit; a value past it ends the stream at its start.
    Limited,
    /// Text measured at most this deep (≤ the API server's limit), on a stack sized
    /// for it.
    Measured(usize),
}

/// [`for_each_json_value`] on text that starts `shift` lines and, on its first line,
/// `col0` columns into the input: the depth of the text is measured first and the
/// values are read on a stack sized for it; a value past the API server's limit is
/// refused in its words.
fn read_measured(
    bytes: &[u8],
    shift: usize,
    col0: usize,
    f: &mut dyn FnMut(Result<&mut Value, SyntaxError>),
) {
    use crd_runtime::__private::depth::{json_text_depth, with_stack_for};
    // Lines before `bytes[start]`, so positions stay absolute after a too-deep value.
    let (mut start, mut shift, mut col0) = (0, shift, col0);
    let mut emit = |r: Result<&mut Value, SyntaxError>, shift: usize| {
        f(r.map_err(|mut e| {
            if e.line > 0 {
                e.line += shift;
            }
            e
        }))
    };
    while start < bytes.len() {
        let rest = &bytes[start..];
        match json_text_depth(rest) {
            Ok(depth) => {
                with_stack_for(depth, || {
                    stream(rest, Mode::Measured(depth), col0, &mut |r| emit(r, shift))
                });
                return;
            }
            Err(e) => {
                // The value holding the bracket past the API server's limit is refused
                // in its words; the documents before it are read, reading resumes after.
                let head = &rest[..doc_start_before(rest, e.offset)];
                let depth = json_text_depth(head).unwrap_or(0);
                with_stack_for(depth, || {
                    stream(head, Mode::Measured(depth), col0, &mut |r| emit(r, shift))
                });
                let before = &rest[..e.offset];
                let column = match before.iter().rposition(|&b| b == b'\n') {
                    Some(p) => e.offset - p,
                    None => e.offset + col0 + 1,
                };
                let error = SyntaxError {
                    line: lines_in(before) + 1,
                    column,
                    message: e.to_string(),
                };
                emit(Err(error), shift);
                match next_document_line(rest, e.offset) {
                    Some(next) => {
                        shift += lines_in(&rest[..next]);
                        start += next;
                        col0 = 0;
                    }
                    None => return,
                }
            }
        }
    }
}

/// The start of the last line at or before `offset` that starts with `{` or `[`.
fn doc_start_before(bytes: &[u8], offset: usize) -> usize {
    let mut at = offset;
    loop {
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        if start == 0 || matches!(bytes[start], b'{' | b'[') {
            return start;
        }
        at = start - 1;
    }
}

/// Reads the values of `bytes` (starting `col0` columns into its first line) as
/// `mode` says, on a stack sized for it; with [`Mode::Limited`], returns the offset of
/// the first value nested past serde_json's limit, unread.
///
/// Objects are read into one value in place ([`JsonInPlace`]: the previous object's
/// strings and maps are reused); whatever that reader leaves, and every error, is
/// read by serde_json from the value's start.
fn stream(
    bytes: &[u8],
    mode: Mode,
    col0: usize,
    f: &mut dyn FnMut(Result<&mut Value, SyntaxError>),
) -> Option<usize> {
    let deep = matches!(mode, Mode::Measured(d) if d > crd_runtime::__private::depth::SHALLOW);
    // In-place reading needs text: the valid UTF-8 prefix (all of it, nearly always).
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    let mut reader = JsonInPlace::new();
    let mut slot = Value::Null;
    let mut lines = LineCounter::default();
    let mut at = 0;
    loop {
        at += bytes[at..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            .count();
        if at == bytes.len() {
            return None;
        }
        if bytes[at] == b'{'
            && let Some(end) = reader.read_object(text, at, &mut slot)
        {
            f(Ok(&mut slot));
            at = end;
            continue;
        }
        let mut de = serde_json::Deserializer::from_slice(&bytes[at..]);
        if deep {
            de.disable_recursion_limit();
        }
        let mut one = de.into_iter::<StrictValue>();
        match one.next() {
            None => return None,
            Some(Ok(StrictValue(v))) => {
                slot = v;
                f(Ok(&mut slot));
                at += one.byte_offset();
            }
            Some(Err(e)) if mode == Mode::Limited && past_limit(&e) => return Some(at),
            Some(Err(e)) => {
                let message = json_message(&e);
                // serde_json counts from `at`: its first line continues the line of `at`.
                let (at_line, at_column) = lines.position(bytes, at, col0);
                let (mut line, mut column) = match e.line() {
                    0 => (0, 0),
                    1 => (at_line, at_column - 1 + e.column()),
                    l => (at_line + l - 1, e.column()),
                };
                let resume = next_document_line(bytes, at);
                if let Some(next) = resume
                    && lines.position(bytes, next, col0).0 <= line
                {
                    // The parse ran into the lines read next (a truncated JSON line):
                    // the bad value is the one that starts here.
                    (line, column) = (at_line, at_column);
                }
                f(Err(SyntaxError {
                    line,
                    column,
                    message,
                }));
                at = resume?;
            }
        }
    }
}

/// Line and column (1-based) of byte offsets asked for in increasing order: the
/// newlines are counted once, not from the start for every error.
#[derive(Default)]
struct LineCounter {
    /// Offset counted up to, and the newlines before it.
    upto: usize,
    newlines: usize,
}

impl LineCounter {
    /// The position of `bytes[at]`, the first line starting `col0` columns in.
    fn position(&mut self, bytes: &[u8], at: usize, col0: usize) -> (usize, usize) {
        if at < self.upto {
            (self.upto, self.newlines) = (0, 0);
        }
        self.newlines += lines_in(&bytes[self.upto..at]);
        self.upto = at;
        let column = match memchr::memrchr(b'\n', &bytes[..at]) {
            Some(p) => at - p,
            None => at + col0 + 1,
        };
        (self.newlines + 1, column)
    }
}

/// Whether serde_json stopped at its recursion limit.
fn past_limit(e: &serde_json::Error) -> bool {
    e.is_syntax() && e.to_string().starts_with("recursion limit exceeded")
}

fn lines_in(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// The offset of the first line after the one holding `from` that starts with `{`
/// or `[`.
fn next_document_line(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let nl = memchr::memchr(b'\n', &bytes[at..])?;
        at += nl + 1;
        if matches!(bytes.get(at), Some(b'{') | Some(b'[')) {
            return Some(at);
        }
    }
}

/// Every JSON value of `bytes`, and the first syntax error, if any.
#[cfg(test)]
fn json_values(bytes: &[u8]) -> (Vec<Value>, Option<SyntaxError>) {
    let (values, mut errors) = json_values_all(bytes);
    (values, (!errors.is_empty()).then(|| errors.remove(0)))
}

#[cfg(test)]
fn json_values_all(bytes: &[u8]) -> (Vec<Value>, Vec<SyntaxError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for_each_json_value(bytes, |r| match r {
        Ok(v) => out.push(std::mem::take(v)),
        Err(e) => errors.push(e),
    });
    (out, errors)
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
        // The API server's depth: 10,000 levels read, one more refused in Go's words
        // at the bracket past the limit, the lines around it still read.
        let n = crd_runtime::__private::depth::MAX_DEPTH;
        let at_limit = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let over = format!("{}1{}", "[".repeat(n + 1), "]".repeat(n + 1));
        let input = format!("{{\"a\":1}}\n{over}\n{at_limit}\n");
        let (v, errs) = json_values_all(input.as_bytes());
        assert_eq!(v.len(), 2);
        crd_runtime::__private::depth::drop_value(v.into_iter().nth(1).unwrap());
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].message, "invalid character '[' exceeded max depth");
        assert_eq!((errs[0].line, errs[0].column), (2, n + 1));
        let (_, err) = json_values("[".repeat(n).as_bytes());
        assert_eq!(err.unwrap().message, "EOF while parsing a list");
        let (_, err) = json_values(b"{\"a\":\"\xff\"}");
        assert!(err.is_some());
    }

    #[test]
    fn values_past_serde_limit_are_read_the_measured_way_in_place() {
        // A value deeper than serde_json's limit hands the rest over, mid-line too:
        // the values before it are read once, positions stay absolute.
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let over = "[".repeat(crd_runtime::__private::depth::MAX_DEPTH + 1);
        let input = format!("{{\"a\":1}}\n[2] {deep}\n{{\"b\":1,}}\n{over}\n{{\"c\":3}}\n");
        let (v, errs) = json_values_all(input.as_bytes());
        assert_eq!(v.len(), 4);
        assert_eq!(v[1], serde_json::json!([2]));
        assert_eq!(crd_runtime::__private::depth::depth_of(&v[2], 1000), 200);
        assert_eq!(v[3], serde_json::json!({"c": 3}));
        let at: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.column)).collect();
        assert_eq!(
            at,
            vec![(3, 8), (4, crd_runtime::__private::depth::MAX_DEPTH + 1)]
        );
        // An error on the first line of the handed-over text counts its columns from
        // the line start.
        let input = format!("[1] {deep} x\n");
        let (v, errs) = json_values_all(input.as_bytes());
        assert_eq!(v.len(), 2);
        assert_eq!((errs[0].line, errs[0].column), (1, 4 + deep.len() + 2));
    }

    #[test]
    fn bad_lines_are_reported_and_skipped() {
        let input =
            b"{\"a\":1}\n{\"a\":\n{\"b\":2}\n{\"c\":3} x\n[4]\n{\"d\":1,\"d\":2}\n{\"e\":5}\n";
        let (v, errs) = json_values_all(input);
        let lines: Vec<usize> = errs.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![2, 4, 6]);
        assert_eq!(
            v,
            vec![
                serde_json::json!({"a": 1}),
                serde_json::json!({"b": 2}),
                serde_json::json!({"c": 3}),
                serde_json::json!([4]),
                serde_json::json!({"e": 5}),
            ]
        );
        // The column of an error on a resumed line counts from the line start.
        assert_eq!(errs[1].column, 9);
        assert!(errs[1].message.contains("trailing") || errs[1].message.contains("expected"));
    }

    #[test]
    fn a_bad_pretty_document_costs_one_error() {
        let input = b"{\n  \"a\": 1,\n  \"b\": ]\n}\n{\"ok\": true}\n";
        let (v, errs) = json_values_all(input);
        assert_eq!(
            errs.len(),
            1,
            "{:?}",
            errs.iter().map(|e| &e.message).collect::<Vec<_>>()
        );
        assert_eq!(errs[0].line, 3);
        assert_eq!(v, vec![serde_json::json!({"ok": true})]);
    }
}
