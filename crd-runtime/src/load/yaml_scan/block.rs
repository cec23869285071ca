//! Literal (`|`) and folded (`>`) block scalars.
//!
//! Follows the YAML 1.2 rules as the reference parser applies them: the
//! indentation comes from the indicator or from the first non-empty line (at
//! least one more than the enclosing collection), more-indented lines of a folded
//! scalar keep their breaks, and chomping decides the final breaks. Content lines
//! are cut into pieces and copied once.

use super::lines::{at, line_end, next_line_start, spaces, spaces_upto};
use super::scalars::{Piece, Sep, join};

#[derive(Clone, Copy, PartialEq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A line inside a block scalar's reach.
enum Row {
    /// Only spaces (at most the indentation): an empty line; the next line's start.
    Empty(usize),
    /// Content starting at this offset (just past the indentation).
    Content(usize),
    /// Less indented, or the end of input: the scalar is over.
    End,
}

/// Classifies the line starting at `pos` against `indent`. `None` for a tab where
/// indentation spaces are expected.
fn row(b: &[u8], pos: usize, indent: usize) -> Option<Row> {
    let s = spaces_upto(b, pos, indent);
    match at(b, pos + s) {
        b'\n' => Some(Row::Empty(pos + s + 1)),
        0 => Some(Row::End),
        b'\t' if s < indent => None,
        _ if s < indent => Some(Row::End),
        _ => Some(Row::Content(pos + s)),
    }
}

/// The block scalar whose header (`|` or `>`) is at `p`, inside a block collection
/// indented `n` (-1 at the root). Returns its value and where reading resumes.
/// `None` for anything this reader leaves to the full parser: a bad header, a tab
/// in the indentation, under-indented content, no content before the end of input,
/// or content at column 0.
pub(super) fn block_scalar(
    text: &str,
    p: usize,
    n: isize,
    pieces: &mut Vec<Piece>,
) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let literal = b[p] == b'|';
    let (chomp, increment, header_end) = header(b, p + 1)?;
    let mut pos = next_line_start(b, header_end);
    if pos >= b.len() {
        return None;
    }
    let base = usize::try_from(n).unwrap_or(0);
    let mut breaks = 0;
    let indent = if increment > 0 {
        let indent = base + increment;
        while let Row::Empty(next) = row(b, pos, indent)? {
            breaks += 1;
            pos = next;
        }
        indent
    } else {
        // The widest of the leading blank lines and the first content line.
        let mut widest = 0;
        loop {
            let s = spaces(b, pos);
            widest = widest.max(s);
            match at(b, pos + s) {
                b'\n' => {
                    breaks += 1;
                    pos += s + 1;
                }
                0 | b'\t' => return None,
                _ => break,
            }
        }
        widest.max((n + 1) as usize)
    };
    if indent == 0 {
        return None;
    }
    let first = match row(b, pos, indent)? {
        Row::Content(at) => at,
        Row::End => {
            let s = spaces(b, pos);
            // Nothing but spaces up to the end of input: the reference parser has
            // special cases for that.
            if at(b, pos + s) == 0 {
                return None;
            }
            // Content less indented than the scalar: an error when it is still
            // inside the collection, else the scalar is empty.
            if s as isize > n {
                return None;
            }
            let value = if chomp == Chomp::Keep {
                "\n".repeat(breaks)
            } else {
                String::new()
            };
            return Some((value, pos));
        }
        Row::Empty(_) => unreachable!("leading empty lines were skipped"),
    };
    let (suffix, next) = content(b, literal, indent, first, breaks, pieces)?;
    let suffix = match chomp {
        Chomp::Strip => 0,
        Chomp::Clip => 1,
        Chomp::Keep => 1 + suffix,
    };
    Some((join(text, pieces, suffix), next))
}

/// The header's chomping indicator, explicit indentation (0 if none) and where the
/// header line ends (its `\n`).
fn header(b: &[u8], mut i: usize) -> Option<(Chomp, usize, usize)> {
    let chomp_at = |c: u8| match c {
        b'-' => Some(Chomp::Strip),
        b'+' => Some(Chomp::Keep),
        _ => None,
    };
    let digit_at = |c: u8| (b'1'..=b'9').contains(&c).then(|| usize::from(c - b'0'));
    let mut chomp = Chomp::Clip;
    let mut increment = 0;
    if let Some(c) = chomp_at(at(b, i)) {
        chomp = c;
        i += 1;
        if let Some(d) = digit_at(at(b, i)) {
            increment = d;
            i += 1;
        }
    } else if let Some(d) = digit_at(at(b, i)) {
        increment = d;
        i += 1;
        if let Some(c) = chomp_at(at(b, i)) {
            chomp = c;
            i += 1;
        }
    }
    let h = i + spaces(b, i);
    match at(b, h) {
        b'\n' => Some((chomp, increment, h)),
        // A comment needs a space before it.
        b'#' if h > i => Some((chomp, increment, line_end(b, h))),
        _ => None,
    }
}

/// Reads content lines from the first one (content at `first`), with `breaks`
/// empty lines before it. Fills `pieces`; returns the number of empty lines after
/// the last content line and where reading resumes.
fn content(
    b: &[u8],
    literal: bool,
    indent: usize,
    first: usize,
    breaks: usize,
    pieces: &mut Vec<Piece>,
) -> Option<(usize, usize)> {
    pieces.clear();
    let mut start = first;
    let mut breaks = breaks;
    // Whether a content line came before, and whether it started with a blank.
    let mut after_line = false;
    let mut blank_before = false;
    loop {
        let blank = matches!(b[start], b' ' | b'\t');
        // Folding joins two lines with a space, or drops the break before empty
        // lines; lines starting with a blank keep their breaks.
        let sep = if !literal && after_line && !blank_before && !blank {
            if breaks == 0 {
                Sep::Space
            } else {
                Sep::Breaks(breaks)
            }
        } else {
            Sep::Breaks(breaks + usize::from(after_line))
        };
        blank_before = blank;
        let end = line_end(b, start);
        pieces.push(Piece { sep, start, end });
        if end >= b.len() {
            return Some((0, b.len()));
        }
        after_line = true;
        breaks = 0;
        let mut pos = end + 1;
        loop {
            match row(b, pos, indent)? {
                Row::Empty(next) => {
                    breaks += 1;
                    pos = next;
                }
                Row::Content(at) => {
                    start = at;
                    break;
                }
                Row::End => return Some((breaks, pos)),
            }
        }
    }
}
