//! Label selectors, with the server's syntax, matching and messages: the
//! `labelSelector=` of list and watch ([`LabelSelector::parse`]), and the
//! `metav1.LabelSelector` objects of kinds' specs — matched
//! ([`LabelSelector::from_object`], `LabelSelectorAsSelector`), validated
//! ([`validate`], apimachinery's `ValidateLabelSelector` and
//! `ValidateLabelSelectorRequirement`), printed ([`selector_string`], [`format`]) and
//! rendered as Go's `%#v` in the messages that quote a whole selector ([`go_repr`]).

use crd_runtime::__private::go::quote;
use crd_runtime::field::{ErrorList, Path};
use serde_json::{Map, Value};

use crate::api::status::ApiError;

#[derive(Debug, Clone, PartialEq)]
enum Op {
    Eq(String),
    NotEq(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    NotExists,
}

/// A parsed label selector (all requirements must hold).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector {
    reqs: Vec<(String, Op)>,
}

fn parse_error(detail: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(format!("unable to parse requirement: {detail}"))
}

fn check_key(key: &str) -> Result<(), ApiError> {
    let errs = crd_runtime::names::qualified_name(key);
    if let Some(e) = errs.first() {
        return Err(parse_error(format!("<nil>: Invalid value: \"{key}\": {e}")));
    }
    Ok(())
}

fn check_value(v: &str) -> Result<(), ApiError> {
    let errs = crd_runtime::names::label_value(v);
    if let Some(e) = errs.first() {
        return Err(parse_error(format!("<nil>: Invalid value: \"{v}\": {e}")));
    }
    Ok(())
}

/// Splits at top-level commas (commas inside `( )` belong to a set).
fn split_requirements(s: &str) -> Result<Vec<&str>, ApiError> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(parse_error("found ')', expected: ',' or 'end of string'"));
        }
    }
    if depth != 0 {
        return Err(parse_error("found 'end of string', expected: ')'"));
    }
    out.push(&s[start..]);
    Ok(out)
}

fn parse_set(rest: &str) -> Result<Vec<String>, ApiError> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| parse_error(format!("found '{rest}', expected: '('")))?;
    let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
    for v in &values {
        check_value(v)?;
    }
    Ok(values)
}

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
    pub fn parse(s: &str) -> Result<LabelSelector, ApiError> {
        let mut reqs = Vec::new();
        for part in split_requirements(s)? {
            let part = part.trim();
            if part.is_empty() {
                return Err(parse_error(
                    "found ',', expected: !, identifier, or 'end of string'",
                ));
            }
            let req = if let Some(key) = part.strip_prefix('!') {
                (key.trim().to_string(), Op::NotExists)
            } else if let Some((k, v)) = part.split_once("!=") {
                (k.trim().to_string(), Op::NotEq(v.trim().to_string()))
            } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (k.trim().to_string(), Op::Eq(v.trim().to_string()))
            } else if let Some((k, rest)) = part.split_once(" notin ") {
                (k.trim().to_string(), Op::NotIn(parse_set(rest)?))
            } else if let Some((k, rest)) = part.split_once(" in ") {
                (k.trim().to_string(), Op::In(parse_set(rest)?))
            } else if part.contains(char::is_whitespace) || part.contains(['(', ')', '<', '>']) {
                return Err(parse_error(format!(
                    "found '{part}', expected: in, notin, =, ==, !=, gt, lt"
                )));
            } else {
                (part.to_string(), Op::Exists)
            };
            check_key(&req.0)?;
            match &req.1 {
                Op::Eq(v) | Op::NotEq(v) => {
                    if v.contains(['=', '!', '(', ')']) {
                        return Err(parse_error(format!(
                            "found '{v}', expected: ',' or 'end of string'"
                        )));
                    }
                    check_value(v)?
                }
                _ => {}
            }
            reqs.push(req);
        }
        Ok(LabelSelector { reqs })
    }

    /// `LabelSelectorAsSelector`: the requirements of a `metav1.LabelSelector` (match
    /// labels, then expressions); `None` when an expression has an operator no selector
    /// has (such a selector matches nothing).
    pub fn from_object(sel: &Value) -> Option<LabelSelector> {
        let mut reqs: Vec<(String, Op)> = match_labels(sel)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), Op::Eq(v.as_str().unwrap_or("").to_string())))
            .collect();
        for e in expressions(sel) {
            let key = e
                .get("key")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let values = || {
                strings(e.get("values"))
                    .into_iter()
                    .map(str::to_string)
                    .collect()
            };
            let op = match e.get("operator").and_then(Value::as_str).unwrap_or("") {
                "In" => Op::In(values()),
                "NotIn" => Op::NotIn(values()),
                "Exists" => Op::Exists,
                "DoesNotExist" => Op::NotExists,
                _ => return None,
            };
            reqs.push((key, op));
        }
        Some(LabelSelector { reqs })
    }

    /// Whether an object's `metadata.labels` match.
    pub fn matches(&self, obj: &Value) -> bool {
        self.matches_labels(obj.pointer("/metadata/labels").and_then(Value::as_object))
    }

    /// Whether `labels` match (`selector.Matches`).
    pub fn matches_labels(&self, labels: Option<&Map<String, Value>>) -> bool {
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.reqs.iter().all(|(k, op)| match op {
            Op::Eq(v) => get(k) == Some(v.as_str()),
            Op::NotEq(v) => get(k) != Some(v.as_str()),
            Op::In(vs) => get(k).is_some_and(|l| vs.iter().any(|v| v == l)),
            Op::NotIn(vs) => get(k).is_none_or(|l| !vs.iter().any(|v| v == l)),
            Op::Exists => get(k).is_some(),
            Op::NotExists => get(k).is_none(),
        })
    }
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn match_labels(sel: &Value) -> Option<&Map<String, Value>> {
    sel.get("matchLabels").and_then(Value::as_object)
}

fn expressions(sel: &Value) -> &[Value] {
    sel.get("matchExpressions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Whether a `metav1.LabelSelector` selects everything (no labels, no expressions).
pub fn is_empty(sel: &Value) -> bool {
    match_labels(sel).is_none_or(Map::is_empty) && expressions(sel).is_empty()
}

/// Whether `labels` satisfy a `metav1.LabelSelector` (an operator no selector has
/// matches nothing).
pub fn matches(sel: &Value, labels: Option<&Map<String, Value>>) -> bool {
    LabelSelector::from_object(sel).is_some_and(|s| s.matches_labels(labels))
}

/// Whether an `aggregationRule` selector picks a ClusterRole with `labels` (an empty
/// selector picks none, as the aggregation controller reads it).
pub fn aggregation_matches(sel: &Value, labels: Option<&Map<String, Value>>) -> bool {
    !is_empty(sel) && matches(sel, labels)
}

/// `LabelSelectorAsSelector(sel).String()` (crd-runtime's, the one copy of the rule).
pub use crd_runtime::labels::selector_string;

/// `metav1.FormatLabelSelector`: the selector string, `<none>` when it is empty.
pub fn format(sel: Option<&Value>) -> String {
    match sel.map(selector_string) {
        Some(s) if !s.is_empty() => s,
        _ => "<none>".into(),
    }
}

/// `LabelSelectorValidationOptions`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `AllowInvalidLabelValueInSelector`: label values in expressions are not checked
    /// (an update of an object whose old selector already held such values).
    pub allow_invalid_values: bool,
}

impl Options {
    /// The options of an update from `old` (`None` on create): invalid values are
    /// allowed when the old selector already had one, as kube-apiserver's
    /// `ValidationOptionsFor*` decide.
    pub fn for_update(old: Option<&Value>) -> Options {
        Options {
            allow_invalid_values: has_invalid_label_value(old),
        }
    }
}

/// `ValidateLabelSelector` (metav1 validation, crd-runtime's rules): the match labels,
/// then each expression. A null selector is not checked.
pub fn validate(sel: &Value, opts: Options, path: &Path, errs: &mut ErrorList) {
    if sel.is_null() {
        return;
    }
    let opts = crd_runtime::labels::SelectorOptions {
        allow_invalid_label_value_in_selector: opts.allow_invalid_values,
    };
    crd_runtime::labels::validate_selector(sel, opts, path, errs);
}

/// Whether [`validate`] refuses a selector (without options): kube-apiserver's
/// `hasInvalidLabelValueInSelector` checks, which decide [`Options::for_update`].
pub fn has_invalid_label_value(sel: Option<&Value>) -> bool {
    let mut errs = ErrorList::new();
    if let Some(sel) = sel {
        validate(sel, Options::default(), &Path::root(), &mut errs);
    }
    !errs.is_empty()
}

/// `ValidateLabelName` and `ValidateLabels` (crd-runtime's, the one copy of the rules).
pub use crd_runtime::labels::{validate_label_name as label_name, validate_labels};

/// Go's `%#v` of a `map[string]string` (keys sorted; `(nil)` when absent).
pub fn go_string_map(map: Option<&Map<String, Value>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".into();
    };
    let mut entries: Vec<(&String, &str)> = map
        .iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
        .collect();
    entries.sort();
    let inner: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", quote(k), quote(v)))
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

fn go_strings(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array) {
        None => "[]string(nil)".into(),
        Some(a) => {
            let items: Vec<String> = a.iter().map(|s| quote(s.as_str().unwrap_or(""))).collect();
            format!("[]string{{{}}}", items.join(", "))
        }
    }
}

/// Go's `%#v` of a `v1.LabelSelector` (how `field is immutable` quotes a selector).
pub fn go_repr(sel: &Value) -> String {
    let exprs = match sel.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_string(),
        Some(list) => {
            let items: Vec<String> = list
                .iter()
                .map(|e| {
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                        quote(e.get("key").and_then(Value::as_str).unwrap_or("")),
                        quote(e.get("operator").and_then(Value::as_str).unwrap_or("")),
                        go_strings(e.get("values"))
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{exprs}}}",
        go_string_map(match_labels(sel))
    )
}

#[cfg(test)]
#[path = "label_tests.rs"]
mod tests;
