//! OpenAPI value validation with kube-openapi's semantics and the API server's
//! error conversion (`apiserver/validation/validation.go`).
//!
//! kube-openapi runs, per schema node, a fixed chain of validators (type, junctors,
//! string, format, number, slice, enum, object) and merges their results. Which
//! failing `anyOf`/`oneOf` alternative gets reported depends on its "match count",
//! so the walk computes that count exactly as kube-openapi does and returns it.

mod collections;
mod junctors;
pub(crate) mod numbers;
mod strings;

use serde_json::Value;

use super::compiled::{CompiledSchema, JsonType, Node, NodeId, NodeRef};
use super::path::PathRef;
use crate::depth::MAX_DEPTH;
use crate::field::{BadValue, ErrorType, FieldError, Path};
use crate::go::quote as go_quote;

/// Validates values against a compiled schema, collecting every error.
pub(crate) struct SchemaValidator<'s> {
    pub schema: &'s CompiledSchema,
    pub errors: Vec<FieldError>,
    pub too_deep: bool,
    /// Validation ratcheting: errors of values unchanged from the old object's are
    /// dropped (`RatchetingSchemaValidator`).
    pub ratchet: bool,
}

impl<'s> SchemaValidator<'s> {
    pub fn new(schema: &'s CompiledSchema) -> Self {
        SchemaValidator {
            schema,
            errors: Vec::new(),
            too_deep: false,
            ratchet: false,
        }
    }

    /// Validates `v` at `path` against node `id`; returns kube-openapi's match count.
    /// `old` is the value paired with `v` in the old object (updates only).
    pub fn validate(
        &mut self,
        v: &Value,
        old: Option<&Value>,
        id: NodeId,
        path: &PathRef<'_>,
    ) -> u32 {
        let schema = self.schema;
        if self.ratchet
            && let Some(o) = old
            && crate::correlation::unchanged(NodeRef { schema, id }, v, o)
        {
            // Unchanged: its errors become warnings (dropped); its match count stays.
            let (_, count) = self.isolated(|s| s.validate(v, None, id, path));
            return count;
        }
        let n = schema.node(id);
        if path.depth() > MAX_DEPTH {
            self.too_deep = true;
            return 0;
        }
        if v.is_null() {
            // Only the type and enum validators look at null.
            let mut count = 0;
            if !n.types.is_empty() && !n.nullable {
                self.type_error(path, &n.type_label, "null");
            } else {
                count += 1;
            }
            self.check_enum(n, v, path);
            return count;
        }
        let mut count = 0;
        if !n.types.is_empty() || !n.format.is_empty() {
            count += 1 + self.check_type(n, v, path);
        }
        count += 1 + self.junctors(n, v, old, path);
        if let Value::String(s) = v {
            count += 1;
            self.check_string(n, s, path);
            if let Some(f) = n.format_check {
                count += 1;
                if !f.check(s) {
                    self.type_error_value(path, &n.format, s);
                }
            }
        }
        if let Value::Number(num) = v {
            count += 2;
            self.check_number(n, num, path);
        }
        if let Value::Array(items) = v {
            count += 2 + self.check_array(n, items, old, path);
        }
        count += 1;
        self.check_enum(n, v, path);
        if let Value::Object(map) = v {
            count += 1 + self.check_object(n, map, old, path);
        }
        count + 1
    }

    /// kube-openapi's type validator for a non-null value; returns its match count.
    fn check_type(&mut self, n: &Node, v: &Value, path: &PathRef<'_>) -> u32 {
        let (sch, fmt) = go_type(v);
        let kind = json_type(v);
        let str_or_slice = matches!(v, Value::String(_) | Value::Array(_));
        let contains = kind.is_some_and(|k| n.has_type(k));
        let float_int = kind == Some(JsonType::Number)
            && n.has_type(JsonType::Integer)
            && v.as_f64().is_some_and(is_json_integer);
        let int_float = kind == Some(JsonType::Integer) && n.has_type(JsonType::Number);
        let type_ok = contains || float_int || int_float;
        if !(str_or_slice || n.format.is_empty() || type_ok || fmt == n.format) {
            self.type_error(path, &n.format, fmt);
            return 0;
        }
        let numeric = n.has_type(JsonType::Number) || n.has_type(JsonType::Integer);
        if !numeric && !n.format.is_empty() && str_or_slice {
            return 1;
        }
        if !type_ok {
            self.type_error(path, &n.type_label, sch);
            return 0;
        }
        1
    }

    /// `enum`: null never matches unless listed; numbers compare by value.
    fn check_enum(&mut self, n: &Node, v: &Value, path: &PathRef<'_>) {
        let Some(values) = &n.enum_values else { return };
        if values.iter().any(|e| json_equal(e, v)) {
            return;
        }
        let supported: Vec<String> = values
            .iter()
            .map(|e| match e {
                Value::String(s) => s.clone(),
                other => go_json(other),
            })
            .collect();
        let refs: Vec<&str> = supported.iter().map(String::as_str).collect();
        self.errors.push(FieldError::not_supported(
            path.field_path(),
            BadValue::from_json(v),
            &refs,
        ));
    }

    /// `X in body must be of type T: "actual"` with the actual type as the value.
    fn type_error(&mut self, path: &PathRef<'_>, type_name: &str, actual: &str) {
        self.type_error_value(path, type_name, actual);
    }

    fn type_error_value(&mut self, path: &PathRef<'_>, type_name: &str, value: &str) {
        let name = path.openapi_name();
        let msg = format!(
            "{name} in body must be of type {type_name}: {}",
            go_quote(value)
        );
        self.errors.push(FieldError::new(
            ErrorType::TypeInvalid,
            PathRef::field_path_of(name),
            BadValue::Str(value.to_string()),
            msg,
        ));
    }

    /// A kube-openapi validation error converted by the API server (`Invalid value`),
    /// at the path whose [`PathRef::openapi_name`] the message was built with (the name
    /// is built once, and only for an error).
    fn invalid_at(&mut self, openapi_name: String, value: BadValue, message: String) {
        let path = PathRef::field_path_of(openapi_name);
        self.errors.push(FieldError::invalid(path, value, message));
    }

    /// A plain (non-validation) kube-openapi error: reported at `<nil>` with `""`.
    fn plain(&mut self, message: String) {
        self.errors.push(FieldError::invalid(
            Path::root(),
            BadValue::Str(String::new()),
            message,
        ));
    }

    /// Runs `f` with a fresh error buffer and returns what it collected.
    fn isolated(&mut self, f: impl FnOnce(&mut Self) -> u32) -> (Vec<FieldError>, u32) {
        let saved = std::mem::take(&mut self.errors);
        let count = f(self);
        let errs = std::mem::replace(&mut self.errors, saved);
        (errs, count)
    }
}

/// [`go_type`]'s type as a [`JsonType`] (compared without string comparisons);
/// `None` for null.
fn json_type(v: &Value) -> Option<JsonType> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => JsonType::Boolean,
        Value::String(_) => JsonType::String,
        Value::Number(n) if n.as_i64().is_some() => JsonType::Integer,
        Value::Number(_) => JsonType::Number,
        Value::Array(_) => JsonType::Array,
        Value::Object(_) => JsonType::Object,
    })
}

/// The JSON type and Go format kube-openapi infers from a decoded value.
fn go_type(v: &Value) -> (&'static str, &'static str) {
    match v {
        Value::Null => ("null", ""),
        Value::Bool(_) => ("boolean", ""),
        Value::String(_) => ("string", ""),
        Value::Number(n) if n.as_i64().is_some() => ("integer", "int64"),
        Value::Number(_) => ("number", "float64"),
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
    }
}

/// `swag.IsFloat64AJSONInteger`.
pub(crate) fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9007199254740991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    let g = f.trunc();
    if f == g {
        return true;
    }
    let diff = (f - g).abs();
    diff / (f.abs() + g.abs()) < 1e-9
}

/// Equality for `enum`: numbers compare by value, everything else structurally.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_equal(a, b)))
        }
        _ => a == b,
    }
}

/// Go's `json.Marshal` of a decoded value (integral floats print without `.0`).
pub(crate) fn go_json(v: &Value) -> String {
    match v {
        Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_none() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 1e21 {
                format!("{f:.0}")
            } else {
                n.to_string()
            }
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(go_json).collect();
            format!("[{}]", parts.join(","))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), go_json(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        other => other.to_string(),
    }
}

/// Drops repeated messages, as kube-openapi's result merging does.
pub(crate) fn dedup(errors: &mut Vec<FieldError>) {
    if errors.len() < 2 {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert(e.to_string()));
}
