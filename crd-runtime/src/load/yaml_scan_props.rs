//! Property tests of the text reader against serde-saphyr: random documents in the
//! styles manifests use must be read, with serde-saphyr's values; random and
//! mutated texts may be refused, but never read differently.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::Value;

use super::yaml_scan::plain::{Plain, resolve_plain};
use super::yaml_scan_tests::saphyr;
use super::{tape, yaml_scan};

/// Whatever the reader returns must be what serde-saphyr returns; its tapes must
/// hold the same values.
fn consistent(text: &str) -> Result<(), TestCaseError> {
    match yaml_scan::parse(text) {
        Some(scanned) => {
            tapes_agree(text, &scanned)?;
            prop_assert_eq!(Ok(scanned), saphyr(text), "{:?}", text);
        }
        None => prop_assert!(yaml_scan::parse_tapes(text).is_none(), "{:?}", text),
    }
    Ok(())
}

/// The text's tapes, deserialized as values, are the reader's values (the tapes
/// are only refused where the text has a carriage return).
fn tapes_agree(text: &str, scanned: &[Value]) -> Result<(), TestCaseError> {
    let Some(tapes) = yaml_scan::parse_tapes(text) else {
        prop_assert!(text.contains('\r'), "tapes refused {:?}", text);
        return Ok(());
    };
    let values: Option<Vec<Value>> = tapes
        .into_iter()
        .map(|t| tape::from_events(t.events))
        .collect();
    prop_assert_eq!(values.as_deref(), Some(scanned), "{:?}", text);
    Ok(())
}

/// How a scalar is written.
#[derive(Debug, Clone, Copy)]
enum Style {
    Plain,
    /// Plain, one word per line or so, with an empty line now and then.
    PlainLines,
    Single,
    /// Double-quoted, folded over lines when `true`.
    Double(bool),
    /// Literal (`|`) or folded (`>`), with a chomping indicator (0 none, 1 `-`,
    /// 2 `+`) and an explicit indentation indicator.
    Block {
        literal: bool,
        chomp: u8,
        explicit: bool,
    },
}

#[derive(Debug, Clone)]
enum Node {
    Scalar(String, Style),
    Seq(Vec<Node>, bool),
    /// Entries and whether the collection is written in flow style.
    Map(Vec<(String, bool, Node)>, bool),
}

/// Words as manifests have them, some with characters that matter to YAML inside.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-zA-Z][a-zA-Z0-9]{0,7}",
        1 => "[a-z]{1,3}(:[a-z0-9]{1,3}|#[a-z]|/[a-z]{1,4}|\\.[a-z]{1,3}|-[a-z]{1,3}|_[a-z])",
        1 => "(-?[0-9]{1,4}|0x1F|1\\.5|1e3|~|null|true|yes|Off|N|v1|1Gi|\\*|a'b|a\"b|é|😀)",
    ]
}

/// Free text for quoted and block scalars: words and special characters, with or
/// without spaces between them (so lines start with and without blanks).
fn text() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        6 => word(),
        1 => "(: |#|\t| {2,3}|\n|\n\n|'|\"|\\\\|-|\\[|\\]|\\{|\\}|,|&|\\*|!|%|\\?|\\||>)",
    ];
    prop::collection::vec((part, any::<bool>()), 0..12).prop_map(|parts| {
        let mut out = String::new();
        for (part, spaced) in parts {
            if spaced && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&part);
        }
        out
    })
}

fn scalar() -> impl Strategy<Value = Node> {
    let plain_text = || prop::collection::vec(word(), 1..8).prop_map(|w| w.join(" "));
    prop_oneof![
        4 => plain_text().prop_map(|t| Node::Scalar(t, Style::Plain)),
        2 => plain_text().prop_map(|t| Node::Scalar(t, Style::PlainLines)),
        1 => text().prop_map(|t| Node::Scalar(t, Style::Single)),
        2 => (text(), any::<bool>()).prop_map(|(t, fold)| Node::Scalar(t, Style::Double(fold))),
        3 => (text(), any::<bool>(), 0..3u8, any::<bool>()).prop_map(|(t, literal, chomp, explicit)| {
            Node::Scalar(t, Style::Block { literal, chomp, explicit })
        }),
    ]
}

fn key() -> impl Strategy<Value = (String, bool)> {
    prop_oneof![
        4 => "[a-zA-Z][a-zA-Z0-9_.-]{0,10}".prop_map(|k| (k, false)),
        1 => "[a-z :#'\"-]{0,8}".prop_map(|k| (k, true)),
    ]
}

fn node() -> impl Strategy<Value = Node> {
    scalar().prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..5), any::<bool>())
                .prop_map(|(items, flow)| Node::Seq(items, flow)),
            (prop::collection::vec((key(), inner), 0..5), any::<bool>()).prop_map(
                |(entries, flow)| {
                    let mut seen = std::collections::HashSet::new();
                    let entries = entries
                        .into_iter()
                        .filter(|((k, _), _)| seen.insert(k.clone()))
                        .map(|((k, quoted), v)| (k, quoted, v))
                        .collect();
                    Node::Map(entries, flow)
                }
            ),
        ]
    })
}

/// Writes documents in the block style, with the scalar styles asked for (or a
/// safe one where the asked style cannot hold the text), comments and empty lines.
struct Writer {
    out: String,
    /// Drives the choices that are not part of the node (comments, layout).
    dice: u64,
}

impl Writer {
    fn roll(&mut self, sides: u64) -> u64 {
        self.dice = self
            .dice
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.dice >> 33) % sides
    }

    fn pad(&mut self, n: usize) {
        self.out.extend(std::iter::repeat_n(' ', n));
    }

    /// An optional comment or empty line between entries.
    fn between(&mut self) {
        match self.roll(8) {
            0 => self.out.push('\n'),
            1 => {
                let n = self.roll(6) as usize;
                self.pad(n);
                self.out.push_str("# between entries: - [x] 'q'\n");
            }
            _ => {}
        }
    }

    fn line_end(&mut self) {
        if self.roll(6) == 0 {
            self.out.push_str(" # trailing: comment");
        }
        self.out.push('\n');
    }

    /// A node after `key:` or `-` on the same line; `n` is the enclosing
    /// collection's indentation, `col` the column right after the indicator.
    fn value(&mut self, node: &Node, n: usize, col: usize, after_dash: bool) {
        match node {
            Node::Scalar(text, style) => self.scalar(text, *style, n),
            Node::Seq(items, _) if items.is_empty() => self.flat(" []"),
            Node::Map(entries, _) if entries.is_empty() => self.flat(" {}"),
            Node::Seq(..) | Node::Map(..) if flow_ok(node) => {
                self.out.push(' ');
                flow(node, &mut self.out);
                self.line_end();
            }
            Node::Seq(items, _) if after_dash && self.roll(2) == 0 => {
                // Compact: `- - item`.
                self.out.push(' ');
                self.seq(items, col + 1, true);
            }
            Node::Map(entries, _) if after_dash && self.roll(3) != 0 => {
                self.out.push(' ');
                self.map(entries, col + 1, true);
            }
            Node::Seq(items, _) if !after_dash && self.roll(2) == 0 => {
                // A sequence at its key's indentation.
                self.line_end();
                self.seq(items, n, false);
            }
            Node::Seq(items, _) => {
                self.line_end();
                self.seq(items, n + 2, false);
            }
            Node::Map(entries, _) => {
                self.line_end();
                self.map(entries, n + 2, false);
            }
        }
    }

    fn flat(&mut self, s: &str) {
        self.out.push_str(s);
        self.line_end();
    }

    /// Items at indentation `s`; the first one's `-` is already placed when `inline`.
    fn seq(&mut self, items: &[Node], s: usize, inline: bool) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 || !inline {
                if i > 0 {
                    self.between();
                }
                self.pad(s);
            }
            self.out.push('-');
            self.value(item, s, s + 1, true);
        }
    }

    /// Entries at indentation `m`; the first key's column is already reached when
    /// `inline`.
    fn map(&mut self, entries: &[(String, bool, Node)], m: usize, inline: bool) {
        for (i, (key, quoted, value)) in entries.iter().enumerate() {
            if i > 0 || !inline {
                if i > 0 {
                    self.between();
                }
                self.pad(m);
            }
            write_key(key, *quoted, &mut self.out);
            self.out.push(':');
            let col = self.out.len() - self.out.rfind('\n').map_or(0, |p| p + 1);
            self.value(value, m, col, false);
        }
    }

    /// A scalar after an indicator, inside a collection indented `n`.
    fn scalar(&mut self, text: &str, style: Style, n: usize) {
        let plain_ok = plain_safe(text);
        match style {
            Style::Plain | Style::PlainLines if plain_ok => {
                let words: Vec<&str> = text.split(' ').collect();
                self.out.push(' ');
                for (i, w) in words.iter().enumerate() {
                    if i > 0 {
                        if matches!(style, Style::PlainLines) && self.roll(2) == 0 {
                            if self.roll(4) == 0 {
                                self.out.push('\n');
                            }
                            self.out.push('\n');
                            let extra = self.roll(3) as usize;
                            self.pad(n + 2 + extra);
                        } else {
                            self.out.push(' ');
                        }
                    }
                    self.out.push_str(w);
                }
                self.line_end();
            }
            Style::Single if !text.contains(['\n', '\t']) => {
                self.out.push_str(" '");
                for (i, w) in text.split(' ').enumerate() {
                    if i > 0 {
                        if self.roll(4) == 0 {
                            self.out.push('\n');
                            self.pad(n + 2);
                        } else {
                            self.out.push(' ');
                        }
                    }
                    self.out.push_str(&w.replace('\'', "''"));
                }
                self.out.push('\'');
                self.line_end();
            }
            Style::Block {
                literal,
                chomp,
                explicit,
            } if !text.is_empty() && !text.starts_with('\n') => {
                self.out.push_str(if literal { " |" } else { " >" });
                let explicit = explicit || text.starts_with([' ', '\t']);
                if explicit {
                    self.out.push('2');
                }
                self.out.push_str(["", "-", "+"][usize::from(chomp)]);
                self.out.push('\n');
                for line in text.split('\n') {
                    if !line.is_empty() {
                        self.pad(n + 2);
                        self.out.push_str(line);
                    }
                    self.out.push('\n');
                }
            }
            Style::Double(fold) | Style::Block { literal: fold, .. } => {
                self.out.push_str(" \"");
                for (i, ch) in text.chars().enumerate() {
                    match ch {
                        '"' => self.out.push_str("\\\""),
                        '\\' => self.out.push_str("\\\\"),
                        '\n' => self.out.push_str(["\\n", "\\x0a", "\\u000A"][i % 3]),
                        '\t' => self.out.push_str("\\t"),
                        'é' => self.out.push_str("\\u00e9"),
                        ' ' if fold && self.roll(3) == 0 => {
                            // A folded break, or an escaped one keeping the space.
                            if self.roll(2) == 0 {
                                self.out.push('\n');
                            } else {
                                self.out.push_str(" \\\n");
                            }
                            let extra = self.roll(3) as usize;
                            self.pad(n + 1 + extra);
                        }
                        c => self.out.push(c),
                    }
                }
                self.out.push('"');
                self.line_end();
            }
            _ => self.scalar(text, Style::Double(false), n),
        }
    }
}

/// Text a plain scalar can hold as it is: words without leading indicators, no
/// `: ` or ` #`, resolving to something serde-saphyr accepts.
fn plain_safe(text: &str) -> bool {
    !text.is_empty()
        && text.trim_matches(' ') == text
        && !text.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%',
            '@', '`',
        ])
        && !text.contains(": ")
        && !text.ends_with(':')
        && !text.contains(" #")
        && !text.contains(['\n', '\t'])
        && resolve_plain(text).is_some()
}

/// Text a plain scalar inside a flow collection can hold.
fn flow_plain_safe(text: &str) -> bool {
    plain_safe(text) && !text.contains([',', '[', ']', '{', '}', '#', ':', '"', '\''])
}

fn key_plain_safe(key: &str) -> bool {
    flow_plain_safe(key) && matches!(resolve_plain(key), Some(Plain::Str))
}

/// Small collections of one-line scalars are written in flow style when asked.
fn flow_ok(node: &Node) -> bool {
    match node {
        Node::Seq(items, true) => items.iter().all(flow_ok_inner),
        Node::Map(entries, true) => entries.iter().all(|(_, _, v)| flow_ok_inner(v)),
        _ => false,
    }
}

fn flow_ok_inner(node: &Node) -> bool {
    match node {
        Node::Scalar(text, _) => !text.contains('\n'),
        Node::Seq(items, _) => items.iter().all(flow_ok_inner),
        Node::Map(entries, _) => entries.iter().all(|(_, _, v)| flow_ok_inner(v)),
    }
}

fn write_key(key: &str, quoted: bool, out: &mut String) {
    if !quoted && key_plain_safe(key) {
        out.push_str(key);
    } else if key.contains('\'') || key.is_empty() {
        out.push('"');
        out.push_str(&key.replace('\\', "\\\\").replace('"', "\\\""));
        out.push('"');
    } else {
        out.push('\'');
        out.push_str(key);
        out.push('\'');
    }
}

fn flow(node: &Node, out: &mut String) {
    match node {
        Node::Scalar(text, _) if flow_plain_safe(text) => out.push_str(text),
        Node::Scalar(text, _) => {
            out.push('"');
            out.push_str(
                &text
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('\t', "\\t"),
            );
            out.push('"');
        }
        Node::Seq(items, _) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i > 0 { ", " } else { "" });
                flow(item, out);
            }
            out.push(']');
        }
        Node::Map(entries, _) => {
            out.push('{');
            for (i, (key, quoted, value)) in entries.iter().enumerate() {
                out.push_str(if i > 0 { ", " } else { "" });
                write_key(key, *quoted, out);
                out.push_str(": ");
                flow(value, out);
            }
            out.push('}');
        }
    }
}

/// A stream of documents: each a mapping under a key (so it never reads as JSON).
fn render(docs: &[Node], dice: u64) -> String {
    let mut w = Writer {
        out: String::new(),
        dice,
    };
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 || w.roll(2) == 0 {
            let marker = if w.roll(3) == 0 {
                "--- # next\n"
            } else {
                "---\n"
            };
            w.out.push_str(marker);
        }
        if w.roll(4) == 0 {
            w.out.push_str("# A manifest\n");
        }
        w.out.push_str("root:");
        w.value(doc, 0, 5, false);
        if w.roll(5) == 0 {
            w.out.push_str("...\n");
        }
    }
    w.out
}

fn documents() -> impl Strategy<Value = String> {
    (prop::collection::vec(node(), 1..3), any::<u64>()).prop_map(|(docs, dice)| render(&docs, dice))
}

/// Applies edits with YAML-significant characters at the given places.
fn mutate(text: &str, edits: &[(usize, u8, bool)]) -> String {
    const CHARS: &[u8] = b" \n\t:-#'\"|>[]{},&*!%?\\0a";
    let mut bytes = text.as_bytes().to_vec();
    for &(at, which, replace) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        let c = CHARS[usize::from(which) % CHARS.len()];
        if replace && bytes[at].is_ascii() {
            bytes[at] = c;
        } else if bytes[at].is_ascii() || bytes[at] >= 0xc0 {
            bytes.insert(at, c);
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// Short texts made of YAML's significant characters and a few words.
fn soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[:#'\" \n|>\\[\\]{},&*!%?\\-\t\\\\]",
        "(a|b|x|1|~|é| {2}|\n  |\n- |a: |- |--- |\\.\\.\\.|\\|-|>\\+|\\|2|#c|\\\\n|\\\\x4|''|\r\n)",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// Every document in manifest styles is read, with serde-saphyr's values.
    #[test]
    fn manifest_styles_are_read_like_serde_saphyr(text in documents()) {
        let reference = saphyr(&text);
        prop_assert!(reference.is_ok(), "the generator wrote invalid YAML: {:?}\n{}", reference, text);
        let scanned = yaml_scan::parse(&text);
        tapes_agree(&text, scanned.as_deref().unwrap_or_default())?;
        prop_assert_eq!(scanned.map(Ok), Some(reference), "{}", text);
    }

    #[test]
    fn mutated_documents_are_refused_or_read_alike(
        text in documents(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<bool>()), 1..4),
    ) {
        consistent(&mutate(&text, &edits))?;
    }

    #[test]
    fn character_soup_is_refused_or_read_alike(text in soup()) {
        consistent(&text)?;
        consistent(&format!("k: {text}"))?;
        consistent(&format!("- {text}\n- x"))?;
    }
}

/// The random texts above are read often enough for their checks to mean something.
#[test]
fn random_texts_are_often_read() {
    let mut runner = TestRunner::deterministic();
    let mutated = (documents(), any::<usize>(), any::<u8>())
        .prop_map(|(text, at, which)| mutate(&text, &[(at, which, false)]));
    let (mut read, mut souped) = (0, 0);
    for _ in 0..300 {
        let text = mutated.new_tree(&mut runner).unwrap().current();
        read += usize::from(yaml_scan::parse(&text).is_some());
        let text = soup().new_tree(&mut runner).unwrap().current();
        let docs = yaml_scan::parse(&format!("k: {text}"));
        souped += usize::from(docs.is_some_and(|d: Vec<Value>| !d.is_empty()));
    }
    assert!(
        read >= 100,
        "only {read} of 300 mutated documents were read"
    );
    assert!(souped >= 30, "only {souped} of 300 soups were read");
}
