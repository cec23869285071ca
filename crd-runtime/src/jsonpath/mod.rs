//! JSONPath as CRDs and kubectl use it, with one tokenizer for both dialects:
//!
//! - the checks of a CRD: [`validate_simple_json_path`] for printer columns and scale
//!   paths, [`resolve_field_path`] for `selectableFields` and rule `fieldPath`s, with
//!   the API server's messages;
//! - evaluation, as the server's table printer and scale subresource do it:
//!   [`JsonPath::parse`] reads kubectl's template subset (`{.a.b}` or `.a.b`, `['a.b']`,
//!   `[0]`, `[-1]`, `[*]`, and filters `[?(@.type=="Ready")]` with `==`/`!=`; no `..`,
//!   slices or unions), [`JsonPath::find`] selects values, [`JsonPath::text`] prints
//!   them like kubectl's JSONPath printer, [`JsonPath::fields`] gives the plain field
//!   names of a path to write through (`specReplicasPath`).
//!
//! Evaluation never fails: a path that does not match selects nothing, which kubectl
//! shows as `<none>`.
//!
//! ```
//! use crd_runtime::jsonpath::JsonPath;
//! use serde_json::json;
//!
//! let obj = json!({"status": {"conditions": [
//!     {"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}]}});
//! let ready = JsonPath::parse(r#".status.conditions[?(@.type=="Ready")].status"#).unwrap();
//! assert_eq!(ready.find(&obj), [&json!("True")]);
//! let all = JsonPath::parse("{.status.conditions[*].type}").unwrap();
//! assert_eq!(all.text(&obj).as_deref(), Some("Ready Synced"));
//! assert_eq!(JsonPath::parse(".spec.replicas").unwrap().fields(), Some(vec!["spec", "replicas"]));
//! ```

mod eval;
mod field_path;
mod lexer;

pub use field_path::{resolve_field_path, validate_simple_json_path};

use lexer::{Lexer, Token, unescape};

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// `.name` or `['name']`.
    Field(String),
    /// `[i]`; negative counts from the end.
    Index(i64),
    /// `[*]`: every item or value.
    All,
    /// `[?(@.a.b == "v")]` (`eq`) or `!=`: the items whose field prints as `value`.
    Filter {
        path: Vec<String>,
        eq: bool,
        value: String,
    },
}

/// A parsed path, for evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    steps: Vec<Step>,
}

/// Why a path could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonPathError(String);

impl std::fmt::Display for JsonPathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsonPathError {}

impl JsonPath {
    /// Parses a path with or without the `{...}` template braces; a path not starting
    /// with `.` or `[` reads as if it did (`spec.x` is `.spec.x`).
    pub fn parse(text: &str) -> Result<JsonPath, JsonPathError> {
        let text = text.trim();
        let text = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .map_or(text, str::trim);
        let error = |what: String| Err(JsonPathError(format!("{what} in JSONPath {text:?}")));
        let dotted;
        let body = if text.is_empty() || text.starts_with(['.', '[']) {
            text
        } else {
            dotted = format!(".{text}");
            &dotted
        };
        let mut lexer = Lexer::new(body);
        let mut steps = Vec::new();
        while let Some(tok) = lexer.next_token() {
            match tok {
                Token::Dot => match lexer.next_token() {
                    Some(Token::Text(name)) => steps.push(Step::Field(name.to_string())),
                    _ => return error("empty field name".into()),
                },
                Token::Open => match lexer.bracket_body() {
                    Some(inner) => match bracket(inner.trim()) {
                        Some(step) => steps.push(step?),
                        None => return error(format!("unsupported [{inner}]")),
                    },
                    None => return error("unterminated [".into()),
                },
                other => return error(format!("unexpected {:?}", other.as_str())),
            }
        }
        Ok(JsonPath { steps })
    }

    /// The field names of a path made only of fields (`.spec.replicas` →
    /// `["spec", "replicas"]`), for writing through it (scale); `None` otherwise.
    pub fn fields(&self) -> Option<Vec<&str>> {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Field(f) => Some(f.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The step a bracket's content stands for; `None` when it is none the dialect has,
/// an error for a quoted name with a bad escape.
fn bracket(inner: &str) -> Option<Result<Step, JsonPathError>> {
    if inner == "*" {
        return Some(Ok(Step::All));
    }
    if let Ok(i) = inner.parse::<i64>() {
        return Some(Ok(Step::Index(i)));
    }
    if let Some(quoted) = quoted(inner) {
        return Some(
            unescape(quoted)
                .map(Step::Field)
                .map_err(|e| JsonPathError(format!("invalid string literal: {e}"))),
        );
    }
    let f = inner.strip_prefix("?(")?.strip_suffix(')')?;
    let (lhs, eq, rhs) = match f.split_once("!=") {
        Some((l, r)) => (l, false, r),
        None => f.split_once("==").map(|(l, r)| (l, true, r))?,
    };
    let path = lhs.trim().strip_prefix("@.")?.split('.').map(String::from);
    let rhs = rhs.trim();
    let value = match quoted(rhs) {
        Some(q) => unescape(q).unwrap_or_else(|_| q.to_string()),
        None => rhs.to_string(),
    };
    Some(Ok(Step::Filter {
        path: path.collect(),
        eq,
        value,
    }))
}

/// The inside of `'...'` or `"..."`.
fn quoted(s: &str) -> Option<&str> {
    ['\'', '"']
        .into_iter()
        .find_map(|q| s.strip_prefix(q)?.strip_suffix(q))
}

#[cfg(test)]
mod tests;
