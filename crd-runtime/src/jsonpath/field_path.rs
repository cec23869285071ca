//! The CRD checks' dialect: printer-column and scale paths must be "simple JSON paths"
//! (`validateSimpleJSONPath`), and `selectableFields` and rule `fieldPath`s are field
//! paths resolved against the schema (`ValidFieldPath`), with the API server's messages.

use super::lexer::{Lexer, Token, unescape};
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

const NOT_A_FIELD: &str = "does not refer to a valid field";
const END: &str = "unexpected end of JSON path";

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
    let mut lexer = Lexer::new(path);
    while let Some(tok) = lexer.next_token() {
        match tok {
            Token::Open => {
                let quoted = lexer.next_token().ok_or(END)?.as_str();
                let inner = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|_| quoted.len() >= 2)
                    .ok_or_else(|| format!("expected single quoted string but got {quoted}"))?;
                let name = unescape(inner).map_err(|e| format!("invalid string literal: {e}"))?;
                current = step(&name, current, &mut out)?;
                match lexer.next_token() {
                    Some(Token::Close) => {}
                    Some(other) => return Err(format!("expected ] but got {}", other.as_str())),
                    None => return Err(END.into()),
                }
            }
            Token::Dot => {
                let name = lexer.next_token().ok_or(END)?.as_str();
                current = step(name, current, &mut out)?;
            }
            other => return Err(format!("expected [ or . but got: {}", other.as_str())),
        }
    }
    Ok((out, current))
}

/// One name down from `current`, appended to `out`.
fn step<'a>(
    name: &str,
    current: Option<&'a JSONSchemaProps>,
    out: &mut Path,
) -> Result<Option<&'a JSONSchemaProps>, String> {
    let node = current.ok_or(NOT_A_FIELD)?;
    if let Some(props) = node.properties.as_ref().filter(|p| !p.is_empty()) {
        *out = out.child(name);
        return props
            .get(name)
            .map(|p| Some(&**p))
            .ok_or_else(|| NOT_A_FIELD.into());
    }
    if node.additional_properties.is_some() {
        *out = out.key(name);
        return Ok(node.additional_properties_schema());
    }
    Err(NOT_A_FIELD.into())
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
        assert_eq!(
            validate_simple_json_path("", &p).strings(),
            vec![r#"x: Invalid value: "": must not be empty"#]
        );
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
        for (bad, message) in [
            (".spec.size", NOT_A_FIELD),
            ("spec", "expected [ or . but got: spec"),
            (".list[0]", "expected single quoted string but got 0"),
            (".", END),
            ("..", NOT_A_FIELD),
            ("   ", "expected [ or . but got:    "),
            (".spec[color", "expected single quoted string but got color"),
            (".a.c", NOT_A_FIELD),
            ("['a.c'", END),
            ("['a.c'.b]", "expected ] but got ."),
            ("['a.c']x", "expected [ or . but got: x"),
            ("[]", "expected single quoted string but got ]"),
        ] {
            assert_eq!(resolve_field_path(bad, &s).unwrap_err(), message, "{bad}");
        }
    }

    #[test]
    fn quoted_names_unescape() {
        let s: JSONSchemaProps =
            serde_json::from_str(r#"{"type":"object","properties":{"c\u0007":{"type":"number"}}}"#)
                .unwrap();
        assert!(resolve_field_path(r"['c\a']", &s).is_ok());
        assert_eq!(
            resolve_field_path(r"['c\q']", &s).unwrap_err(),
            r"invalid string literal: invalid escape sequence \q"
        );
    }
}
