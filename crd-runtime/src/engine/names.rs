//! Name, label and annotation checks with apimachinery's messages
//! (`k8s.io/apimachinery/pkg/util/validation`).

fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push('\'');
        s.push_str(e);
        s.push_str("', ");
    }
    s.push_str("regex used for validation is '");
    s.push_str(fmt);
    s.push_str("')");
    s
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn matches_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && is_lower_alnum(b[0])
        && is_lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
}

/// RFC 1123 label (`IsDNS1123Label`): the error messages, empty when valid.
pub fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !matches_label(s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `IsConfigMapKey`: a key of a ConfigMap's or Secret's data.
pub fn config_map_key(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len_error(253));
    }
    let valid = !s.is_empty()
        && s.bytes()
            .all(|b| is_alnum(b) || matches!(b, b'-' | b'_' | b'.'));
    if !valid {
        errs.push(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    match s {
        "." => errs.push("must not be '.'".into()),
        ".." => errs.push("must not be '..'".into()),
        _ if s.starts_with("..") => errs.push("must not start with '..'".into()),
        _ => {}
    }
    errs
}

/// RFC 1123 subdomain (`IsDNS1123Subdomain`).
pub fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !s.split('.').all(matches_label) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
            &["example.com"],
        ));
    }
    errs
}

/// RFC 1035 label (`IsDNS1035Label`).
pub fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    let b = s.as_bytes();
    let ok = !b.is_empty()
        && b[0].is_ascii_lowercase()
        && is_lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| is_lower_alnum(c) || c == b'-');
    if !ok {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            &["my-name", "abc-123"],
        ));
    }
    errs
}

const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_qualified(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && is_alnum(b[0])
        && is_alnum(b[b.len() - 1])
        && b.iter()
            .all(|&c| is_alnum(c) || matches!(c, b'-' | b'_' | b'.'))
}

/// `IsQualifiedName`: `[prefix/]name`.
pub fn qualified_name(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let name = match s.split_once('/') {
        None => s,
        Some((prefix, name)) if !name.contains('/') => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            name
        }
        Some(_) => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !matches_qualified(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !s.is_empty() && !matches_qualified(s) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?",
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `path.ValidatePathSegmentName` (names of embedded objects).
pub fn path_segment_name(s: &str, prefix: bool) -> Vec<String> {
    let mut errs = Vec::new();
    if !prefix && (s == "." || s == "..") {
        errs.push(format!("may not be '{s}'"));
    }
    for bad in ["/", "%"] {
        if s.contains(bad) {
            errs.push(format!("may not contain '{bad}'"));
        }
    }
    errs
}

/// `NameIsDNSSubdomain` (names of custom resources); a `generateName` prefix may end in `-`.
pub fn dns_subdomain_name(s: &str, prefix: bool) -> Vec<String> {
    if prefix && s.len() > 1 && s.ends_with('-') {
        let masked = format!("{}a", &s[..s.len() - 1]);
        return dns1123_subdomain(&masked);
    }
    dns1123_subdomain(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_apimachinery() {
        assert!(dns1123_label("my-name").is_empty());
        assert_eq!(
            dns1123_label("My")[0],
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        );
        assert!(dns1123_subdomain("a.b-c").is_empty());
        assert!(!dns1123_subdomain("a..b").is_empty());
        assert!(qualified_name("example.com/Name_1").is_empty());
        assert_eq!(qualified_name("#").len(), 1);
        assert_eq!(qualified_name("a/b/c").len(), 1);
        assert!(label_value("").is_empty());
        assert_eq!(label_value("#").len(), 1);
        assert_eq!(path_segment_name("..", false), vec!["may not be '..'"]);
        assert!(dns_subdomain_name("gen-", true).is_empty());
        assert!(!dns1035_label("foo.bar-com").is_empty());
        assert!(config_map_key("game.properties").is_empty());
        assert!(config_map_key("KEY_1-a").is_empty());
        assert_eq!(
            config_map_key("a b"),
            [
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
            ]
        );
        assert_eq!(config_map_key(".."), ["must not be '..'"]);
        assert_eq!(config_map_key("..a"), ["must not start with '..'"]);
        assert_eq!(
            config_map_key(&"a".repeat(254)),
            ["must be no more than 253 characters"]
        );
    }
}
