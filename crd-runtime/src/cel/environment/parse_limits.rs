//! cel-go's parser limits, applied before and after the ANTLR parser runs.
//!
//! cel-go refuses an expression longer than 100,000 code points, stops at a nesting
//! depth of 250 per grammar rule (`expression recursion limit exceeded: 250`) and
//! prints at most 100 errors. The Rust parser counts only parenthesised nesting, so
//! a 20,000-term `1 + 1 + ...` or `self.a.a.a...` chain overflowed its stack, and a
//! 5,000-deep list literal produced one error (echoing the whole rule) per token.
//! [`check_source`] estimates cel-go's per-rule depth from the tokens first, so
//! such rules fail with cel-go's message before the parser recurses at all.

use kube_cel::cel::parser::ParseErrors;

/// cel-go's `expressionSizeCodePointLimit` default.
pub(in crate::cel) const MAX_CODE_POINTS: usize = 100_000;
/// cel-go's `maxRecursionDepth` default.
pub(in crate::cel) const MAX_RECURSION_DEPTH: usize = 250;
/// cel-go's `maxErrorsToReport`.
const MAX_ERRORS: usize = 100;
/// cel-go leaves out the source line of an error when it is longer than this.
const MAX_SNIPPET_BYTES: usize = 16_384;

/// The message for an error without a location, as cel-go prints `NoLocation`.
fn unlocated(message: &str) -> String {
    format!("ERROR: <input>:-1:0: {message}")
}

/// Refuses an expression cel-go's parser would refuse for its size or depth.
pub(in crate::cel) fn check_source(src: &str) -> Result<(), String> {
    let size = src.chars().count();
    if size > MAX_CODE_POINTS {
        return Err(unlocated(&format!(
            "expression code point size exceeds limit: size: {size}, limit {MAX_CODE_POINTS}"
        )));
    }
    if deepest_rule(src) >= MAX_RECURSION_DEPTH {
        return Err(recursion_error());
    }
    Ok(())
}

fn recursion_error() -> String {
    unlocated(&format!(
        "expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"
    ))
}

/// Renders the parser's errors as cel-go does: sorted by position, a source snippet
/// with a caret, at most [`MAX_ERRORS`] of them. A recursion-limit error from the
/// parser itself becomes cel-go's single message.
pub(in crate::cel) fn render_parse_errors(src: &str, errors: &ParseErrors) -> String {
    if errors
        .errors
        .iter()
        .any(|e| e.msg.contains("Recursion limit of"))
    {
        return recursion_error();
    }
    let lines: Vec<&str> = src.split('\n').collect();
    let mut out: Vec<String> = errors
        .errors
        .iter()
        .take(MAX_ERRORS)
        .map(|e| {
            let (line, column) = e.pos;
            let mut text = format!("ERROR: <input>:{line}:{column}: {}", e.msg);
            let snippet = usize::try_from(line - 1)
                .ok()
                .and_then(|l| lines.get(l))
                .filter(|s| s.len() <= MAX_SNIPPET_BYTES);
            if let Some(snippet) = snippet {
                let dots = usize::try_from(column - 1).unwrap_or(0);
                text.push_str(&format!(
                    "\n | {}\n | {}^",
                    snippet.replace('\t', " "),
                    ".".repeat(dots)
                ));
            }
            text
        })
        .collect();
    if errors.errors.len() > MAX_ERRORS {
        out.push(format!(
            "{} more errors were truncated",
            errors.errors.len() - MAX_ERRORS
        ));
    }
    out.join("\n")
}

/// The left-recursive rules of the CEL grammar whose contexts pile up along one
/// operator chain (`calc`: `+ - * / %`, `relation`: `== != < <= > >= in`, `member`:
/// `.f` and `[i]`), and `expr`, which nests through the else branch of `?:`.
#[derive(Clone, Copy)]
enum Rule {
    Calc,
    Relation,
    Member,
    Ternary,
}

/// The operator chains of one bracket level.
#[derive(Default, Clone, Copy)]
struct Frame {
    /// Binary operators of each [`Rule`] in the current chain.
    counts: [usize; 4],
}

impl Frame {
    /// Contexts of `rule` this frame keeps on the parser's stack: one per operator,
    /// plus the right operand being parsed (not for `member`, whose right side is a
    /// token).
    fn active(&self, rule: Rule) -> usize {
        let n = self.counts[rule as usize];
        match rule {
            Rule::Calc | Rule::Relation if n > 0 => n + 1,
            _ => n,
        }
    }
}

/// The deepest any one grammar rule gets while parsing `src`, estimated from its
/// tokens the way cel-go's recursion listener counts (every bracket level enters
/// each rule once more; each operator of a left-recursive chain pushes a context).
fn deepest_rule(src: &str) -> usize {
    let mut frames = vec![Frame::default()];
    let mut deepest = 1;
    let mut after_operand = false;
    let depth = |frames: &[Frame], rule: Rule| -> usize {
        frames.len() + frames.iter().map(|f| f.active(rule)).sum::<usize>()
    };
    let bump = |frames: &mut Vec<Frame>, rule: Rule, deepest: &mut usize| {
        if let Some(top) = frames.last_mut() {
            top.counts[rule as usize] += 1;
        }
        *deepest = (*deepest).max(depth(frames, rule));
    };
    let reset = |frames: &mut Vec<Frame>, rules: &[Rule]| {
        if let Some(top) = frames.last_mut() {
            for &r in rules {
                top.counts[r as usize] = 0;
            }
        }
    };
    for token in Tokens::new(src) {
        match token {
            Token::Operand => after_operand = true,
            Token::Open(c) => {
                if c == '[' && after_operand {
                    bump(&mut frames, Rule::Member, &mut deepest);
                }
                frames.push(Frame::default());
                deepest = deepest.max(frames.len());
                after_operand = false;
            }
            Token::Close => {
                if frames.len() > 1 {
                    frames.pop();
                }
                after_operand = true;
            }
            Token::Dot => {
                bump(&mut frames, Rule::Member, &mut deepest);
                after_operand = false;
            }
            Token::Arithmetic => {
                if after_operand {
                    reset(&mut frames, &[Rule::Member]);
                    bump(&mut frames, Rule::Calc, &mut deepest);
                }
                after_operand = false;
            }
            Token::Relation => {
                reset(&mut frames, &[Rule::Member, Rule::Calc]);
                bump(&mut frames, Rule::Relation, &mut deepest);
                after_operand = false;
            }
            Token::Logical | Token::Colon => {
                reset(&mut frames, &[Rule::Member, Rule::Calc, Rule::Relation]);
                after_operand = false;
            }
            Token::Question => {
                if after_operand {
                    reset(&mut frames, &[Rule::Member, Rule::Calc, Rule::Relation]);
                    bump(&mut frames, Rule::Ternary, &mut deepest);
                }
                after_operand = false;
            }
            Token::Comma => {
                reset(
                    &mut frames,
                    &[Rule::Member, Rule::Calc, Rule::Relation, Rule::Ternary],
                );
                after_operand = false;
            }
            Token::Other => after_operand = false,
        }
        if deepest >= MAX_RECURSION_DEPTH {
            break;
        }
    }
    deepest
}

/// What the depth estimate needs to know about a token.
#[derive(Debug, PartialEq)]
enum Token {
    /// An identifier, literal or keyword value.
    Operand,
    /// `(`, `[` or `{`.
    Open(char),
    /// `)`, `]` or `}`.
    Close,
    /// `.` or `.?` (member selection).
    Dot,
    /// `+ - * / %`.
    Arithmetic,
    /// `== != < <= > >= in`.
    Relation,
    /// `&&`, `||`.
    Logical,
    /// `?` (ternary, or an optional entry `?key`).
    Question,
    Colon,
    Comma,
    /// `!` and anything the parser will reject anyway.
    Other,
}

/// A lexer for CEL good enough to tell operators from the inside of literals and
/// comments.
struct Tokens<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Tokens<'a> {
    fn new(src: &'a str) -> Self {
        Tokens {
            bytes: src.as_bytes(),
            at: 0,
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.at + ahead).copied().unwrap_or(0)
    }

    /// Skips a string literal whose quote starts at `self.at`.
    fn skip_string(&mut self, raw: bool) {
        let quote = self.peek(0);
        let triple = self.peek(1) == quote && self.peek(2) == quote;
        let delimiter = if triple { 3 } else { 1 };
        self.at += delimiter;
        while self.at < self.bytes.len() {
            let b = self.peek(0);
            if b == b'\\' && !raw {
                self.at += 2;
                continue;
            }
            if b == quote && (!triple || (self.peek(1) == quote && self.peek(2) == quote)) {
                self.at += delimiter;
                return;
            }
            if b == b'\n' && !triple {
                return;
            }
            self.at += 1;
        }
    }

    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.at < self.bytes.len() && keep(self.peek(0)) {
            self.at += 1;
        }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        loop {
            self.skip_while(|b| b.is_ascii_whitespace());
            if self.peek(0) == b'/' && self.peek(1) == b'/' {
                self.skip_while(|b| b != b'\n');
                continue;
            }
            break;
        }
        if self.at >= self.bytes.len() {
            return None;
        }
        let b = self.peek(0);
        let two = [b, self.peek(1)];
        let token = match b {
            b'"' | b'\'' => {
                self.skip_string(false);
                return Some(Token::Operand);
            }
            b'`' => {
                self.at += 1;
                self.skip_while(|b| b != b'`' && b != b'\n');
                self.at += 1;
                return Some(Token::Operand);
            }
            b'0'..=b'9' => {
                let mut prev = 0u8;
                while self.at < self.bytes.len() {
                    let c = self.peek(0);
                    let exponent_sign = (c == b'+' || c == b'-') && matches!(prev, b'e' | b'E');
                    if !(c.is_ascii_alphanumeric() || c == b'.' || exponent_sign) {
                        break;
                    }
                    prev = c;
                    self.at += 1;
                }
                return Some(Token::Operand);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.at;
                self.skip_while(|b| b.is_ascii_alphanumeric() || b == b'_');
                let word = &self.bytes[start..self.at];
                let prefix =
                    word.len() <= 2 && word.iter().all(|b| matches!(b, b'r' | b'R' | b'b' | b'B'));
                if prefix && matches!(self.peek(0), b'"' | b'\'') {
                    let raw = word.iter().any(|b| matches!(b, b'r' | b'R'));
                    self.skip_string(raw);
                    return Some(Token::Operand);
                }
                return Some(if word == b"in" {
                    Token::Relation
                } else {
                    Token::Operand
                });
            }
            _ if matches!(&two, b"==" | b"!=" | b"<=" | b">=") => {
                self.at += 2;
                return Some(Token::Relation);
            }
            _ if matches!(&two, b"&&" | b"||") => {
                self.at += 2;
                return Some(Token::Logical);
            }
            _ if &two == b".?" => {
                self.at += 2;
                return Some(Token::Dot);
            }
            b'(' | b'[' | b'{' => Token::Open(b as char),
            b')' | b']' | b'}' => Token::Close,
            b'.' => Token::Dot,
            b'+' | b'-' | b'*' | b'/' | b'%' => Token::Arithmetic,
            b'<' | b'>' => Token::Relation,
            b'?' => Token::Question,
            b':' => Token::Colon,
            b',' => Token::Comma,
            _ => Token::Other,
        };
        // One byte; a multi-byte character is skipped one byte at a time as `Other`.
        self.at += 1;
        Some(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(op: &str, n: usize) -> String {
        vec!["1"; n + 1].join(op)
    }

    #[test]
    fn everyday_rules_are_far_from_the_limit() {
        for rule in [
            "self.spec.replicas <= self.spec.maxReplicas",
            "self.all(x, x.name.startsWith('a') && x.size() < 10)",
            "has(self.a) ? self.a.b[0].c == 'x' : self.d in ['a', 'b']",
            "self.minReplicas + self.surge * 2 - 1 >= 0 || !self.enabled",
            "r'^(a|b)+$'.matches(self.name) && b'x' != b'' // a comment (((",
            "'((((' + \"]]]]\" + '''\n((( ''' == self.x",
        ] {
            assert!(deepest_rule(rule) < 10, "{rule}: {}", deepest_rule(rule));
        }
    }

    #[test]
    fn long_chains_and_deep_nesting_reach_the_limit() {
        assert!(check_source(&chain(" + ", 240)).is_ok());
        for src in [
            chain(" + ", 300),
            chain(" == ", 300),
            format!("self{}", ".a".repeat(300)),
            format!("self{}", "[0]".repeat(300)),
            format!("{}1{}", "(".repeat(300), ")".repeat(300)),
            format!("{}{}", "[".repeat(300), "]".repeat(300)),
            format!("{}1{}", "true ? 1 : ".repeat(300), ""),
        ] {
            assert_eq!(
                check_source(&src).unwrap_err(),
                "ERROR: <input>:-1:0: expression recursion limit exceeded: 250",
                "{}",
                &src[..40]
            );
        }
    }

    #[test]
    fn an_oversized_expression_is_refused_by_its_size() {
        let src = format!("'{}' != ''", "a".repeat(MAX_CODE_POINTS));
        assert_eq!(
            check_source(&src).unwrap_err(),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100008, limit 100000"
        );
    }

    #[test]
    fn literals_and_comments_hide_their_brackets() {
        let mut t = Tokens::new("'a(' r\"b[\" b'''c{''' `d.e` 1.5e-3 x.y // (((");
        let kinds: Vec<Token> = std::iter::from_fn(|| t.next()).collect();
        assert_eq!(
            kinds,
            [
                Token::Operand,
                Token::Operand,
                Token::Operand,
                Token::Operand,
                Token::Operand,
                Token::Operand,
                Token::Dot,
                Token::Operand
            ]
        );
    }
}
