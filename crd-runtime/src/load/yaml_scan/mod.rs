//! YAML → `serde_json::Value` for the plain YAML manifests are written in, read
//! straight from the text in one pass.
//!
//! Covers block mappings and sequences (compact `- key: v` entries, sequences at
//! their key's indentation), `---`/`...`, comments, plain scalars over several lines,
//! single- and double-quoted scalars, literal and folded block scalars, and flow
//! collections on one line. Plain scalars resolve as in `plain` (so as
//! serde-saphyr resolves them).
//!
//! [`parse`] returns `None` for anything else — anchors, aliases, tags, directives,
//! merge and complex keys, keys that are not strings, duplicate keys, tabs outside
//! scalar text, errors, budgets — and whenever a construct has an edge the
//! reference parser treats in its own way. The caller then tries the next reader,
//! so a refusal costs time, never a different result.
//!
//! Collections are built on an explicit stack: deep nesting needs no deep stack.

mod block;
mod flow;
mod lines;
pub(super) mod plain;
mod scalars;
mod sink;

use std::borrow::Cow;

use memchr::memchr;
use serde_json::Value;

use super::MAX_DEPTH;
use lines::{Line, at, next_content, next_line_start, separated, spaces};
use plain::{MAX_DOCUMENTS, MAX_EVENTS, MAX_INPUT_BYTES, MAX_SCALAR_BYTES, Plain, resolve_plain};
use scalars::{Piece, Stop};
pub(crate) use sink::{Event, Tape};
use sink::{Sink, Tapes, Values};

/// Longest key in bytes. The reference parser gives up on implicit keys more than
/// 1024 characters long; bytes never undercount characters.
const MAX_KEY_BYTES: usize = 1000;

/// Every non-empty document of `text` as a JSON value, or `None` when the input is
/// not in the subset this reader handles (see the module docs).
pub(crate) fn parse(text: &str) -> Option<Vec<Value>> {
    if text.len() > MAX_INPUT_BYTES {
        return None;
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalized;
    let text = if memchr(b'\r', text.as_bytes()).is_some() {
        // CRLF is one line break everywhere; a lone CR is left to the full parser
        // (`printable` refuses the ones left over).
        normalized = text.replace("\r\n", "\n");
        normalized.as_str()
    } else {
        text
    };
    if !lines::printable(text) {
        return None;
    }
    Some(Reader::new(text, Values::default()).stream()?.docs)
}

/// Every non-empty document of `text` as a [`Tape`] of events, or `None` where
/// [`parse`] would give `None`, and for text with a carriage return (keys borrow
/// from the text, which would need normalizing first). The tapes hold the values
/// [`parse`] gives: the same documents, keys and scalars, keys in text order.
pub(crate) fn parse_tapes(text: &str) -> Option<Vec<Tape<'_>>> {
    if text.len() > MAX_INPUT_BYTES || memchr(b'\r', text.as_bytes()).is_some() {
        return None;
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !lines::printable(text) {
        return None;
    }
    Some(Reader::new(text, Tapes::default()).stream()?.docs)
}

/// Counts against the budgets of `plain`.
#[derive(Default)]
pub(super) struct Budget {
    events: usize,
    scalar_bytes: usize,
}

impl Budget {
    fn scalar(&mut self, len: usize) -> Option<()> {
        self.events += 1;
        self.scalar_bytes += len;
        (self.events <= MAX_EVENTS && self.scalar_bytes <= MAX_SCALAR_BYTES).then_some(())
    }

    fn collection(&mut self) -> Option<()> {
        self.events += 2;
        (self.events <= MAX_EVENTS).then_some(())
    }
}

/// A plain scalar in a key position: its text when it resolves to a string.
fn key_text(s: &str) -> Option<&str> {
    matches!(resolve_plain(s)?, Plain::Str).then_some(s)
}

/// A plain scalar in a value position.
fn plain_value(s: &str) -> Option<Value> {
    Some(match resolve_plain(s)? {
        Plain::Null => Value::Null,
        Plain::Value(v) => v,
        Plain::Str => Value::String(s.to_owned()),
    })
}

/// An open block collection (its contents go to the sink).
#[derive(Clone, Copy)]
enum Frame {
    Map {
        indent: usize,
        /// Whether a key is waiting for its value.
        pending: bool,
    },
    Seq {
        indent: usize,
    },
}

/// What may start where a node is expected.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Any node: a block collection may start here (line start, after `- `).
    Block,
    /// After `key:` or `---` on the same line: scalars and flow collections only.
    Inline,
    /// A further key of the mapping on top of the stack.
    Key,
}

/// Where the reader stands inside a document.
#[derive(Clone, Copy)]
enum At {
    /// A node starts at `p` (not a space), inside a block collection indented `n`
    /// (-1 at the root).
    Node { p: usize, n: isize, mode: Mode },
    /// After `key:`; the mapping is on top of the stack, indented `m`.
    Value { p: usize, m: usize },
    /// After `-`; the sequence is on top of the stack, indented `s`.
    Item { p: usize, s: usize },
    /// After `---`.
    Root { p: usize },
}

enum Step {
    Next(At),
    /// A node was read and added; reading resumes at `Reader::pos`.
    Done,
}

struct Reader<'a, S> {
    text: &'a str,
    b: &'a [u8],
    /// Start of the line being read: columns are offsets from it (only spaces and
    /// `-` come before a collection's first key or item).
    line: usize,
    /// Where reading resumes after a node: a line start.
    pos: usize,
    stack: Vec<Frame>,
    sink: S,
    /// Scratch space for multi-line scalars.
    pieces: Vec<Piece>,
    budget: Budget,
}

impl<'a, S: Sink<'a>> Reader<'a, S> {
    fn new(text: &'a str, sink: S) -> Self {
        Reader {
            text,
            b: text.as_bytes(),
            line: 0,
            pos: 0,
            stack: Vec::new(),
            sink,
            pieces: Vec::new(),
            budget: Budget::default(),
        }
    }

    fn stream(mut self) -> Option<S> {
        let mut documents = 0;
        loop {
            let first = match next_content(self.b, self.pos)? {
                Line::Eof => return Some(self.sink),
                Line::DocEnd(start) => {
                    self.pos = self.after_document_end(start)?;
                    continue;
                }
                Line::DocStart(start) => {
                    self.line = start;
                    At::Root { p: start + 3 }
                }
                Line::Content { start, at } => {
                    self.line = start;
                    At::Node {
                        p: at,
                        n: -1,
                        mode: Mode::Block,
                    }
                }
            };
            documents += 1;
            if documents > MAX_DOCUMENTS {
                return None;
            }
            self.budget.collection()?;
            self.run(first)?;
            self.pos = match self.entries()? {
                Line::DocEnd(start) => self.after_document_end(start)?,
                other => other.start(self.b.len()),
            };
        }
    }

    /// After a `...` line: only a comment may follow on it.
    fn after_document_end(&self, start: usize) -> Option<usize> {
        let i = start + 3;
        let j = i + spaces(self.b, i);
        match at(self.b, j) {
            b'\n' | 0 => Some(next_line_start(self.b, j)),
            b'#' if j > i => Some(next_line_start(self.b, j)),
            _ => None,
        }
    }

    /// Reads the lines after a node: further keys and items of the open
    /// collections, closing them as the indentation goes back. Returns the line
    /// that ends the document (a marker or the end of input).
    fn entries(&mut self) -> Option<Line> {
        loop {
            let line = next_content(self.b, self.pos)?;
            let Line::Content { start, at: p } = line else {
                while !self.stack.is_empty() {
                    self.pop()?;
                }
                return Some(line);
            };
            let col = p - start;
            loop {
                let (indent, seq) = match *self.stack.last()? {
                    Frame::Map { indent, .. } => (indent, false),
                    Frame::Seq { indent } => (indent, true),
                };
                if col > indent {
                    return None;
                }
                if col == indent {
                    if !seq {
                        self.line = start;
                        self.run(At::Node {
                            p,
                            n: col as isize,
                            mode: Mode::Key,
                        })?;
                        break;
                    }
                    if self.b[p] == b'-' && separated(self.b, p + 1)? {
                        self.line = start;
                        self.run(At::Item { p: p + 1, s: col })?;
                        break;
                    }
                }
                // Less indented (or a sequence at its mapping's indentation ends).
                self.pop()?;
            }
        }
    }

    /// Reads one node (with the nodes it opens on its line) from `at`.
    fn run(&mut self, mut at: At) -> Option<()> {
        loop {
            let step = match at {
                At::Node { p, n, mode } => self.node(p, n, mode)?,
                At::Value { p, m } => self.after_indicator(p, m as isize, Mode::Inline, true)?,
                At::Item { p, s } => self.after_indicator(p, s as isize, Mode::Block, false)?,
                At::Root { p } => self.after_indicator(p, -1, Mode::Inline, false)?,
            };
            match step {
                Step::Next(next) => at = next,
                Step::Done => return Some(()),
            }
        }
    }

    /// After `key:`, `-` or `---` at `p`: the node on the same line, or on a later
    /// line more indented than `n`, or (after a key) a sequence at the key's
    /// indentation, or null.
    fn after_indicator(&mut self, p: usize, n: isize, mode: Mode, key: bool) -> Option<Step> {
        let b = self.b;
        let q = p + spaces(b, p);
        match at(b, q) {
            b'\t' => None,
            b'\n' | b'#' | 0 => {
                let line = next_content(b, next_line_start(b, q))?;
                if let Line::Content { start, at: c } = line {
                    let col = (c - start) as isize;
                    if col > n {
                        self.line = start;
                        return Some(Step::Next(At::Node {
                            p: c,
                            n,
                            mode: Mode::Block,
                        }));
                    }
                    if key && col == n && b[c] == b'-' && separated(b, c + 1)? {
                        self.line = start;
                        self.push(Frame::Seq {
                            indent: col as usize,
                        })?;
                        self.sink.open_seq()?;
                        return Some(Step::Next(At::Item {
                            p: c + 1,
                            s: col as usize,
                        }));
                    }
                }
                self.pos = line.start(b.len());
                self.attach(Value::Null)?;
                Some(Step::Done)
            }
            _ => Some(Step::Next(At::Node { p: q, n, mode })),
        }
    }

    /// The node starting at `p` (not a space).
    fn node(&mut self, p: usize, n: isize, mode: Mode) -> Option<Step> {
        let b = self.b;
        match b[p] {
            b'-' if separated(b, p + 1)? => {
                if mode != Mode::Block {
                    return None;
                }
                let indent = p - self.line;
                self.push(Frame::Seq { indent })?;
                self.sink.open_seq()?;
                Some(Step::Next(At::Item {
                    p: p + 1,
                    s: indent,
                }))
            }
            b'"' | b'\'' => {
                let (s, end, multiline) = scalars::quoted(self.text, p, n)?;
                let q = end + spaces(b, end);
                if at(b, q) == b':' && separated(b, q + 1)? {
                    if multiline {
                        return None;
                    }
                    return self.key(p, q, Cow::Owned(s), mode);
                }
                if mode == Mode::Key {
                    return None;
                }
                self.end_of_line(end)?;
                self.budget.scalar(s.len())?;
                self.attach(Value::String(s))?;
                Some(Step::Done)
            }
            b'|' | b'>' if mode != Mode::Key => {
                let (s, next) = block::block_scalar(self.text, p, n, &mut self.pieces)?;
                self.pos = next;
                self.budget.scalar(s.len())?;
                self.attach(Value::String(s))?;
                Some(Step::Done)
            }
            b'[' | b'{' if mode != Mode::Key => {
                let (value, end) = flow::flow(self.text, p, self.stack.len(), &mut self.budget)?;
                self.end_of_line(end)?;
                self.attach(value)?;
                Some(Step::Done)
            }
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'%' | b'@' | b'`' | b'\t' => None,
            _ => self.plain(p, n, mode),
        }
    }

    /// A plain scalar at `p`: a key, or a value over one or more lines.
    fn plain(&mut self, p: usize, n: isize, mode: Mode) -> Option<Step> {
        let (end, stop) = scalars::plain_line(self.b, p)?;
        let text = self.text;
        let value = match stop {
            Stop::Key(colon) => {
                let key = key_text(&text[p..end])?;
                return self.key(p, colon, Cow::Borrowed(key), mode);
            }
            _ if mode == Mode::Key => return None,
            Stop::Comment(hash) => {
                self.pos = next_line_start(self.b, hash);
                self.budget.scalar(end - p)?;
                plain_value(&text[p..end])?
            }
            Stop::Eol(eol) => {
                self.pos = scalars::plain_lines(self.b, p, end, eol, n, &mut self.pieces)?;
                if let [only] = self.pieces[..] {
                    self.budget.scalar(only.end - p)?;
                    plain_value(&text[p..only.end])?
                } else {
                    let s = scalars::join(text, &self.pieces, 0);
                    self.budget.scalar(s.len())?;
                    match resolve_plain(&s)? {
                        Plain::Null => Value::Null,
                        Plain::Value(v) => v,
                        Plain::Str => Value::String(s),
                    }
                }
            }
        };
        self.attach(value)?;
        Some(Step::Done)
    }

    /// A key starting at `start` whose `:` is at `colon`: opens a mapping (or adds
    /// to the one on top of the stack in `Key` mode).
    fn key(&mut self, start: usize, colon: usize, key: Cow<'a, str>, mode: Mode) -> Option<Step> {
        if colon - start > MAX_KEY_BYTES || key == "<<" {
            return None;
        }
        self.budget.scalar(key.len())?;
        let indent = start - self.line;
        match mode {
            Mode::Inline => return None,
            Mode::Block => {
                self.push(Frame::Map {
                    indent,
                    pending: true,
                })?;
                self.sink.open_map(key)?;
            }
            Mode::Key => match self.stack.last_mut() {
                Some(Frame::Map { pending, .. }) if !*pending => {
                    *pending = true;
                    self.sink.key(key)?;
                }
                _ => return None,
            },
        }
        Some(Step::Next(At::Value {
            p: colon + 1,
            m: indent,
        }))
    }

    /// After a quoted scalar or flow collection ending at `end`: spaces, then the
    /// line's end or a comment. Sets where reading resumes.
    fn end_of_line(&mut self, end: usize) -> Option<()> {
        let q = end + spaces(self.b, end);
        match at(self.b, q) {
            b'\n' | 0 => {}
            b'#' if q > end => {}
            _ => return None,
        }
        self.pos = next_line_start(self.b, q);
        Some(())
    }

    fn push(&mut self, frame: Frame) -> Option<()> {
        if self.stack.len() >= MAX_DEPTH {
            return None;
        }
        self.budget.collection()?;
        self.stack.push(frame);
        Some(())
    }

    /// Closes the collection on top of the stack; it is a node of its parent.
    fn pop(&mut self) -> Option<()> {
        if let Frame::Map { pending: true, .. } = self.stack.pop()? {
            return None;
        }
        self.completes_a_node()?;
        self.sink.close()
    }

    /// Adds a finished scalar or flow node to the collection on top of the stack, or
    /// makes it the document. A null document (only a plain null scalar can be one)
    /// is skipped (by the sink).
    fn attach(&mut self, value: Value) -> Option<()> {
        self.completes_a_node()?;
        self.sink.value(value)
    }

    /// A node of the collection on top of the stack is complete: in a mapping, the
    /// value of the waiting key.
    fn completes_a_node(&mut self) -> Option<()> {
        if let Some(Frame::Map { pending, .. }) = self.stack.last_mut() {
            if !*pending {
                return None;
            }
            *pending = false;
        }
        Some(())
    }
}
