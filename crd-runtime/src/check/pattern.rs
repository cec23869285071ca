//! `pattern` keywords are Go (RE2) regular expressions. The `regex` crate speaks
//! almost the same dialect, but inside a character class it reads `[`, `&&`, `--`
//! and `~~` as nested classes and set operations where Go sees literals — a
//! pattern like `^[^()<>@,;:\\"\/[\]?={} ]+$` (from Contour's CRDs) is valid RE2
//! but not a valid `regex` pattern. [`go_to_rust`] escapes those characters.

use std::borrow::Cow;

/// Compiled-program size budget: generous enough for the bounded repetitions
/// real schemas use (`.{0,253}`), bounded so hostile patterns fail fast.
const SIZE_LIMIT: usize = 64 << 20;

/// Rewrites a Go regular expression so that `regex` gives it the same meaning.
pub fn go_to_rust(pattern: &str) -> Cow<'_, str> {
    if !pattern.contains('[') {
        return Cow::Borrowed(pattern);
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            out.push(c);
            if let Some(&n) = chars.get(i + 1) {
                out.push(n);
            }
            i += 2;
            continue;
        }
        if !in_class {
            out.push(c);
            if c == '[' {
                in_class = true;
                // A leading `^` and then a leading `]` are part of the class.
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("\\]");
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
            // `[:alpha:]` is a POSIX class in both dialects.
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
            '[' => out.push_str("\\["),
            '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' if chars.get(i + 1) == Some(&'-') => out.push_str("\\-"),
            _ => out.push(c),
        }
        i += 1;
    }
    Cow::Owned(out)
}

/// Compiles a Go regular expression, or explains why it is invalid.
pub fn compile(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(&go_to_rust(pattern))
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            text.lines()
                .rev()
                .find(|l| l.trim_start().starts_with("error:"))
                .map_or(text.clone(), |l| {
                    l.trim().trim_start_matches("error: ").to_string()
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_character_classes() {
        let contour = r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f]+$"#;
        let re = compile(contour).unwrap();
        assert!(re.is_match("session"));
        assert!(!re.is_match("a[b"));
        assert!(compile("[a&&b]").unwrap().is_match("&"));
        assert!(compile("[a--b]").unwrap().is_match("-"));
        assert!(compile("[]a]").unwrap().is_match("]"));
        assert!(compile("[[:alpha:]]+").unwrap().is_match("abc"));
        assert!(
            compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
                .unwrap()
                .is_match("my-name")
        );
    }

    #[test]
    fn invalid_patterns_explain_themselves() {
        assert!(compile("(unclosed").unwrap_err().contains("unclosed"));
        assert!(compile("[z-a]").is_err());
    }
}
