//! `fieldPath` of a validation rule: a relative JSONPath with field (`.a`) and
//! quoted key (`['a.b']`) accessors only, checked against the node's schema
//! (`ValidFieldPath` in the API server). Numeric list indexes are not allowed.

use crate::cel::schema::CelSchema;
use crate::field::Path;

/// One step of a parsed field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A declared property: rendered `.name`.
    Field(String),
    /// An `additionalProperties` key: rendered `[key]`.
    Key(String),
}

/// Parses `path` against `schema`; the error says why it does not refer to a field.
pub fn parse(path: &str, schema: &CelSchema) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    let mut node = schema;
    let mut rest = path;
    while !rest.is_empty() {
        let name: String;
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[', ']']).unwrap_or(r.len());
            if end == 0 {
                return Err(if r.is_empty() {
                    "unexpected end of JSON path".into()
                } else {
                    format!("expected [ or . but got: {}", &r[..1])
                });
            }
            name = r[..end].to_string();
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let (lit, after) = quoted(r)?;
            name = lit;
            rest = after.strip_prefix(']').ok_or_else(|| {
                format!(
                    "expected ] but got {}",
                    after.chars().next().map_or(String::new(), String::from)
                )
            })?;
        } else {
            let tok: String = rest
                .chars()
                .take_while(|c| !matches!(c, '.' | '[' | ']'))
                .collect();
            let tok = if tok.is_empty() {
                rest[..1].to_string()
            } else {
                tok
            };
            return Err(format!("expected [ or . but got: {tok}"));
        }
        if let Some(props) = &node.properties {
            let child = props.get(&name).ok_or("does not refer to a valid field")?;
            steps.push(Step::Field(name));
            node = &**child;
        } else if let Some(ap) = node.additional_properties_schema() {
            steps.push(Step::Key(name));
            node = ap;
        } else {
            return Err("does not refer to a valid field".into());
        }
    }
    Ok(steps)
}

/// A single-quoted string literal at the start of `s`, unescaped, and what follows it.
fn quoted(s: &str) -> Result<(String, &str), String> {
    let Some(body) = s.strip_prefix('\'') else {
        let tok: String = s
            .chars()
            .take_while(|c| !matches!(c, '.' | '[' | ']'))
            .collect();
        return Err(format!("expected single quoted string but got {tok}"));
    };
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Ok((out, &body[i + 1..])),
            '\\' => {
                let Some((_, d)) = chars.next() else { break };
                out.push(match d {
                    'a' => '\x07',
                    'b' => '\x08',
                    'f' => '\x0c',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\x0b',
                    '\'' => '\'',
                    '\\' => '\\',
                    other => {
                        return Err(format!(
                            "invalid string literal: invalid escape char \\{other}"
                        ));
                    }
                });
            }
            c => out.push(c),
        }
    }
    Err("unexpected end of JSON path".into())
}

/// Appends parsed steps to a field path.
pub fn append(base: &Path, steps: &[Step]) -> Path {
    steps.iter().fold(base.clone(), |p, s| match s {
        Step::Field(f) => p.child(f),
        Step::Key(k) => p.key(k),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> std::sync::Arc<CelSchema> {
        let s: crate::model::JSONSchemaProps =
            serde_json::from_value(json!({"type": "object", "properties": {
                "a": {"type": "object", "properties": {"b": {"type": "string"}}},
                "m": {"type": "object", "additionalProperties": {"type": "object",
                      "properties": {"x": {"type": "string"}}}},
                "foo.34$": {"type": "string"}
            }}))
            .expect("schema");
        CelSchema::new(&s)
    }

    #[test]
    fn parses_fields_and_keys() {
        let s = schema();
        let steps = parse(".a.b", &s).expect("valid");
        assert_eq!(append(&Path::new("spec"), &steps).to_string(), "spec.a.b");
        let steps = parse(".m['k.1'].x", &s).expect("valid");
        assert_eq!(
            append(&Path::new("spec"), &steps).to_string(),
            "spec.m[k.1].x"
        );
        let steps = parse("['foo.34$']", &s).expect("valid");
        assert_eq!(append(&Path::root(), &steps).to_string(), "foo.34$");
    }

    #[test]
    fn rejects_invalid_paths() {
        let s = schema();
        assert_eq!(
            parse(".c", &s),
            Err("does not refer to a valid field".into())
        );
        assert_eq!(
            parse(".a.b.c", &s),
            Err("does not refer to a valid field".into())
        );
        assert!(parse(".a[0]", &s).is_err());
        assert_eq!(parse("a", &s), Err("expected [ or . but got: a".into()));
        assert_eq!(parse(".", &s), Err("unexpected end of JSON path".into()));
        assert!(parse("['a", &s).is_err());
    }
}
