//! The one tokenizer of the JSONPath dialects: `.`, `[` and `]`, and the text between
//! them, where single-quoted text (with backslash escapes) may hold delimiters.

/// A token of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token<'a> {
    Dot,
    Open,
    Close,
    Text(&'a str),
}

impl<'a> Token<'a> {
    /// The token as written (for messages).
    pub(super) fn as_str(self) -> &'a str {
        match self {
            Token::Dot => ".",
            Token::Open => "[",
            Token::Close => "]",
            Token::Text(t) => t,
        }
    }
}

/// A cursor over a path.
pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Lexer { text, pos: 0 }
    }

    /// The next token, or `None` at the end.
    pub(super) fn next_token(&mut self) -> Option<Token<'a>> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let delimiter = match bytes.get(start)? {
            b'.' => Some(Token::Dot),
            b'[' => Some(Token::Open),
            b']' => Some(Token::Close),
            _ => None,
        };
        if let Some(t) = delimiter {
            self.pos += 1;
            return Some(t);
        }
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b'.' | b'[' | b']' => break,
                b'\'' => i = skip_quoted(bytes, i, b'\''),
                _ => i += 1,
            }
        }
        // A quote left open (or an escape at the very end) runs past the text.
        self.pos = i.min(bytes.len());
        Some(Token::Text(&self.text[start..self.pos]))
    }

    /// The raw text of a bracket whose `[` was just read, up to its `]` outside quotes
    /// (`'...'` or `"..."`), which is consumed; `None` when no `]` closes it.
    pub(super) fn bracket_body(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b']' => {
                    self.pos = i + 1;
                    return Some(&self.text[start..i]);
                }
                q @ (b'\'' | b'"') => i = skip_quoted(bytes, i, q),
                _ => i += 1,
            }
        }
        None
    }
}

/// The index just past the quoted text opening at `i` (backslash escapes skipped).
fn skip_quoted(bytes: &[u8], i: usize, quote: u8) -> usize {
    let mut j = i + 1;
    while j < bytes.len() && bytes[j] != quote {
        j += if bytes[j] == b'\\' { 2 } else { 1 };
    }
    j + 1
}

/// The content of a quoted string literal (CEL's and Go's escapes, as upstream's field
/// paths read them), with its escapes resolved.
pub(super) fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('a') => '\u{7}',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('v') => '\u{b}',
            Some(c @ ('\\' | '\'' | '"')) => c,
            Some(c) => return Err(format!("invalid escape sequence \\{c}")),
            None => return Err("unterminated escape sequence".into()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<&str> {
        let mut l = Lexer::new(text);
        std::iter::from_fn(|| l.next_token().map(Token::as_str)).collect()
    }

    #[test]
    fn delimiters_split_outside_single_quotes() {
        assert_eq!(
            all(".spec['a.b'].c"),
            [".", "spec", "[", "'a.b'", "]", ".", "c"]
        );
        assert_eq!(all(r"['it\'s.x']"), ["[", r"'it\'s.x'", "]"]);
        assert_eq!(all("['open"), ["[", "'open"]);
        assert_eq!(all(r"['x\"), ["[", r"'x\"]);
    }

    #[test]
    fn bracket_bodies_keep_quoted_brackets() {
        let mut l = Lexer::new(r#"[?(@.a=="x]y")].b"#);
        assert_eq!(l.next_token(), Some(Token::Open));
        assert_eq!(l.bracket_body(), Some(r#"?(@.a=="x]y")"#));
        assert_eq!(l.next_token(), Some(Token::Dot));
        let mut open = Lexer::new("[0");
        open.next_token();
        assert_eq!(open.bracket_body(), None);
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(r"a\tb\'c").unwrap(), "a\tb'c");
        assert_eq!(unescape(r"\q").unwrap_err(), r"invalid escape sequence \q");
        assert_eq!(unescape("\\").unwrap_err(), "unterminated escape sequence");
    }
}
