//! Label and field selectors (`labelSelector=`, `fieldSelector=` of list and watch), with
//! the server's syntax and error messages.

use serde_json::Value;

use super::status::ApiError;

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

    /// Whether an object's `metadata.labels` match.
    pub fn matches(&self, obj: &Value) -> bool {
        let labels = obj.pointer("/metadata/labels").and_then(Value::as_object);
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

/// A parsed field selector over the fields a resource supports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector {
    /// (dotted path of the value, equal?, value)
    reqs: Vec<(String, bool, String)>,
}

impl FieldSelector {
    /// Parses `f=v,g!=w`; `supported` lists the selectable fields as (label, dotted
    /// path of the value it reads): `("metadata.name", "metadata.name")`.
    pub fn parse(s: &str, supported: &[(String, String)]) -> Result<FieldSelector, ApiError> {
        let mut reqs = Vec::new();
        for part in s.split(',') {
            let part = part.trim();
            let (field, eq, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (f, true, v)
            } else {
                return Err(ApiError::bad_request(format!(
                    "invalid field selector: invalid selector: '{part}'; can't understand '{part}'"
                )));
            };
            let field = field.trim();
            let Some((_, path)) = supported.iter().find(|(label, _)| label == field) else {
                return Err(ApiError::bad_request(format!(
                    "field label not supported: {field}"
                )));
            };
            reqs.push((path.clone(), eq, value.trim().to_string()));
        }
        Ok(FieldSelector { reqs })
    }

    /// Whether the object's fields match (a missing field is the empty string, or the
    /// default a path gives after `|`, as `spec.unschedulable|false`; numbers and
    /// booleans compare by their text, as the server's field sets hold them).
    pub fn matches(&self, obj: &Value) -> bool {
        self.reqs.iter().all(|(field, eq, want)| {
            let (field, default) = field.split_once('|').unwrap_or((field, ""));
            let mut v = obj;
            for step in field.split('.') {
                v = v.get(step).unwrap_or(&Value::Null);
            }
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Null => default.to_string(),
                other => other.to_string(),
            };
            (text == *want) == *eq
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn label_selectors_match_like_the_server() {
        let obj = json!({"metadata": {"labels": {"app": "web", "tier": "fe"}}});
        for (s, want) in [
            ("app=web", true),
            ("app==web,tier=fe", true),
            ("app!=web", false),
            ("app in (web, db)", true),
            ("app notin (web)", false),
            ("tier", true),
            ("!tier", false),
            ("missing notin (x)", true),
            ("missing!=x", true),
        ] {
            assert_eq!(LabelSelector::parse(s).unwrap().matches(&obj), want, "{s}");
        }
    }

    #[test]
    fn bad_selectors_are_bad_requests() {
        for s in ["a==b==c", "a in (b", "a b", "=x", "a=b,", "-a=b"] {
            let e = LabelSelector::parse(s).unwrap_err();
            assert_eq!(e.code, http::StatusCode::BAD_REQUEST, "{s}");
            assert!(
                e.message.starts_with("unable to parse requirement"),
                "{s}: {}",
                e.message
            );
        }
        let fields = vec![
            ("metadata.name".to_string(), "metadata.name".to_string()),
            ("name".to_string(), "metadata.name".to_string()),
        ];
        let e = FieldSelector::parse("spec.x=1", &fields).unwrap_err();
        assert_eq!(e.message, "field label not supported: spec.x");
        let f = FieldSelector::parse("metadata.name!=a", &fields).unwrap();
        assert!(f.matches(&json!({"metadata": {"name": "b"}})));
        // A label may read another path (Namespaces' `name`).
        let f = FieldSelector::parse("name=b", &fields).unwrap();
        assert!(f.matches(&json!({"metadata": {"name": "b"}})));
    }
}
