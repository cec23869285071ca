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

/// Resolves a field path such as `.spec.color` against `schema`, following
/// `properties` (and `additionalProperties` for map keys). Array notation is
/// not allowed, as for selectable fields. Returns the normalized path and the
/// schema it points at.
pub fn resolve_field_path<'a>(
    path: &str,
    schema: &'a JSONSchemaProps,
) -> Result<(String, &'a JSONSchemaProps), String> {
    let Some(rest) = path.strip_prefix('.') else {
        return Err(format!("expected a path starting with '.', got {path:?}"));
    };
    if rest.is_empty() {
        return Err("path must name a field".into());
    }
    let mut current = schema;
    let mut normalized = Vec::new();
    for segment in rest.split('.') {
        if segment.is_empty() {
            return Err(format!("empty segment in {path:?}"));
        }
        if segment.contains(['[', ']']) {
            return Err(format!("array notation is not allowed: {path:?}"));
        }
        current = match current.properties.as_ref().and_then(|p| p.get(segment)) {
            Some(next) => next,
            None => match current.additional_properties_schema() {
                Some(ap) => ap,
                None => {
                    return Err(format!("does not refer to a valid field: {segment:?}"));
                }
            },
        };
        normalized.push(segment);
    }
    Ok((normalized.join("."), current))
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
            r#"{"type":"object","properties":{"spec":{"type":"object","properties":{"color":{"type":"string"}}}}}"#,
        )
        .unwrap();
        let (p, found) = resolve_field_path(".spec.color", &s).unwrap();
        assert_eq!(p, "spec.color");
        assert_eq!(found.type_str(), "string");
        assert!(resolve_field_path(".spec.size", &s).is_err());
        assert!(resolve_field_path("spec", &s).is_err());
        assert!(resolve_field_path(".spec[0]", &s).is_err());
    }
}
