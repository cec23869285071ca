//! `PascalCase` and `snake_case` for ASCII text, exactly as heck 0.5 writes them.
//!
//! The naming policy only ever converts ASCII (it sanitizes everything else first),
//! and heck formats each character through `fmt` machinery: on the corpus that was
//! a twentieth of the whole run. These walk bytes instead and fall back to heck for
//! anything that is not ASCII; a property test keeps them equal to heck.

use heck::{ToPascalCase, ToSnakeCase};

/// heck's `to_pascal_case`.
pub fn pascal(s: &str) -> String {
    if !s.is_ascii() {
        return s.to_pascal_case();
    }
    let mut out = String::with_capacity(s.len());
    words(s, |word| {
        let mut bytes = word.bytes();
        out.extend(bytes.next().map(|b| char::from(b.to_ascii_uppercase())));
        out.extend(bytes.map(|b| char::from(b.to_ascii_lowercase())));
    });
    out
}

/// heck's `to_snake_case`.
pub fn snake(s: &str) -> String {
    if !s.is_ascii() {
        return s.to_snake_case();
    }
    let mut out = String::with_capacity(s.len() + 4);
    words(s, |word| {
        if !out.is_empty() {
            out.push('_');
        }
        out.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    });
    out
}

/// heck's word split of ASCII text: runs of letters and digits, cut before an
/// uppercase letter that follows a lowercase one (`fooBar`), and before the last
/// capital of an acronym followed by a lowercase letter (`HTTPServer`). Digits keep
/// the case of the letter before them. Words are never empty.
fn words(s: &str, mut word: impl FnMut(&str)) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Boundary,
        Lower,
        Upper,
    }
    for part in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = part.as_bytes();
        let (mut start, mut mode) = (0, Mode::Boundary);
        for i in 0..b.len() {
            let c = b[i];
            let Some(&next) = b.get(i + 1) else {
                word(&part[start..]);
                break;
            };
            let next_mode = if c.is_ascii_lowercase() {
                Mode::Lower
            } else if c.is_ascii_uppercase() {
                Mode::Upper
            } else {
                mode
            };
            if next_mode == Mode::Lower && next.is_ascii_uppercase() {
                word(&part[start..=i]);
                start = i + 1;
                mode = Mode::Boundary;
            } else if mode == Mode::Upper && c.is_ascii_uppercase() && next.is_ascii_lowercase() {
                word(&part[start..i]);
                start = i;
                mode = Mode::Boundary;
            } else {
                mode = next_mode;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        for (text, p, s) in [
            ("fooBar", "FooBar", "foo_bar"),
            ("HTTPServer", "HttpServer", "http_server"),
            ("v1alpha1", "V1alpha1", "v1alpha1"),
            ("x-foo bar_baz", "XFooBarBaz", "x_foo_bar_baz"),
            ("ABC", "Abc", "abc"),
            ("a", "A", "a"),
            ("", "", ""),
            ("--", "", ""),
            ("9lives", "9lives", "9lives"),
            ("aB1C", "AB1c", "a_b1c"),
        ] {
            assert_eq!(pascal(text), p, "{text:?}");
            assert_eq!(snake(text), s, "{text:?}");
        }
    }

    proptest::proptest! {
        /// Byte for byte what heck writes, for any ASCII text (and anything else,
        /// which goes to heck itself).
        #[test]
        fn same_as_heck(text in "[a-zA-Z0-9 _.$@-]{0,24}|.{0,8}") {
            proptest::prop_assert_eq!(pascal(&text), text.to_pascal_case());
            proptest::prop_assert_eq!(snake(&text), text.to_snake_case());
        }
    }
}
