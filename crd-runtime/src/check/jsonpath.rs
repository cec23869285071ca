//! The "simple JSON paths" CRDs use for printer columns and the scale
//! subresource (`validateSimpleJSONPath` upstream), and resolving a dot path
//! against a schema for `selectableFields`.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::JSONSchemaProps;

/// Checks that `s` is a JSON path in dot notation starting with `.`.
pub fn validate_simple_json_path(s: &str, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let invalid = |detail: &str| FieldError::invalid(path.clone(), BadValue::Str(s.into()), detail);
    if s.is_empty() {
        errs.push(invalid("must not be empty"));
    } else if !s.starts_with('.') {
        errs.push(invalid("must be a simple json path starting with ."));
    }
    errs
}

/// Splits a field path into `.`, `[` and `]` tokens and the text between them;
/// single-quoted text (with backslash escapes) may contain delimiters.
fn tokens(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = path.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'.' | b'[' | b']' => {
                if start < i {
                    out.push(&path[start..i]);
                }
                out.push(&path[i..i + 1]);
                i += 1;
                start = i;
            }
            b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        out.push(&path[start..]);
    }
    out
}

/// The content of a single-quoted CEL string literal, with its escapes resolved.
fn unescape_single_quoted(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('a') => '\u{7}',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('v') => '\u{b}',
            Some(c @ ('\\' | '\'' | '"')) => c,
            Some(c) => return Err(format!("invalid escape sequence \\{c}")),
            None => return Err("unterminated escape sequence".into()),
        });
    }
    Ok(out)
}

/// Resolves a field path such as `.spec.color` or `.spec['a.b']` against `schema`
/// (`ValidFieldPath` upstream, without array notation, as used for `fieldPath` of
/// validation rules and for `selectableFields`). A name steps into `properties`,
/// or into `additionalProperties` when the node has no properties. Returns the
/// path as a field path and the schema it points at (`None` below a boolean
/// `additionalProperties`).
pub fn resolve_field_path<'a>(
    path: &str,
    schema: &'a JSONSchemaProps,
) -> Result<(Path, Option<&'a JSONSchemaProps>), String> {
    let mut current = Some(schema);
    let mut out = Path::root();
    let toks = tokens(path);
    let mut it = toks.into_iter();
    let step = |name: &str, current: Option<&'a JSONSchemaProps>, out: &mut Path| {
        let node = current.ok_or("does not refer to a valid field")?;
        if node.properties.as_ref().is_some_and(|p| !p.is_empty()) {
            *out = out.child(name);
            return node
                .properties
                .as_ref()
                .and_then(|p| p.get(name))
                .map(|p| Some(&**p))
                .ok_or("does not refer to a valid field");
        }
        if node.additional_properties.is_some() {
            *out = out.key(name);
            return Ok(node.additional_properties_schema());
        }
        Err("does not refer to a valid field")
    };
    while let Some(tok) = it.next() {
        match tok {
            "[" => {
                let quoted = it.next().ok_or("unexpected end of JSON path")?;
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2)
                    .ok_or_else(|| format!("expected single quoted string but got {quoted}"))?;
                let name = unescape_single_quoted(inner)
                    .map_err(|e| format!("invalid string literal: {e}"))?;
                current = step(&name, current, &mut out)?;
                match it.next() {
                    Some("]") => {}
                    Some(other) => return Err(format!("expected ] but got {other}")),
                    None => return Err("unexpected end of JSON path".into()),
                }
            }
            "." => {
                let name = it.next().ok_or("unexpected end of JSON path")?;
                current = step(name, current, &mut out)?;
            }
            other => return Err(format!("expected [ or . but got: {other}")),
        }
    }
    Ok((out, current))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_paths() {
        let p = Path::new("x");
        assert!(validate_simple_json_path(".spec.a", &p).is_empty());
        assert!(validate_simple_json_path(".", &p).is_empty());
        assert_eq!(
            validate_simple_json_path("spec", &p).strings(),
            vec![r#"x: Invalid value: "spec": must be a simple json path starting with ."#]
        );
        assert_eq!(validate_simple_json_path("", &p).len(), 1);
    }

    #[test]
    fn resolving() {
        let s: JSONSchemaProps = serde_json::from_str(
            r#"{"type":"object","properties":{"spec":{"type":"object","properties":{"color":{"type":"string"}}},
               "a.c":{"type":"number"},"m":{"type":"object","additionalProperties":{"type":"string"}},
               "list":{"type":"array","items":{"type":"object"}}}}"#,
        )
        .unwrap();
        let (p, found) = resolve_field_path(".spec.color", &s).unwrap();
        assert_eq!(p.as_str(), "spec.color");
        assert_eq!(found.unwrap().type_str(), "string");
        assert_eq!(resolve_field_path("['a.c']", &s).unwrap().0.as_str(), "a.c");
        assert_eq!(resolve_field_path(".m.x", &s).unwrap().0.as_str(), "m[x]");
        for bad in [
            ".spec.size",
            "spec",
            ".list[0]",
            ".",
            "..",
            "   ",
            ".spec[color",
            ".a.c",
        ] {
            assert!(resolve_field_path(bad, &s).is_err(), "{bad}");
        }
        assert_eq!(
            resolve_field_path(".list[0]", &s).unwrap_err(),
            "expected single quoted string but got 0"
        );
    }

    #[test]
    fn quoted_names_unescape() {
        let s: JSONSchemaProps =
            serde_json::from_str(r#"{"type":"object","properties":{"c\u0007":{"type":"number"}}}"#)
                .unwrap();
        assert!(resolve_field_path(r"['c\a']", &s).is_ok());
        assert!(resolve_field_path(r"['c\q']", &s).is_err());
    }
}
