//! The format library as the API server has it (`library/format.go`):
//! `format.<name>()` and `format.named(<string>)` (an `optional`, none for an
//! unknown name) give a `kubernetes.NamedFormat`, whose `validate(<string>)`
//! returns `optional.none()` or `optional.of(<messages>)` with apimachinery's
//! messages. kube-cel words the name checks differently and accepts unpadded
//! base64; the uuid, date and datetime checks are still its own.

use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::{Opaque, OptionalValue, Value};
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use super::delegate::call;
use super::urls;
use crate::go::quote;

/// The formats of `ConstantFormats`, by the name `format.named` takes.
const NAMES: [&str; 13] = [
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

/// A named format; formats compare by name.
#[derive(Debug, PartialEq, Eq)]
struct NamedFormat(&'static str);

impl Opaque for NamedFormat {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.NamedFormat"
    }
}

pub(crate) fn register(ctx: &mut Context<'_>) {
    for name in NAMES {
        ctx.add_function(&format!("format.{name}"), move || {
            Ok::<_, ExecutionError>(Value::Opaque(Arc::new(NamedFormat(name))))
        });
    }
    ctx.add_function("format.named", named);
    ctx.add_function("validate", validate);
}

fn named(name: Arc<String>) -> ResolveResult {
    let optional = match NAMES.iter().find(|n| **n == name.as_str()) {
        Some(n) => OptionalValue::of(Value::Opaque(Arc::new(NamedFormat(n)))),
        None => OptionalValue::none(),
    };
    Ok(Value::Opaque(Arc::new(optional)))
}

fn validate(This(format): This<Value>, s: Arc<String>) -> ResolveResult {
    let Value::Opaque(o) = &format else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let Some(NamedFormat(name)) = o.downcast_ref::<NamedFormat>() else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let errors = match *name {
        "dns1123Label" => dns1123_label(&s),
        "dns1123Subdomain" => dns1123_subdomain(&s),
        "dns1035Label" => dns1035_label(&s),
        "qualifiedName" => qualified_name(&s),
        "dns1123LabelPrefix" => dns1123_label(&mask_trailing_dash(&s)),
        "dns1123SubdomainPrefix" => dns1123_subdomain(&mask_trailing_dash(&s)),
        "dns1035LabelPrefix" => dns1035_label(&mask_trailing_dash(&s)),
        "labelValue" => label_value(&s),
        "uri" => match urls::parse_request_uri(&s) {
            Ok(()) => vec![],
            Err(e) => vec![format!("parse {}: {e}", quote(&s))],
        },
        // Go's base64.StdEncoding needs the padding kube-cel does not ask for.
        "byte" if !s.len().is_multiple_of(4) => vec!["invalid base64".to_string()],
        other => strfmt(other, s)?,
    };
    let optional = if errors.is_empty() {
        OptionalValue::none()
    } else {
        let list = errors
            .into_iter()
            .map(|e| Value::String(Arc::new(e)))
            .collect();
        OptionalValue::of(Value::List(Arc::new(list)))
    };
    Ok(Value::Opaque(Arc::new(optional)))
}

/// uuid, byte, date, datetime: kube-cel's check, with `library/format.go`'s message.
fn strfmt(name: &str, s: Arc<String>) -> Result<Vec<String>, ExecutionError> {
    let (src, message) = match name {
        "uuid" => (
            "format.uuid().validate(a).hasValue()",
            "does not match the UUID format",
        ),
        "byte" => ("format.byte().validate(a).hasValue()", "invalid base64"),
        "date" => ("format.date().validate(a).hasValue()", "invalid date"),
        _ => (
            "format.datetime().validate(a).hasValue()",
            "invalid datetime",
        ),
    };
    Ok(match call(src, &[Value::String(s)])? {
        Value::Bool(true) => vec![message.to_string()],
        _ => vec![],
    })
}

/// `maskTrailingDash` of apimachinery's `NameIs*` (it drops the last two characters).
fn mask_trailing_dash(s: &str) -> String {
    if s.len() > 1 && s.ends_with('-') {
        format!("{}a", &s[..s.len() - 2])
    } else {
        s.to_string()
    }
}

/// apimachinery's `RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` (with `upper`: A-Z allowed too; with `alpha_first`:
/// the first character a letter).
fn label_like(s: &str, upper: bool, alpha_first: bool) -> bool {
    let ok =
        |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || upper && c.is_ascii_uppercase();
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            ok(f)
                && (!alpha_first || f.is_ascii_alphabetic())
                && ok(l)
                && b.iter().all(|&c| ok(c) || c == b'-')
        }
        _ => false,
    }
}

const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !label_like(s, false, false) {
        errs.push(regex_error(LABEL_MSG, LABEL_FMT, &["my-name", "123-abc"]));
    }
    errs
}

fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len(253));
    }
    if !s.split('.').all(|part| label_like(part, false, false)) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
            &["example.com"],
        ));
    }
    errs
}

fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !label_like(s, false, true) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            &["my-name", "abc-123"],
        ));
    }
    errs
}

const QUALIFIED_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
fn qualified_like(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        }
        _ => false,
    }
}

/// apimachinery's `IsQualifiedName`.
fn qualified_name(s: &str) -> Vec<String> {
    let example = || {
        regex_error(
            QUALIFIED_MSG,
            QUALIFIED_FMT,
            &["MyName", "my.name", "123-abc"],
        )
    };
    let mut errs = Vec::new();
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts[..] {
        [name] => name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|e| format!("prefix part {e}")),
                );
            }
            name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                example()
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63)));
    }
    if !qualified_like(name) {
        errs.push(format!("name part {}", example()));
    }
    errs
}

/// apimachinery's `IsValidLabelValue`.
fn label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len(63));
    }
    if !s.is_empty() && !qualified_like(s) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?",
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::KubeCelExt;
    use kube_cel::cel::Program;

    fn eval(src: &str) -> ResolveResult {
        let mut ctx = Context::default().with_all();
        register(&mut ctx);
        Program::compile(src).expect("parses").execute(&ctx)
    }

    #[test]
    fn named_formats_are_optional() {
        assert_eq!(
            eval("format.named('dns1123Label').hasValue()"),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            eval("format.named('nope').hasValue()"),
            Ok(Value::Bool(false))
        );
        assert_eq!(
            eval("format.named('dns1123Label').value() == format.dns1123Label()"),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            eval("format.uuid() == format.byte()"),
            Ok(Value::Bool(false))
        );
    }

    #[test]
    fn messages_are_apimachinerys() {
        let first = |src: &str| eval(&format!("{src}.value()[0]"));
        assert_eq!(
            first("format.dns1123Label().validate('contains a space')"),
            Ok(Value::from(regex_error(
                LABEL_MSG,
                LABEL_FMT,
                &["my-name", "123-abc"]
            )))
        );
        assert_eq!(
            first("format.qualifiedName().validate('contains a space')"),
            Ok(Value::from(
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ))
        );
        assert_eq!(
            first("format.byte().validate('aGVsbG8')"),
            Ok(Value::from("invalid base64"))
        );
        assert_eq!(
            first("format.date().validate('2020-01-32')"),
            Ok(Value::from("invalid date"))
        );
        let valid = |src: &str| eval(&format!("{src}.hasValue()"));
        for ok in [
            "format.dns1123LabelPrefix().validate('my-label-prefix-')",
            "format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')",
            "format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')",
            "format.uri().validate('http://example.com')",
            "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')",
            "format.byte().validate('aGVsbG8=')",
            "format.datetime().validate('2021-01-01T00:00:00Z')",
            "format.labelValue().validate('')",
        ] {
            assert_eq!(valid(ok), Ok(Value::Bool(false)), "{ok}");
        }
        assert_eq!(
            valid("format.uri().validate('../x')"),
            Ok(Value::Bool(true))
        );
    }
}
