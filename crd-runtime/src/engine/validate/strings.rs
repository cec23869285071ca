//! `maxLength`, `minLength` (in runes) and `pattern`; kube-openapi stops at the first failure.

use super::SchemaValidator;
use crate::engine::compiled::Node;
use crate::engine::path::PathRef;
use crate::field::{BadValue, FieldError};

impl SchemaValidator<'_> {
    pub(super) fn check_string(&mut self, n: &Node, s: &str, path: &PathRef<'_>) {
        if n.max_length.is_some() || n.min_length.is_some() {
            let runes = s.chars().count() as i64;
            if let Some(max) = n.max_length
                && runes > max
            {
                self.errors
                    .push(FieldError::too_long(path.field_path(), max));
                return;
            }
            if let Some(min) = n.min_length
                && runes < min
            {
                let name = path.openapi_name();
                let msg = format!("{name} in body should be at least {min} chars long");
                self.invalid_at(name, BadValue::Str(s.to_string()), msg);
                return;
            }
        }
        if let Some(p) = &n.pattern {
            let shown = match &p.regex {
                Ok(re) if re.is_match(s) => return,
                Ok(_) => std::borrow::Cow::Borrowed(p.source.as_str()),
                Err(e) => format!("{}, but pattern is invalid: {e}", p.source).into(),
            };
            let name = path.openapi_name();
            let msg = format!("{name} in body should match '{shown}'");
            self.invalid_at(name, BadValue::Str(s.to_string()), msg);
        }
    }
}
