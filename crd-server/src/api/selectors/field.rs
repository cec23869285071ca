//! Field selectors (`fieldSelector=` of list and watch), with the server's syntax and
//! error messages.

use serde_json::Value;

use crate::api::status::ApiError;

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
    fn field_selectors_read_the_supported_paths() {
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
