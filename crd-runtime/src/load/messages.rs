//! Parser error messages in the project's words: positions are reported separately,
//! and no parser-internal (Rust `Debug`) text reaches users.

use super::MAX_DEPTH;
use crate::go::quote as go_quote;

pub(super) fn yaml_message(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or(msg);
    if let Some(breach) = first.strip_prefix("budget breached: ") {
        return budget_message(breach);
    }
    let first = first.find(" at line ").map_or(first, |i| &first[..i]);
    if first.contains("Depth") || first.contains("recursion limit") {
        return format!("document nests deeper than {MAX_DEPTH} levels");
    }
    if let Some(value) = first
        .strip_prefix("non-finite float `")
        .and_then(|rest| rest.strip_suffix("` rejected by the configured policy"))
    {
        return format!(
            "`{}` is not a finite number (too large, or .inf/.nan), which JSON cannot hold",
            shorten(value)
        );
    }
    if let Some(key) = first
        .strip_prefix("duplicate mapping key: ")
        .and_then(|rest| rest.strip_suffix(", set DuplicateKeyPolicy in Options if acceptable"))
    {
        // The parser's advice is for its API's callers, not for manifest authors.
        return format!("key {} already set in map", go_quote(&shorten(key)));
    }
    if first == "recursive references require weak recursion types" {
        return "an alias refers to a node that contains it: a recursive alias makes a cycle, which JSON cannot hold".to_string();
    }
    if first == "cannot deserialize tagged scalar into string" {
        return "this tagged value (such as !!timestamp) cannot be read as JSON: quote it as a plain string".to_string();
    }
    shorten_quoted(&char_escapes_as_code_points(first))
}

/// A conversion error (`invalid type: string "...", expected ...`) in the
/// project's words: serde quotes the offending string in full with Rust's `Debug`
/// escapes (`"type:\u{5cc}tring"`, found by the load_documents fuzz target); it is
/// quoted here as the API server quotes values (Go's `%q`), and shortened.
pub(super) fn field_message(msg: &str) -> String {
    const MARK: &str = "string \"";
    let mut out = String::with_capacity(msg.len().min(1024));
    let mut rest = msg;
    while let Some(at) = rest.find(MARK) {
        let start = at + MARK.len() - 1;
        out.push_str(&rest[..start]);
        match unescape_debug_str(&rest[start..]) {
            Some((text, used)) => {
                out.push_str(&go_quote(&shorten(&text)));
                rest = &rest[start + used..];
            }
            None => {
                out.push_str(&char_escapes_as_code_points(&rest[start..]));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Reads a string literal written by Rust's `Debug` (`s` starts at its opening
/// quote): the text and the bytes the literal took.
fn unescape_debug_str(s: &str) -> Option<(String, usize)> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let mut text = String::new();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((text, at + 1)),
            '\\' => text.push(match chars.next()?.1 {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                '0' => '\0',
                'u' => {
                    if chars.next()?.1 != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()?.1 {
                            '}' => break,
                            h => hex.push(h),
                        }
                    }
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
                }
                other => other,
            }),
            c => text.push(c),
        }
    }
    None
}

/// Rust's `\u{0}` escapes (the parser's way of naming a character) as `U+0000`.
fn char_escapes_as_code_points(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        match after
            .find('}')
            .map(|end| (end, u32::from_str_radix(&after[..end], 16)))
        {
            Some((end, Ok(code))) => {
                out.push_str(&format!("U+{code:04X}"));
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str("\\u{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Longest value quoted whole in a message; longer ones (a 5,000-digit number, a
/// 50 MB key) are cut, so an error stays one readable line.
const MAX_QUOTED: usize = 64;

/// `value`, or its first characters and its length when it is longer than
/// [`MAX_QUOTED`].
fn shorten(value: &str) -> String {
    let count = value.chars().count();
    if count <= MAX_QUOTED {
        return value.to_string();
    }
    let head: String = value.chars().take(MAX_QUOTED / 2).collect();
    format!("{head}... ({count} characters)")
}

/// Shortens every `` `quoted` `` value in a parser message.
fn shorten_quoted(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1024));
    let mut parts = msg.split('`');
    out.push_str(parts.next().unwrap_or(""));
    let mut quoted = true;
    for part in parts {
        out.push('`');
        out.push_str(&if quoted {
            shorten(part)
        } else {
            part.to_string()
        });
        quoted = !quoted;
    }
    out
}

/// The parser's budget breach (printed by it as Rust `Debug` text, e.g.
/// `RecordedAnchorEvents { recorded_anchor_events: 1000001 }`) in words.
fn budget_message(breach: &str) -> String {
    let name: String = breach
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let what = match name.as_str() {
        "Depth" => return format!("document nests deeper than {MAX_DEPTH} levels"),
        "RecordedAnchorEvents" | "AliasExpansion" | "Aliases" => {
            "aliases expand to too much data (an alias bomb?)"
        }
        "Anchors" => "too many anchors",
        "Events" | "Nodes" => "too many YAML nodes",
        "Documents" => "too many documents",
        "TotalScalarBytes" | "InputBytes" | "ReaderInputBytes" => "too much text",
        _ => "a size limit is exceeded",
    };
    format!("the YAML cannot be read safely: {what}")
}

#[cfg(test)]
mod tests {
    use crate::load::parse_documents;

    #[test]
    fn alias_bombs_are_reported_in_words() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (i, c) in "bcdefghi".chars().enumerate() {
            let prev = (b'a' + i as u8) as char;
            let refs = vec![format!("*{prev}"); 10].join(", ");
            text.push_str(&format!("{c}: &{c} [{refs}]\n"));
        }
        let err = parse_documents("bomb.yaml", &text).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "the YAML cannot be read safely: aliases expand to too much data (an alias bomb?)"
            ),
            "{err}"
        );
        assert!(!err.contains('{'), "{err}");
    }

    #[test]
    fn huge_values_are_cut_in_messages() {
        let digits = "9".repeat(5_000);
        let err = parse_documents("n.yaml", &format!("n: {digits}\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!(
                "n.yaml:1:4: `{}... (5000 characters)` is not a finite number (too large, or .inf/.nan), which JSON cannot hold",
                &digits[..32]
            )
        );
        assert_eq!(
            super::shorten_quoted("bad `short` and `{}`"),
            "bad `short` and `{}`"
        );
    }

    #[test]
    fn conversion_errors_quote_strings_like_go() {
        use super::field_message;
        assert_eq!(
            field_message(
                "invalid type: string \"type:\\u{5cc}tring\", expected struct JSONSchemaProps"
            ),
            "invalid type: string \"type:\\u05cctring\", expected struct JSONSchemaProps"
        );
        assert_eq!(
            field_message(r#"invalid value: string "a\"b\\c\n\u{1f}😀", expected x"#),
            // Go's strconv.Quote writes ASCII controls as \xNN.
            r#"invalid value: string "a\"b\\c\n\x1f😀", expected x"#
        );
        let long = format!("invalid type: string {:?}, expected u64", "x".repeat(100));
        assert_eq!(
            field_message(&long),
            format!(
                "invalid type: string \"{}... (100 characters)\", expected u64",
                "x".repeat(32)
            )
        );
        assert_eq!(
            field_message("invalid type: string \"unterminated \\u{5cc}"),
            "invalid type: string \"unterminated U+05CC"
        );
        assert_eq!(field_message("missing field `a`"), "missing field `a`");
    }

    /// The load_documents fuzz target's finding, end to end.
    #[test]
    fn a_mistyped_schema_field_is_reported_without_debug_escapes() {
        let crd = [
            "apiVersion: apiextensions.k8s.io/v1",
            "kind: CustomResourceDefinition",
            "metadata: {name: xs.example.com}",
            "spec:",
            "  group: example.com",
            "  names: {kind: X, plural: xs}",
            "  scope: Namespaced",
            "  versions:",
            "  - name: v1",
            "    served: true",
            "    storage: true",
            "    schema:",
            r#"      openAPIV3Schema: {type: object, properties: {a: "t\u05ccx"}}"#,
        ]
        .join("\n");
        let docs = parse_documents("f.yaml", &crd).expect("valid YAML");
        let err = crate::load::crds_from_documents("f.yaml", docs)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "f.yaml: document 1 at spec.versions[0].schema.openAPIV3Schema.properties.a: \
             invalid type: string \"t\\u05ccx\", expected struct JSONSchemaProps"
        );
    }

    #[test]
    fn parser_wording_is_made_plain() {
        let err = |text: &str| parse_documents("f.yaml", text).unwrap_err().to_string();
        assert_eq!(
            err("a: 1\nb: 2\na: 3\n"),
            "f.yaml:3:1: key \"a\" already set in map"
        );
        assert_eq!(
            err("a: x\0y\n"),
            "f.yaml:1:5: unexpected character: `U+0000'"
        );
        assert!(
            err("a: !!timestamp 2001-12-14\n").starts_with("f.yaml:1:"),
            "{}",
            err("a: !!timestamp 2001-12-14\n")
        );
        assert_eq!(
            err("a: &a\n  b: *a\n"),
            "f.yaml:2:6: an alias refers to a node that contains it: a recursive alias makes a cycle, which JSON cannot hold"
        );
    }
}
