//! Reading objects to validate as a stream of JSON values (one document, or JSON
//! lines) parsed with serde_json in one pass; a bad value costs only itself.
//! Duplicate keys are errors ([`StrictValue`]).

use crd_runtime::load::{StrictValue, json_message};
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
/// work) as soon as it is parsed, and with every syntax error.
///
/// After an error, reading resumes at the next line after the one where the bad
/// value began that starts (in column 1) with `{` or `[`: in JSON lines every good
/// line is still read, and a bad pretty-printed document costs one error, not one per
/// line.
pub fn for_each_json_value(bytes: &[u8], mut f: impl FnMut(Result<Value, SyntaxError>)) {
    let mut offset = 0;
    // Line number of `bytes[offset]`, so positions stay absolute after a resume.
    let mut line_base = 0;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<StrictValue>();
        let mut value_start = 0;
        loop {
            value_start += rest[value_start..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            match stream.next() {
                None => return,
                Some(Ok(StrictValue(v))) => {
                    f(Ok(v));
                    value_start = stream.byte_offset();
                }
                Some(Err(e)) => {
                    let message = json_message(&e);
                    // `rest` starts at a line start, so columns need no shift.
                    let (mut line, mut column) = match e.line() {
                        0 => (0, 0),
                        l => (line_base + l, e.column()),
                    };
                    let resume = next_document_line(rest, value_start);
                    let resume_line = resume.map(|at| line_base + lines_in(&rest[..at]) + 1);
                    if resume_line.is_some_and(|r| r <= line) {
                        // The parse ran into the lines read next (a truncated JSON
                        // line): the bad value is the one that starts here.
                        line = line_base + lines_in(&rest[..value_start]) + 1;
                        column = value_start
                            - rest[..value_start]
                                .iter()
                                .rposition(|&b| b == b'\n')
                                .map_or(0, |p| p + 1)
                            + 1;
                    }
                    f(Err(SyntaxError {
                        line,
                        column,
                        message,
                    }));
                    match resume {
                        Some(next) => {
                            line_base += lines_in(&rest[..next]);
                            offset += next;
                        }
                        None => return,
                    }
                    break;
                }
            }
        }
    }
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
        Ok(v) => out.push(v),
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
        let deep = "[".repeat(10_000);
        let (_, err) = json_values(deep.as_bytes());
        let err = err.unwrap();
        assert_eq!(err.message, "document nests deeper than 128 levels");
        // The last value of the input is reported where the parser stopped.
        assert_eq!((err.line, err.column), (1, 128));
        let (_, err) = json_values(b"{\"a\":\"\xff\"}");
        assert!(err.is_some());
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
