//! Kubernetes' name rules, with apimachinery's messages
//! (`k8s.io/apimachinery/pkg/util/validation` and `pkg/api/validation`): DNS labels and
//! subdomains, qualified names (label and annotation keys), label values, ConfigMap
//! keys, and the `NameIs*` checks of `metadata.name` and `generateName`.
//!
//! Every check returns the problems it finds, in the API server's words, and an empty
//! list for a valid value; the caller places them at a field path
//! ([`FieldError::invalid`](crate::field::FieldError::invalid)):
//!
//! ```
//! use crd_runtime::names;
//!
//! assert!(names::dns1123_label("my-name").is_empty());
//! assert_eq!(names::label_value(&"x".repeat(64)), ["must be no more than 63 characters"]);
//! assert_eq!(names::qualified_name("example.com/")[0], "name part must be non-empty");
//! ```

/// apimachinery's `RegexError`: `msg`, the examples and the pattern the value must match.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
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

/// apimachinery's `MaxLenError`: `must be no more than {n} characters`.
pub fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`; with `alpha_first`, `[a-z]([-a-z0-9]*[a-z0-9])?`.
fn matches_label(s: &str, alpha_first: bool) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => {
            is_lower_alnum(first)
                && (!alpha_first || first.is_ascii_lowercase())
                && is_lower_alnum(last)
                && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_qualified(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => {
            is_alnum(first)
                && is_alnum(last)
                && b.iter()
                    .all(|&c| is_alnum(c) || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// A length check and a pattern check, as most of apimachinery's `Is*` functions are.
/// The pattern's message is only written when the value fails it: valid names are the
/// hot path of every write.
fn length_and_pattern(
    s: &str,
    max: usize,
    matches: bool,
    pattern: impl FnOnce() -> String,
) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > max {
        errs.push(max_len_error(max));
    }
    if !matches {
        errs.push(pattern());
    }
    errs
}

const LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

/// RFC 1123 label (`IsDNS1123Label`): at most 63 characters of `[a-z0-9-]`, starting
/// and ending alphanumeric.
pub fn dns1123_label(s: &str) -> Vec<String> {
    length_and_pattern(s, 63, matches_label(s, false), || {
        regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            LABEL_FMT,
            &["my-name", "123-abc"],
        )
    })
}

/// RFC 1123 subdomain (`IsDNS1123Subdomain`): at most 253 characters, dot-separated
/// RFC 1123 labels.
pub fn dns1123_subdomain(s: &str) -> Vec<String> {
    length_and_pattern(
        s,
        253,
        s.split('.').all(|label| matches_label(label, false)),
        || {
            regex_error(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
                r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
                &["example.com"],
            )
        },
    )
}

/// RFC 1035 label (`IsDNS1035Label`): an RFC 1123 label that starts with a letter.
pub fn dns1035_label(s: &str) -> Vec<String> {
    length_and_pattern(s, 63, matches_label(s, true), || {
        regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            &["my-name", "abc-123"],
        )
    })
}

/// `IsConfigMapKey`: a key of a ConfigMap's or Secret's data.
pub fn config_map_key(s: &str) -> Vec<String> {
    let valid = !s.is_empty()
        && s.bytes()
            .all(|b| is_alnum(b) || matches!(b, b'-' | b'_' | b'.'));
    let mut errs = length_and_pattern(s, 253, valid, || {
        regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            &["key.name", "KEY_NAME", "key-name"],
        )
    });
    match s {
        "." => errs.push("must not be '.'".into()),
        ".." => errs.push("must not be '..'".into()),
        _ if s.starts_with("..") => errs.push("must not start with '..'".into()),
        _ => {}
    }
    errs
}

fn qualified_name_error() -> String {
    regex_error(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]",
        &["MyName", "my.name", "123-abc"],
    )
}

/// `IsQualifiedName`: `[prefix/]name`, a label or annotation key: an optional DNS
/// subdomain prefix and a name of at most 63 alphanumeric characters, `-`, `_` or `.`.
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
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                qualified_name_error()
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !matches_qualified(name) {
        errs.push(format!("name part {}", qualified_name_error()));
    }
    errs
}

/// `IsValidLabelValue`: empty, or at most 63 alphanumeric characters, `-`, `_` or `.`,
/// starting and ending alphanumeric.
pub fn label_value(s: &str) -> Vec<String> {
    length_and_pattern(s, 63, s.is_empty() || matches_qualified(s), || {
        regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?",
            &["MyValue", "my_value", "12345"],
        )
    })
}

/// `path.ValidatePathSegmentName` (names of objects that are path segments: RBAC
/// roles, embedded objects): not `.` or `..` (unless a `generateName` `prefix`), no
/// `/` or `%`.
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

/// `maskTrailingDash`: a `generateName` prefix may end in `-`, which apimachinery hides
/// by replacing the last two bytes with `a`. Go cuts bytes: what it keeps of a
/// multi-byte character is kept here as `~`, as invalid in every name and as long.
fn mask_trailing_dash(s: &str) -> std::borrow::Cow<'_, str> {
    match s.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => {
            let last = rest.char_indices().last().map_or(0, |(i, _)| i);
            let partial = rest.len() - 1 - last;
            format!("{}{}a", &rest[..last], "~".repeat(partial)).into()
        }
        _ => s.into(),
    }
}

/// `NameIsDNSSubdomain`: the rule of most kinds' `metadata.name` (custom resources
/// among them); with `prefix`, a `generateName`, which may end in `-`.
pub fn dns_subdomain_name(s: &str, prefix: bool) -> Vec<String> {
    if prefix {
        return dns1123_subdomain(&mask_trailing_dash(s));
    }
    dns1123_subdomain(s)
}

/// `NameIsDNSLabel`: [`dns1123_label`] for names (Namespaces'), `generateName` allowed
/// a trailing `-` with `prefix`.
pub fn dns_label_name(s: &str, prefix: bool) -> Vec<String> {
    if prefix {
        return dns1123_label(&mask_trailing_dash(s));
    }
    dns1123_label(s)
}

/// `NameIsDNS1035Label`: [`dns1035_label`] for names (Services'), `generateName`
/// allowed a trailing `-` with `prefix`.
pub fn dns1035_label_name(s: &str, prefix: bool) -> Vec<String> {
    if prefix {
        return dns1035_label(&mask_trailing_dash(s));
    }
    dns1035_label(s)
}

/// `schema.GroupVersion.String()`: `group/version`, or `version` alone for the core
/// group.
#[cfg(feature = "engine")]
pub(crate) fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// A `kind` (or `listKind`), checked as the API server checks kinds: a DNS-1035 label
/// once lowercased. The message when it is not, `None` when it is.
#[cfg(feature = "engine")]
pub(crate) fn mixed_case_kind(kind: &str) -> Option<String> {
    let problems = dns1035_label(&kind.to_lowercase());
    (!problems.is_empty()).then(|| {
        format!(
            "may have mixed case, but should otherwise match: {}",
            problems.join(",")
        )
    })
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
        assert_eq!(
            qualified_name("contains a space"),
            [
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert!(label_value("").is_empty());
        assert_eq!(label_value("#").len(), 1);
        assert_eq!(path_segment_name("..", false), vec!["may not be '..'"]);
        assert!(!dns1035_label("foo.bar-com").is_empty());
        assert!(dns1035_label("abc-123").is_empty());
        assert!(!dns1035_label("1abc").is_empty());
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
        assert_eq!(
            regex_error("bad", "x+", &[]),
            "bad (regex used for validation is 'x+')"
        );
    }

    #[test]
    fn generate_name_prefixes_may_end_in_a_dash() {
        assert!(dns_subdomain_name("gen-", true).is_empty());
        assert!(!dns_subdomain_name("gen-", false).is_empty());
        assert!(dns_label_name("my-label-prefix-", true).is_empty());
        assert!(dns_subdomain_name("mysubdomain.prefix.-", true).is_empty());
        assert!(dns1035_label_name("svc-", true).is_empty());
        // apimachinery replaces the last two characters: a 254-character prefix fits.
        assert!(dns_subdomain_name(&format!("{}-", "a".repeat(253)), true).is_empty());
        assert!(!dns_subdomain_name("-", true).is_empty());
        assert_eq!(mask_trailing_dash("é-"), "~a");
        assert_eq!(mask_trailing_dash("ab-"), "aa");
    }
}
