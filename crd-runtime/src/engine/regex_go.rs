//! `pattern` compiled with RE2 semantics on the `regex` crate.
//!
//! Three differences matter: Go's `\d`, `\w`, `\s` and `\b` are ASCII-only (the
//! crate's are Unicode); inside a character class Go reads `[`, `&&`, `--` and
//! `~~` as literals where the crate sees nested classes and set operations (a
//! pattern like `^[^()<>@,;:\\"\/[\]?={} ]+$` from Contour's CRDs is valid RE2);
//! and an invalid pattern must be reported with Go's `regexp` error text, because
//! the API server puts it into the message.

use regex_syntax::ast::{self, ErrorKind};

/// Upper bound for a compiled pattern; hostile schemas get an error, not a huge DFA.
const SIZE_LIMIT: usize = 16 << 20;

/// Compiles `pattern` like Go's `regexp.Compile`, returning Go's error text on failure.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    let literal = escape_class_literals(pattern);
    if let Err(e) = ast::parse::Parser::new().parse(&literal) {
        return Err(go_error(&literal, &e));
    }
    regex::RegexBuilder::new(&ascii_classes(&literal))
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => {
                format!("error parsing regexp: expression too large: `{pattern}`")
            }
            other => format!("error parsing regexp: {}", first_line(&other.to_string())),
        })
}

fn first_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim().to_string())
        .unwrap_or_else(|| s.lines().next().unwrap_or(s).to_string())
}

/// Go's `syntax.Error` text for the parse errors people actually make.
fn go_error(pattern: &str, e: &ast::Error) -> String {
    let span = e.span();
    let mut at = pattern
        .get(span.start.offset..span.end.offset)
        .unwrap_or("");
    if at.is_empty() {
        // Zero-width spans point at the offending character.
        let rest = pattern.get(span.start.offset..).unwrap_or("");
        at = rest
            .get(..rest.chars().next().map_or(0, char::len_utf8))
            .unwrap_or("");
    }
    let rest = pattern.get(span.start.offset..).unwrap_or("");
    let (code, expr) = match e.kind() {
        ErrorKind::RepetitionMissing => ("missing argument to repetition operator", at),
        ErrorKind::RepetitionCountUnclosed | ErrorKind::RepetitionCountInvalid => {
            ("invalid repeat count", at)
        }
        ErrorKind::RepetitionCountDecimalEmpty => ("invalid repeat count", at),
        ErrorKind::ClassUnclosed => ("missing closing ]", rest),
        ErrorKind::ClassRangeInvalid => ("invalid character class range", at),
        ErrorKind::GroupUnclosed => ("missing closing )", pattern),
        ErrorKind::GroupUnopened => ("unexpected )", pattern),
        ErrorKind::EscapeUnrecognized | ErrorKind::EscapeUnexpectedEof => {
            ("invalid escape sequence", at)
        }
        ErrorKind::GroupNameInvalid | ErrorKind::GroupNameDuplicate { .. } => {
            ("invalid named capture", at)
        }
        ErrorKind::FlagUnrecognized | ErrorKind::FlagUnexpectedEof => {
            ("invalid or unsupported Perl syntax", at)
        }
        ErrorKind::UnsupportedLookAround | ErrorKind::UnsupportedBackreference => {
            ("invalid or unsupported Perl syntax", at)
        }
        ErrorKind::NestLimitExceeded(_) => ("expression nests too deeply", pattern),
        _ => ("invalid regexp", pattern),
    };
    format!("error parsing regexp: {code}: `{expr}`")
}

/// Rewrites Perl classes to their ASCII (RE2) meaning.
fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut in_class = false;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push(c);
                    break;
                };
                let repl = match (in_class, n) {
                    (false, 'd') => Some("[0-9]"),
                    (false, 'D') => Some("[^0-9]"),
                    (false, 'w') => Some("[0-9A-Za-z_]"),
                    (false, 'W') => Some("[^0-9A-Za-z_]"),
                    (false, 's') => Some("[\\t\\n\\f\\r ]"),
                    (false, 'S') => Some("[^\\t\\n\\f\\r ]"),
                    (false, 'b') => Some("(?-u:\\b)"),
                    (false, 'B') => Some("(?-u:\\B)"),
                    (true, 'd') => Some("0-9"),
                    (true, 'w') => Some("0-9A-Za-z_"),
                    (true, 's') => Some("\\t\\n\\f\\r "),
                    _ => None,
                };
                match repl {
                    Some(r) => out.push_str(r),
                    None => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A leading `]` (or `^]`) is a literal inside the class.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                if chars.peek() == Some(&']') {
                    out.push(chars.next().unwrap_or(']'));
                }
            }
            '[' if in_class && chars.peek() == Some(&':') => {
                // POSIX class `[:alpha:]`: copy through its closing `:]`.
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Escapes what Go reads literally inside a character class but the `regex`
/// crate does not: `[` (other than a POSIX `[:name:]`), `&`, `~`, and `-` before `-`.
fn escape_class_literals(pattern: &str) -> std::borrow::Cow<'_, str> {
    if !pattern.contains('[') {
        return std::borrow::Cow::Borrowed(pattern);
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            out.push(c);
            out.extend(chars.get(i + 1));
            i += 2;
            continue;
        }
        if !in_class {
            out.push(c);
            if c == '[' {
                in_class = true;
                // A leading `^` and then a leading `]` belong to the class.
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push(']');
                    i += 1;
                }
            }
            i += 1;
            continue;
        }
        match c {
            ']' => {
                in_class = false;
                out.push(c);
            }
            '[' if chars.get(i + 1) == Some(&':') => {
                match chars[i + 2..].iter().position(|&x| x == ']') {
                    Some(end) => {
                        out.extend(&chars[i..i + 3 + end]);
                        i += 3 + end;
                        continue;
                    }
                    None => out.push_str("\\["),
                }
            }
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' if chars.get(i + 1) == Some(&'-') => out.push_str("\\-"),
            _ => out.push(c),
        }
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii() {
        let re = compile(r"^\d+$").unwrap();
        assert!(re.is_match("123"));
        assert!(!re.is_match("١٢٣"));
        let re = compile(r"^[\w.]+\s\S$").unwrap();
        assert!(re.is_match("a_b.c x"));
        assert!(!re.is_match("é x"));
        let re = compile(r"^[]a]+$").unwrap();
        assert!(re.is_match("]a]"));
        assert!(compile(r"\bfoo\b").unwrap().is_match("a foo b"));
    }

    #[test]
    fn go_class_literals() {
        let contour = r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f]+$"#;
        let re = compile(contour).unwrap();
        assert!(re.is_match("session"));
        assert!(!re.is_match("a[b"));
        assert!(compile("[a&&b]").unwrap().is_match("&"));
        assert!(compile("[a--b]").unwrap().is_match("-"));
        assert!(compile("[a~~b]").unwrap().is_match("~"));
        assert!(compile("[[:alpha:]]+").unwrap().is_match("abc"));
    }

    #[test]
    fn go_error_texts() {
        assert_eq!(
            compile("+").unwrap_err(),
            "error parsing regexp: missing argument to repetition operator: `+`"
        );
        assert_eq!(
            compile("a[b").unwrap_err(),
            "error parsing regexp: missing closing ]: `[b`"
        );
        assert_eq!(
            compile("(a").unwrap_err(),
            "error parsing regexp: missing closing ): `(a`"
        );
        assert!(compile(r"(?=a)").is_err());
    }
}
