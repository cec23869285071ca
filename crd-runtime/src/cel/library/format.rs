//! The format library as the API server has it (`library/format.go`):
//! `format.<name>()` and `format.named(<string>)` (an `optional`, none for an
//! unknown name) give a `kubernetes.NamedFormat`, whose `validate(<string>)`
//! returns `optional.none()` or `optional.of(<messages>)` with apimachinery's
//! messages ([`crate::names`]). kube-cel words the name checks differently and accepts unpadded
//! base64; the uuid, date and datetime checks are still its own.

use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::{Opaque, OptionalValue, Value};
use kube_cel::cel::{Context, ExecutionError, ResolveResult};

use super::delegate::call;
use super::urls;
use crate::go::quote;
use crate::names;

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
        "dns1123Label" => names::dns1123_label(&s),
        "dns1123Subdomain" => names::dns1123_subdomain(&s),
        "dns1035Label" => names::dns1035_label(&s),
        "qualifiedName" => names::qualified_name(&s),
        "dns1123LabelPrefix" => names::dns_label_name(&s, true),
        "dns1123SubdomainPrefix" => names::dns_subdomain_name(&s, true),
        "dns1035LabelPrefix" => names::dns1035_label_name(&s, true),
        "labelValue" => names::label_value(&s),
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
        for (expr, want) in [
            ("format.named('dns1123Label').hasValue()", true),
            ("format.named('nope').hasValue()", false),
            (
                "format.named('dns1123Label').value() == format.dns1123Label()",
                true,
            ),
            ("format.uuid() == format.byte()", false),
        ] {
            assert_eq!(eval(expr), Ok(Value::Bool(want)), "{expr}");
        }
    }

    #[test]
    fn messages_are_apimachinerys() {
        let first = |src: &str| eval(&format!("{src}.value()[0]"));
        assert_eq!(
            first("format.dns1123Label().validate('contains a space')"),
            Ok(Value::from(
                names::dns1123_label("contains a space")[0].clone()
            ))
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
