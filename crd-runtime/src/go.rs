//! Go's quoting, where a message must read as the API server writes it: `%q` of a
//! string is `strconv.Quote`, which keeps what `unicode.IsPrint` accepts and escapes
//! the rest.
//!
//! ```
//! use crd_runtime::__private::go;
//!
//! assert_eq!(go::quote("a\"b\n\u{1}"), r#""a\"b\n\x01""#);
//! assert_eq!(go::quote("e\u{301} 🦀"), "\"e\u{301} 🦀\""); // marks and symbols stay
//! assert_eq!(go::quote("a\u{a0}b\u{200d}"), r#""a\u00a0b\u200d""#); // Zs and Cf do not
//! assert_eq!(go::quote_bytes(b"\xffok"), r#""\xffok""#);
//! ```

use crate::go_print_table::PRINTABLE;

/// `strconv.Quote(s)`: `s` in double quotes, with `\a \b \f \n \r \t \v \\ \"`, `\xNN`
/// for the other ASCII controls and DEL, and `\uNNNN` / `\UNNNNNNNN` for every other
/// character [`is_print`] rejects.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out.push('"');
    out
}

/// [`quote`] of bytes that need not be UTF-8: each byte of an invalid sequence is
/// `\xNN`, as Go quotes a string holding it.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_escaped(&mut out, c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

fn push_escaped(out: &mut String, c: char) {
    let escape = match c {
        '"' => "\\\"",
        '\\' => "\\\\",
        '\u{7}' => "\\a",
        '\u{8}' => "\\b",
        '\u{c}' => "\\f",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '\u{b}' => "\\v",
        c if is_print(c) => {
            out.push(c);
            return;
        }
        c if c < ' ' || c == '\u{7f}' => {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
            return;
        }
        c if u32::from(c) < 0x10000 => {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
            return;
        }
        c => {
            out.push_str(&format!("\\U{:08x}", u32::from(c)));
            return;
        }
    };
    out.push_str(escape);
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation and symbols (general
/// categories L, M, N, P, S) and the ASCII space; not other spaces (`Zs` such as
/// U+00A0), line or paragraph separators, controls, format characters (U+200D),
/// private use or unassigned code points.
///
/// The categories are regex-syntax's Unicode tables, kept as data (`go_print_table.rs`,
/// checked against regex-syntax by a test); they may know a few code points newer than
/// the Go release the API server was built with, which Go still calls unassigned.
pub fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    let ranges = PRINTABLE;
    let i = ranges.partition_point(|&(_, hi)| hi < c);
    ranges.get(i).is_some_and(|&(lo, _)| lo <= c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected strings are what Go 1.25's `strconv.Quote` prints for the same input.
    #[test]
    fn quotes_like_strconv_quote() {
        for (input, want) in [
            ("", r#""""#),
            ("plain text", r#""plain text""#),
            ("a\"b\\c", r#""a\"b\\c""#),
            ("\u{7}\u{8}\u{c}\n\r\t\u{b}", r#""\a\b\f\n\r\t\v""#),
            ("\u{0}\u{1}\u{1b}\u{7f}", r#""\x00\x01\x1b\x7f""#),
            // C1 controls are not ASCII: \u, not \x.
            ("\u{80}\u{9f}", r#""\u0080\u009f""#),
            // Combining marks (Mn) stay, even at the start.
            ("\u{301}e\u{301}", "\"\u{301}e\u{301}\""),
            ("é ñ 漢字 Ω", "\"é ñ 漢字 Ω\""),
            // Zero-width joiner and BOM are Cf; NBSP and ideographic space are Zs.
            ("a\u{200d}b\u{feff}", r#""a\u200db\ufeff""#),
            ("a\u{a0}b\u{3000}", r#""a\u00a0b\u3000""#),
            // Line and paragraph separators (Zl, Zp).
            ("\u{2028}\u{2029}", r#""\u2028\u2029""#),
            // Emoji and other symbols (So, Sm, Sc) stay; U+FFFD is So.
            ("🦀 ∑ € \u{fffd}", "\"🦀 ∑ € \u{fffd}\""),
            // Private use (Co) and unassigned (Cn), in both planes.
            ("\u{e000}\u{f0000}", r#""\ue000\U000f0000""#),
            ("\u{378}\u{e0080}", r#""\u0378\U000e0080""#),
            // Plane-1 letters stay.
            ("𝒜", "\"𝒜\""),
        ] {
            assert_eq!(quote(input), want, "{input:?}");
        }
    }

    #[test]
    fn invalid_utf8_bytes_are_hex_escapes() {
        assert_eq!(quote_bytes(b"a\xffb"), r#""a\xffb""#);
        // A truncated sequence is one escape per byte.
        assert_eq!(quote_bytes(b"\xe2\x82"), r#""\xe2\x82""#);
        assert_eq!(quote_bytes("é\n".as_bytes()), r#""é\n""#);
    }

    #[test]
    fn printable_is_categories_l_m_n_p_s_and_the_ascii_space() {
        assert!(is_print(' ') && is_print('~') && is_print('a'));
        assert!(!is_print('\u{7f}') && !is_print('\t'));
        assert!(is_print('\u{301}') && is_print('٣') && is_print('«'));
        assert!(!is_print('\u{a0}') && !is_print('\u{200b}') && !is_print('\u{10ffff}'));
        assert!(is_print('\u{1f980}'));
    }

    /// The checked-in table is regex-syntax's L, M, N, P, S class beyond ASCII.
    #[cfg(feature = "engine")]
    #[test]
    fn printable_table_matches_regex_syntax() {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(r"[\p{L}\p{M}\p{N}\p{P}\p{S}]")
            .expect("a class of general categories parses");
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) =
            hir.kind()
        else {
            panic!("a Unicode class parses to a class");
        };
        let want: Vec<(char, char)> = class
            .ranges()
            .iter()
            .filter(|r| u32::from(r.end()) >= 0x80)
            .map(|r| (r.start(), r.end()))
            .collect();
        if PRINTABLE != want.as_slice() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/go_print_table.rs");
            let old = std::fs::read_to_string(path).expect("the table's source reads");
            let head = old
                .split_inclusive('\n')
                .take_while(|l| !l.starts_with("    ("))
                .collect::<String>();
            let mut text = head.replace(
                &format!("({} ranges)", PRINTABLE.len()),
                &format!("({} ranges)", want.len()),
            );
            let mut line = String::from("   ");
            for (lo, hi) in &want {
                let item = format!(
                    " ('\\u{{{:x}}}', '\\u{{{:x}}}'),",
                    u32::from(*lo),
                    u32::from(*hi)
                );
                if line.len() + item.len() > 95 {
                    text.push_str(&line);
                    text.push('\n');
                    line = String::from("   ");
                }
                line.push_str(&item);
            }
            text.push_str(&line);
            text.push_str("\n];\n");
            if std::env::var_os("UPDATE_GOLDEN").is_some() {
                std::fs::write(path, text).expect("the table's source writes");
            } else {
                panic!(
                    "src/go_print_table.rs is not regex-syntax's table: run with UPDATE_GOLDEN=1"
                );
            }
        }
    }
}
