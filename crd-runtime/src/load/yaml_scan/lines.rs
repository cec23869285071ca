//! Byte-level reading: which characters the input may hold, spaces, lines and
//! document markers.
//!
//! Every position handed around is a byte offset into the (validated) input. The
//! input holds no NUL byte, so [`at`] returns 0 for "past the end".

use memchr::memchr;

/// Byte at `i`, or 0 past the end.
#[inline]
pub(super) fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// Number of spaces starting at `i`.
#[inline]
pub(super) fn spaces(b: &[u8], i: usize) -> usize {
    spaces_upto(b, i, usize::MAX)
}

/// Number of spaces starting at `i`, counting at most `limit`.
#[inline]
pub(super) fn spaces_upto(b: &[u8], i: usize, limit: usize) -> usize {
    let end = b.len().min(i.saturating_add(limit));
    let mut j = i;
    // Manifests indent deeply: compare eight bytes at a time.
    while j + 8 <= end && b[j..j + 8] == *b"        " {
        j += 8;
    }
    while j < end && b[j] == b' ' {
        j += 1;
    }
    j - i
}

/// Position of the `\n` ending the line that holds `i`, or the input's length.
#[inline]
pub(super) fn line_end(b: &[u8], i: usize) -> usize {
    match b.get(i..).and_then(|rest| memchr(b'\n', rest)) {
        Some(k) => i + k,
        None => b.len(),
    }
}

/// Start of the line after the one holding `i` (the input's length on the last line).
#[inline]
pub(super) fn next_line_start(b: &[u8], i: usize) -> usize {
    let end = line_end(b, i);
    if end < b.len() { end + 1 } else { end }
}

/// Drops the blanks (spaces, tabs) before `end`, not going below `start`.
#[inline]
pub(super) fn trim_end(b: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && matches!(b[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    end
}

/// Whether an indicator (`-`, `:`, `---`) followed by the byte at `i` stands alone:
/// `Some(true)` before a space, a line break or the end, `Some(false)` before
/// anything else. A tab would separate it too, but tabs are left to the full parser.
#[inline]
pub(super) fn separated(b: &[u8], i: usize) -> Option<bool> {
    match at(b, i) {
        b' ' | b'\n' | 0 => Some(true),
        b'\t' => None,
        _ => Some(false),
    }
}

/// The next line that is not blank or a comment, from `pos` (a line start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Line {
    /// Content: the line's start and its first non-space byte (`at - start` is
    /// its column).
    Content { start: usize, at: usize },
    /// A `---` line starting at this offset.
    DocStart(usize),
    /// A `...` line starting at this offset.
    DocEnd(usize),
    /// End of input.
    Eof,
}

impl Line {
    /// Where reading resumes to see this line again.
    pub(super) fn start(self, len: usize) -> usize {
        match self {
            Line::Content { start, .. } | Line::DocStart(start) | Line::DocEnd(start) => start,
            Line::Eof => len,
        }
    }
}

/// Skips blank and comment lines from `pos`. `None` for a tab in the indentation
/// (an error or a subtle case for YAML) and for a `%` directive.
pub(super) fn next_content(b: &[u8], mut pos: usize) -> Option<Line> {
    loop {
        if pos >= b.len() {
            return Some(Line::Eof);
        }
        let s = spaces(b, pos);
        let i = pos + s;
        match at(b, i) {
            b'\n' => pos = i + 1,
            0 => return Some(Line::Eof),
            b'#' => pos = next_line_start(b, i),
            b'\t' => return None,
            b'%' if s == 0 => return None,
            b'-' | b'.' if s == 0 => {
                return Some(match marker(b, pos)? {
                    Some(true) => Line::DocStart(pos),
                    Some(false) => Line::DocEnd(pos),
                    None => Line::Content { start: pos, at: i },
                });
            }
            _ => return Some(Line::Content { start: pos, at: i }),
        }
    }
}

/// At a line start: `Some(Some(true))` for `---`, `Some(Some(false))` for `...`,
/// `Some(None)` for anything else; `None` when a tab follows the marker.
#[inline]
pub(super) fn marker(b: &[u8], pos: usize) -> Option<Option<bool>> {
    let three = b.get(pos..pos + 3);
    let start = three == Some(b"---");
    if !start && three != Some(b"...") {
        return Some(None);
    }
    Some(separated(b, pos + 3)?.then_some(start))
}

/// Whether every character may appear in a YAML stream that this parser reads: no
/// control characters but tab and line feed (a carriage return left after CRLF
/// normalisation is a lone one), no DEL, no C1 controls but NEL, no byte order
/// mark (the leading one is stripped before), no U+FFFE/U+FFFF. YAML rejects the
/// others; byte order marks inside a stream have their own rules.
pub(super) fn printable(text: &str) -> bool {
    let b = text.as_bytes();
    const CHUNK: usize = 32;
    let mut base = 0;
    while base < b.len() {
        let end = b.len().min(base + CHUNK);
        // Branch-free over the chunk so it vectorises; most chunks are plain ASCII.
        let odd = b[base..end].iter().fold(false, |acc, &c| {
            acc | ((c < 0x20) & (c != b'\t') & (c != b'\n')) | (c >= 0x7f)
        });
        if odd && !chunk_printable(text, base, end) {
            return false;
        }
        base = end;
    }
    true
}

/// The exact check for one chunk holding a control or non-ASCII byte.
fn chunk_printable(text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    (start..end).all(|i| match b[i] {
        c if c < 0x80 => (c >= 0x20 && c != 0x7f) || c == b'\t' || c == b'\n',
        // Continuation bytes were checked with their character's first byte.
        c if c & 0xc0 == 0x80 => true,
        _ => text[i..].chars().next().is_some_and(|ch| {
            matches!(ch as u32, 0x85 | 0xa0..=0xd7ff | 0xe000..=0xfefe | 0xff00..=0xfffd | 0x1_0000..)
        }),
    })
}
