//! Plain and quoted scalars in block context.
//!
//! Multi-line scalars are first cut into pieces (slices of the input and the
//! separators folding puts between them), then copied once into a string of the
//! exact length.

use memchr::{memchr2, memchr3};

use super::lines::{at, marker, next_line_start, spaces, trim_end};

/// What goes before a piece of a multi-line scalar.
#[derive(Clone, Copy, Debug)]
pub(super) enum Sep {
    /// One space (a folded line break).
    Space,
    /// This many line feeds (zero for the first piece).
    Breaks(usize),
}

/// A slice of the input and what precedes it in the value.
#[derive(Clone, Copy, Debug)]
pub(super) struct Piece {
    pub(super) sep: Sep,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The pieces joined, then `suffix` line feeds, in one allocation.
pub(super) fn join(text: &str, pieces: &[Piece], suffix: usize) -> String {
    let sep_len = |sep: Sep| match sep {
        Sep::Space => 1,
        Sep::Breaks(n) => n,
    };
    let len = pieces
        .iter()
        .map(|p| sep_len(p.sep) + p.end - p.start)
        .sum::<usize>()
        + suffix;
    let mut out = String::with_capacity(len);
    for piece in pieces {
        match piece.sep {
            Sep::Space => out.push(' '),
            Sep::Breaks(n) => push_breaks(&mut out, n),
        }
        out.push_str(&text[piece.start..piece.end]);
    }
    push_breaks(&mut out, suffix);
    out
}

fn push_breaks(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push('\n');
    }
}

/// How the first line of a plain scalar ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Stop {
    /// At a `:` followed by a space or a line break: the scalar is a key.
    Key(usize),
    /// At a `#` after a blank: a comment follows.
    Comment(usize),
    /// At the line's end (`\n` or the input's end).
    Eol(usize),
}

/// Scans one line of a plain scalar in block context from `p` (its first
/// character): where its text ends (trailing blanks dropped) and why.
/// `None` for `:` followed by a tab.
pub(super) fn plain_line(b: &[u8], p: usize) -> Option<(usize, Stop)> {
    let mut i = p;
    loop {
        let Some(k) = memchr3(b':', b'#', b'\n', &b[i..]) else {
            return Some((trim_end(b, p, b.len()), Stop::Eol(b.len())));
        };
        let j = i + k;
        match b[j] {
            b'\n' => return Some((trim_end(b, p, j), Stop::Eol(j))),
            b':' => match at(b, j + 1) {
                b' ' | b'\n' | 0 => return Some((trim_end(b, p, j), Stop::Key(j))),
                b'\t' => return None,
                _ => {}
            },
            _ => {
                if j > p && matches!(b[j - 1], b' ' | b'\t') {
                    return Some((trim_end(b, p, j), Stop::Comment(j)));
                }
            }
        }
        i = j + 1;
    }
}

/// The continuation lines of a plain scalar whose first line is `p..end` and
/// ended at the line break `eol`, inside a block collection indented `n`.
/// Fills `pieces` (first line included) and returns where reading resumes: the
/// start of the line after the last one used. `None` when a continuation line
/// holds a key indicator, starts with a tab, or sits at column 0.
pub(super) fn plain_lines(
    b: &[u8],
    p: usize,
    end: usize,
    eol: usize,
    n: isize,
    pieces: &mut Vec<Piece>,
) -> Option<usize> {
    pieces.clear();
    pieces.push(Piece {
        sep: Sep::Breaks(0),
        start: p,
        end,
    });
    if eol >= b.len() {
        return Some(b.len());
    }
    let mut next = eol + 1;
    let mut pos = next;
    let mut breaks = 0;
    loop {
        let s = spaces(b, pos);
        let c = at(b, pos + s);
        match c {
            b'\n' => {
                breaks += 1;
                pos += s + 1;
                continue;
            }
            0 => break,
            b'\t' => return None,
            _ => {}
        }
        // Less indented, or a comment line: the scalar ended on an earlier line.
        if s as isize <= n || c == b'#' {
            break;
        }
        if s == 0 {
            // A root scalar continues at column 0, unless a document marker comes.
            return if marker(b, pos)?.is_some() {
                Some(next)
            } else {
                None
            };
        }
        let q = pos + s;
        let (e, stop) = plain_line(b, q)?;
        pieces.push(Piece {
            sep: if breaks == 0 {
                Sep::Space
            } else {
                Sep::Breaks(breaks)
            },
            start: q,
            end: e,
        });
        breaks = 0;
        match stop {
            Stop::Key(_) => return None,
            Stop::Comment(hash) => return Some(next_line_start(b, hash)),
            Stop::Eol(l) if l >= b.len() => return Some(b.len()),
            Stop::Eol(l) => {
                next = l + 1;
                pos = next;
            }
        }
    }
    Some(next)
}

/// A quoted scalar starting at `p` (its quote) inside a block collection indented
/// `n`: its value, the position after the closing quote, and whether it spans
/// lines. `None` when unclosed, on a bad escape, or when a continuation line is not
/// indented past `n` (or starts with a tab, or sits at column 0).
pub(super) fn quoted(text: &str, p: usize, n: isize) -> Option<(String, usize, bool)> {
    let b = text.as_bytes();
    let single = b[p] == b'\'';
    let mut out = String::new();
    let mut multiline = false;
    let mut seg = p + 1;
    let mut i = seg;
    loop {
        let rest = &b[i..];
        let k = if single {
            memchr2(b'\'', b'\n', rest)
        } else {
            memchr3(b'"', b'\\', b'\n', rest)
        }?;
        let j = i + k;
        match b[j] {
            b'\'' if at(b, j + 1) == b'\'' => {
                out.push_str(&text[seg..=j]);
                i = j + 2;
                seg = i;
            }
            b'\'' | b'"' => {
                if out.is_empty() {
                    // Nothing folded or escaped: one copy of the slice.
                    return Some((text[seg..j].to_owned(), j + 1, multiline));
                }
                out.push_str(&text[seg..j]);
                return Some((out, j + 1, multiline));
            }
            b'\\' if at(b, j + 1) == b'\n' => {
                // An escaped line break: blanks before it stay, the break goes.
                out.push_str(&text[seg..j]);
                let (resume, breaks) = continuation(b, j + 2, n)?;
                push_breaks(&mut out, breaks);
                multiline = true;
                i = resume;
                seg = i;
            }
            b'\\' => {
                out.push_str(&text[seg..j]);
                let (ch, len) = escape(b, j)?;
                out.push(ch);
                i = j + len;
                seg = i;
            }
            _ => {
                // A line break folds: trailing blanks go, then a space or the empty lines.
                out.push_str(&text[seg..trim_end(b, seg, j)]);
                let (resume, breaks) = continuation(b, j + 1, n)?;
                if breaks == 0 {
                    out.push(' ');
                } else {
                    push_breaks(&mut out, breaks);
                }
                multiline = true;
                i = resume;
                seg = i;
            }
        }
    }
}

/// From the start of the line after a break inside a quoted scalar: where the text
/// resumes and how many empty lines came before it.
fn continuation(b: &[u8], mut pos: usize, n: isize) -> Option<(usize, usize)> {
    let mut breaks = 0;
    loop {
        let s = spaces(b, pos);
        match at(b, pos + s) {
            b'\n' => {
                breaks += 1;
                pos += s + 1;
            }
            0 | b'\t' => return None,
            _ if s == 0 || s as isize <= n => return None,
            _ => return Some((pos + s, breaks)),
        }
    }
}

/// The character a double-quoted escape at `j` (the backslash) stands for, and the
/// escape's length in bytes.
fn escape(b: &[u8], j: usize) -> Option<(char, usize)> {
    let ch = match at(b, j + 1) {
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\x0b',
        b'f' => '\x0c',
        b'r' => '\r',
        b'e' => '\x1b',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex(b, j, 2),
        b'u' => return hex(b, j, 4),
        b'U' => return hex(b, j, 8),
        _ => return None,
    };
    Some((ch, 2))
}

/// `\x`, `\u`, `\U` with `digits` hex digits. Surrogates (which YAML parsers pair
/// up or reject) are left to the full parser.
fn hex(b: &[u8], j: usize, digits: usize) -> Option<(char, usize)> {
    let code = b.get(j + 2..j + 2 + digits)?;
    let mut value = 0u32;
    for &d in code {
        value = value * 16 + char::from(d).to_digit(16)?;
    }
    if (0xd800..=0xdfff).contains(&value) {
        return None;
    }
    Some((char::from_u32(value)?, 2 + digits))
}
