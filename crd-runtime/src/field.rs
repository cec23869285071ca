//! Field paths and field errors in the API server's format
//! (`k8s.io/apimachinery/pkg/util/validation/field`).
//!
//! `FieldError::to_string()` renders exactly what the API server returns, e.g.
//! `spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10`.

use std::fmt;

use serde_json::Value;

/// A field path: `spec.versions[0].schema.openAPIV3Schema.properties[spec]`.
///
/// Rendered like apimachinery's `field.Path`: children are joined with `.`,
/// list indexes and map keys are written in brackets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path(String);

impl Path {
    /// The empty path (`<nil>` when rendered in an error).
    pub fn root() -> Path {
        Path(String::new())
    }

    /// A path starting with `name`.
    pub fn new(name: &str) -> Path {
        Path(name.to_string())
    }

    /// `self.name`.
    pub fn child(&self, name: &str) -> Path {
        let mut s = String::with_capacity(self.0.len() + 1 + name.len());
        s.push_str(&self.0);
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(name);
        Path(s)
    }

    /// `self[i]`.
    pub fn index(&self, i: usize) -> Path {
        Path(format!("{}[{i}]", self.0))
    }

    /// `self[key]`.
    pub fn key(&self, key: &str) -> Path {
        Path(format!("{}[{key}]", self.0))
    }

    /// Whether the path is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The rendered path (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Path {
    fn from(s: &str) -> Path {
        Path(s.to_string())
    }
}

impl From<String> for Path {
    fn from(s: String) -> Path {
        Path(s)
    }
}

/// The kind of a field error (`field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorType {
    /// `Not found`
    NotFound,
    /// `Required value`
    Required,
    /// `Duplicate value`
    Duplicate,
    /// `Invalid value`
    Invalid,
    /// `Unsupported value`
    NotSupported,
    /// `Forbidden`
    Forbidden,
    /// `Too long`
    TooLong,
    /// `Too many`
    TooMany,
    /// `Internal error`
    Internal,
    /// `Invalid value` (type mismatch)
    TypeInvalid,
}

impl ErrorType {
    /// The label the API server prints (`Required value`, ...).
    pub fn label(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
            ErrorType::TypeInvalid => "Invalid value",
        }
    }

    /// The Go constant's value (`FieldValueRequired`, ...), as used in reasons and test tables.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// Parses a Go constant value (`FieldValueInvalid`).
    pub fn from_reason(s: &str) -> Option<ErrorType> {
        const ALL: [ErrorType; 10] = [
            ErrorType::NotFound,
            ErrorType::Required,
            ErrorType::Duplicate,
            ErrorType::Invalid,
            ErrorType::NotSupported,
            ErrorType::Forbidden,
            ErrorType::TooLong,
            ErrorType::TooMany,
            ErrorType::Internal,
            ErrorType::TypeInvalid,
        ];
        ALL.into_iter().find(|t| t.reason() == s)
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The offending value of a field error, with Go's rendering rules.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// No value is printed (`field.OmitValueType`).
    Omit,
    /// A Go string: printed quoted (`"abc"`).
    Str(String),
    /// A Go int64: printed as is.
    Int(i64),
    /// A Go float64: printed with `%v`.
    Float(f64),
    /// A Go bool.
    Bool(bool),
    /// Anything else, printed as JSON (objects, arrays, null).
    Json(Value),
}

impl BadValue {
    /// Converts a JSON value the way the API server's unstructured decoding types it.
    pub fn from_json(v: &Value) -> BadValue {
        match v {
            Value::String(s) => BadValue::Str(s.clone()),
            Value::Bool(b) => BadValue::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => BadValue::Int(i),
                None => BadValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            other => BadValue::Json(other.clone()),
        }
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::Omit => Ok(()),
            BadValue::Str(s) => f.write_str(&crate::go::quote(s)),
            BadValue::Int(i) => write!(f, "{i}"),
            BadValue::Float(x) => f.write_str(&go_float(*x)),
            BadValue::Bool(b) => write!(f, "{b}"),
            BadValue::Json(Value::Null) => f.write_str("null"),
            BadValue::Json(v) => write!(f, "{v}"),
        }
    }
}

/// One field error.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// Kind of error.
    pub type_: ErrorType,
    /// Where (`<nil>` when empty).
    pub field: Path,
    /// The offending value.
    pub bad_value: BadValue,
    /// Free-form explanation.
    pub detail: String,
}

impl FieldError {
    /// A generic constructor.
    pub fn new(
        type_: ErrorType,
        field: Path,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            type_,
            field,
            bad_value,
            detail: detail.into(),
        }
    }

    /// `Required value`.
    pub fn required(field: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Required, field, BadValue::Omit, detail)
    }

    /// `Forbidden`.
    pub fn forbidden(field: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Forbidden, field, BadValue::Omit, detail)
    }

    /// `Invalid value`.
    pub fn invalid(field: Path, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, value, detail)
    }

    /// `Unsupported value` with the list of supported values, rendered like the server.
    pub fn not_supported(field: Path, value: BadValue, supported: &[&str]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| crate::go::quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, field, value, detail)
    }

    /// `Duplicate value`.
    pub fn duplicate(field: Path, value: BadValue) -> Self {
        Self::new(ErrorType::Duplicate, field, value, "")
    }

    /// `Too long: may not be more than N bytes`.
    pub fn too_long(field: Path, max: i64) -> Self {
        let unit = if max == 1 { "byte" } else { "bytes" };
        Self::new(
            ErrorType::TooLong,
            field,
            BadValue::Omit,
            format!("may not be more than {max} {unit}"),
        )
    }

    /// `Too many: actual: must have at most N items`.
    pub fn too_many(field: Path, actual: i64, max: i64) -> Self {
        let unit = if max == 1 { "item" } else { "items" };
        Self::new(
            ErrorType::TooMany,
            field,
            BadValue::Int(actual),
            format!("must have at most {max} {unit}"),
        )
    }

    /// The part after `field: ` (`field.Error.ErrorBody`).
    pub fn body(&self) -> String {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_body(&mut s);
        s
    }

    fn write_body(&self, f: &mut impl fmt::Write) -> fmt::Result {
        f.write_str(self.type_.label())?;
        let omit = matches!(
            self.type_,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        ) || self.bad_value == BadValue::Omit;
        if !omit {
            write!(f, ": {}", self.bad_value)?;
        }
        if !self.detail.is_empty() {
            f.write_str(": ")?;
            f.write_str(&self.detail)?;
        }
        Ok(())
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = if self.field.is_empty() {
            "<nil>"
        } else {
            self.field.as_str()
        };
        write!(f, "{field}: ")?;
        self.write_body(f)
    }
}

impl std::error::Error for FieldError {}

/// All errors found, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorList(pub Vec<FieldError>);

impl ErrorList {
    /// An empty list.
    pub fn new() -> Self {
        ErrorList(Vec::new())
    }

    /// Adds one error.
    pub fn push(&mut self, e: FieldError) {
        self.0.push(e);
    }

    /// Whether no error was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of errors.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Iterates over the errors.
    pub fn iter(&self) -> std::slice::Iter<'_, FieldError> {
        self.0.iter()
    }

    /// The errors rendered like the API server.
    pub fn strings(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }

    /// Renders like `apimachinery`'s aggregate: `[a, b]`, or the single error.
    pub fn aggregate(&self) -> String {
        match self.0.as_slice() {
            [] => String::new(),
            [one] => one.to_string(),
            many => format!(
                "[{}]",
                many.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl Extend<FieldError> for ErrorList {
    fn extend<I: IntoIterator<Item = FieldError>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl IntoIterator for ErrorList {
    type Item = FieldError;
    type IntoIter = std::vec::IntoIter<FieldError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a ErrorList {
    type Item = &'a FieldError;
    type IntoIter = std::slice::Iter<'a, FieldError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for ErrorList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.aggregate())
    }
}

impl std::error::Error for ErrorList {}

/// Go's `%v` for a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`: shortest digits,
/// exponent form below 1e-4 and from 1e+06 up): `0.9`, `10`, `100000`, `1e+06`,
/// `9.223372036854776e+18`, `1e-05`.
pub fn go_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-tripping digits, in scientific form: "d.ddde±x".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        // Plain decimal; Rust's Display is shortest-round-trip and never uses exponents.
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_apimachinery() {
        let p = Path::new("spec")
            .child("versions")
            .index(0)
            .child("schema")
            .key("spec");
        assert_eq!(p.to_string(), "spec.versions[0].schema[spec]");
        assert_eq!(Path::root().child("a").to_string(), "a");
    }

    #[test]
    fn error_strings_match_the_server() {
        let e = FieldError::invalid(
            Path::new("spec").child("replicas"),
            BadValue::Int(15),
            "spec.replicas in body should be less than or equal to 10",
        );
        assert_eq!(
            e.to_string(),
            "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"
        );
        let e = FieldError::not_supported(
            Path::new("spec.mode"),
            BadValue::Str("c".into()),
            &["a", "b"],
        );
        assert_eq!(
            e.to_string(),
            r#"spec.mode: Unsupported value: "c": supported values: "a", "b""#
        );
        assert_eq!(
            FieldError::required(Path::new("x"), "").to_string(),
            "x: Required value"
        );
        assert_eq!(
            FieldError::too_long(Path::new("fieldX"), 2).to_string(),
            "fieldX: Too long: may not be more than 2 bytes"
        );
        assert_eq!(
            FieldError::too_many(Path::new("fieldX"), 3, 2).to_string(),
            "fieldX: Too many: 3: must have at most 2 items"
        );
        assert_eq!(
            FieldError::invalid(Path::root(), BadValue::Str(String::new()), "x").to_string(),
            r#"<nil>: Invalid value: "": x"#
        );
    }

    #[test]
    fn go_value_formatting() {
        assert_eq!(go_float(0.9), "0.9");
        assert_eq!(go_float(10.0), "10");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1e20), "1e+20");
        assert_eq!(go_float(1e6), "1e+06");
        assert_eq!(go_float(100000.0), "100000");
        assert_eq!(go_float(123456789.0), "1.23456789e+08");
        assert_eq!(go_float(9223372036854775808.0), "9.223372036854776e+18");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(
            BadValue::Str("a\"b\n\u{1}é".into()).to_string(),
            "\"a\\\"b\\n\\x01é\""
        );
        assert_eq!(
            BadValue::from_json(&serde_json::json!([1, "a"])).to_string(),
            r#"[1,"a"]"#
        );
        assert_eq!(
            BadValue::from_json(&serde_json::json!(1.5)).to_string(),
            "1.5"
        );
    }
}
