//! Checks several built-in kinds share, with apimachinery's and core validation's
//! messages: port numbers and names, DNS names, IP addresses, Go's
//! rendering of values Go prints with `%#v`.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names;
use serde_json::Value;

/// `IsValidPortNum`'s message.
pub const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

/// Checks one of `values`, `Required` when empty (the enum checks of core validation).
pub fn one_of(value: &str, values: &[&str], path: Path, errs: &mut ErrorList) {
    if value.is_empty() {
        errs.push(FieldError::required(path, ""));
    } else {
        supported(value, values, path, errs);
    }
}

/// `NotSupported` unless `value` is one of `values` (empty included).
pub fn supported(value: &str, values: &[&str], path: Path, errs: &mut ErrorList) {
    if !values.contains(&value) {
        errs.push(FieldError::not_supported(
            path,
            BadValue::Str(value.into()),
            values,
        ));
    }
}

/// `field.Invalid` whose value Go prints with `%#v` (a slice, a struct): the value is
/// rendered here, as [`BadValue`] prints JSON.
pub fn invalid_go(path: Path, go_value: &str, detail: &str) -> FieldError {
    FieldError::invalid(path, BadValue::Omit, format!("{go_value}: {detail}"))
}

/// `[]string{"a", "b"}`.
pub fn go_strings(values: &[String]) -> String {
    let quoted: Vec<String> = values
        .iter()
        .map(|v| crd_runtime::__private::go::quote(v))
        .collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

/// The strings of a JSON array (non-strings skipped).
pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// `IsValidPortNum`.
pub fn port_number(port: i64, path: Path, errs: &mut ErrorList) {
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(path, BadValue::Int(port), PORT_RANGE));
    }
}

/// `IsValidPortName`'s messages (an IANA service name).
pub fn port_name_messages(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen");
    }
    out
}

/// `ValidatePortNumOrName`: a number in range, or a valid port name.
pub fn port_num_or_name(v: &Value, path: Path, errs: &mut ErrorList) {
    match v {
        Value::Number(n) => port_number(n.as_i64().unwrap_or(0), path, errs),
        Value::String(s) => {
            for m in port_name_messages(s) {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(s.clone()),
                    m,
                ));
            }
        }
        _ => {}
    }
}

/// `ValidateDNS1123Label` at `path`.
pub fn dns1123_label(value: &str, path: Path, errs: &mut ErrorList) {
    for m in names::dns1123_label(value) {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(value.into()),
            m,
        ));
    }
}

/// `ValidateDNS1123Subdomain` at `path`.
pub fn dns1123_subdomain(value: &str, path: Path, errs: &mut ErrorList) {
    for m in names::dns1123_subdomain(value) {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(value.into()),
            m,
        ));
    }
}

/// `IsFullyQualifiedName`: a DNS subdomain with at least three segments.
pub fn fully_qualified_name(name: &str, path: &Path, errs: &mut ErrorList) {
    if name.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
        return;
    }
    let problems = names::dns1123_subdomain(name);
    if !problems.is_empty() {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            problems.join(","),
        ));
    } else if name.split('.').count() < 3 {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            "should be a domain with at least three segments separated by dots",
        ));
    }
}

/// Whether `s` is an IP address as Go's legacy parser reads it (IPv4 with no leading
/// zeros check, IPv6).
pub fn is_ip(s: &str) -> bool {
    s.parse::<std::net::IpAddr>().is_ok()
}

/// `IsValidIPForLegacyField`'s message.
pub const IP_MESSAGE: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_names_read_like_the_server() {
        assert!(port_name_messages("http").is_empty());
        assert_eq!(
            port_name_messages("HTTP"),
            [
                "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "must contain at least one letter (a-z)"
            ]
        );
        assert_eq!(
            go_strings(&["a".into(), "b".into()]),
            r#"[]string{"a", "b"}"#
        );
        let mut errs = ErrorList::new();
        fully_qualified_name("hook.example", &Path::new("name"), &mut errs);
        fully_qualified_name("", &Path::new("name"), &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "name: Invalid value: \"hook.example\": should be a domain with at least three segments separated by dots",
                "name: Required value"
            ]
        );
    }
}
