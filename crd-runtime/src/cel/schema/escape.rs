//! Property-name escaping for CEL, as the API server does it
//! (`k8s.io/apiserver/pkg/cel/escaping.go`).
//!
//! Only declared `properties` are escaped; `additionalProperties` keys are map
//! keys and stay literal. A name that cannot be escaped (it starts with a digit
//! or contains a character outside `[a-zA-Z0-9_.\-/]`) is invisible to rules.
//! Reserved words are accessible escaped and, from Kubernetes 1.31 on, as is
//! ([`super::CelEnvironment`]).

/// CEL reserved words: a property with one of these names is accessed as `__name__`.
const RESERVED: [&str; 21] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Whether `name` is a CEL reserved word. Since Kubernetes 1.31 such properties
/// are also accessible unescaped (`self.namespace` as well as
/// `self.__namespace__`), except `true`, `false`, `null` and `in`, which the
/// grammar cannot accept as field names.
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
}

/// The CEL identifier for a property name, or `None` when the name cannot be escaped.
pub fn escape(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut chars = name.chars();
    let first = chars.next()?;
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    if !(first.is_ascii_alphabetic() || matches!(first, '_' | '.' | '-' | '/'))
        || !chars.all(allowed)
    {
        return None;
    }
    let mut out = String::with_capacity(name.len());
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'_' if bytes.get(i + 1) == Some(&b'_') => {
                out.push_str("__underscores__");
                i += 2;
                continue;
            }
            b'.' => out.push_str("__dot__"),
            b'-' => out.push_str("__dash__"),
            b'/' => out.push_str("__slash__"),
            b => out.push(b as char),
        }
        i += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_like_the_api_server() {
        assert_eq!(escape("spec").as_deref(), Some("spec"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("foo-bar").as_deref(), Some("foo__dash__bar"));
        assert_eq!(escape("a.b/c").as_deref(), Some("a__dot__b__slash__c"));
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("a___b").as_deref(), Some("a__underscores___b"));
        assert_eq!(escape("my_field").as_deref(), Some("my_field"));
        assert_eq!(escape("1abc"), None);
        assert_eq!(escape("a b"), None);
        assert_eq!(escape(""), None);
    }
}
