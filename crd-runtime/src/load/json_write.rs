//! Compact JSON text of a `Value`, byte for byte what `serde_json::to_writer`
//! writes, into a `Vec<u8>` without serde's serializer state machine: strings are
//! copied eight bytes a step while nothing in them needs an escape (printing admitted
//! objects was a tenth of `crd-gen validate`).

use serde_json::Value;

use crate::keyprint::pack_short;

/// Appends the compact JSON text of `v` to `out`, as `serde_json::to_writer` would.
pub fn write_json(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                write_u64(out, u);
            } else if let Some(i) = n.as_i64() {
                out.push(b'-');
                write_u64(out, i.unsigned_abs());
            } else {
                // Floats: serde_json's own formatting (shortest round trip).
                out.extend_from_slice(n.to_string().as_bytes());
            }
        }
        Value::String(s) => write_json_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_str(out, k);
                out.push(b':');
                write_json(out, item);
            }
            out.push(b'}');
        }
    }
}

/// Appends a JSON array of strings, as `serde_json::to_writer` would write it.
///
/// ```
/// use crd_runtime::load::write_json_strs;
///
/// let mut out = Vec::new();
/// write_json_strs(&mut out, &["spec.replicas: Required value", "a \"quoted\" word"]);
/// assert_eq!(out, br#"["spec.replicas: Required value","a \"quoted\" word"]"#);
/// ```
pub fn write_json_strs(out: &mut Vec<u8>, items: &[impl AsRef<str>]) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json_str(out, item.as_ref());
    }
    out.push(b']');
}

fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[at..]);
}

/// Appends `s` as a JSON string with serde_json's escapes: `\"`, `\\`, `\b`, `\t`,
/// `\n`, `\f`, `\r`, and `\u00xx` for the other control characters.
pub fn write_json_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    if b.len() <= SHORT {
        // Most keys and values: checked a word or two at a time and written with
        // fixed-size moves straight into `out`, not byte loops and a `memcpy` call.
        let (head, tail) = short_words(b);
        if special_bytes(head) | special_bytes(tail) == 0 {
            let len = out.len();
            out.extend_from_slice(&[b'"'; SHORT + 2]);
            copy_short(&mut out[len + 1..], b);
            out.truncate(len + b.len() + 2);
            out[len + b.len() + 1] = b'"';
            return;
        }
    }
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut from = 0;
    loop {
        let run = escape_free_run(&b[from..]);
        out.extend_from_slice(&b[from..from + run]);
        from += run;
        let Some(&c) = b.get(from) else { break };
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 0xf)]);
            }
        }
        from += 1;
    }
    out.push(b'"');
}

/// The bytes of word `x` that need an escape (`"`, `\\`, below 0x20), flagged by
/// their high bit; the lowest flag is a true match (borrows only run upwards), and
/// bytes of 0x80 and above are never flagged (`!x`, `!quote`, `!backslash`).
#[inline]
fn special_bytes(x: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let quote = x ^ (LO * u64::from(b'"'));
    let backslash = x ^ (LO * u64::from(b'\\'));
    (quote.wrapping_sub(LO) & !quote
        | backslash.wrapping_sub(LO) & !backslash
        | x.wrapping_sub(LO * 0x20) & !x)
        & HI
}

/// Strings up to this long are written by [`copy_short`].
const SHORT: usize = 16;

/// Two words holding every byte of `b` (at most [`SHORT`] bytes), read straight from
/// it: the first and last eight bytes, or halves, or single bytes, with filler
/// that needs no escape.
#[inline]
fn short_words(b: &[u8]) -> (u64, u64) {
    const FILLER: u64 = 0x6161_6161_6161_6161; // `a`s
    let n = b.len();
    let word = |at: usize| b[at..at + 8].try_into().map_or(FILLER, u64::from_le_bytes);
    if n >= 8 {
        (word(0), word(n - 8))
    } else if n >= 4 {
        (pack_short(b), FILLER)
    } else if n > 0 {
        // One to three bytes fill the low three bytes (repeating); filler the rest.
        (pack_short(b) | FILLER << 24, FILLER)
    } else {
        (FILLER, FILLER)
    }
}

/// Copies `src` (at most [`SHORT`] bytes) to the start of `dst` with fixed-size
/// moves: two overlapping words, halves or single bytes cover every length.
#[inline]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// How many leading bytes of `b` need no escape: not `"`, `\` or below 0x20.
/// Eight bytes a step while none of them needs one.
#[inline]
pub(crate) fn escape_free_run(b: &[u8]) -> usize {
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let special = special_bytes(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        if special != 0 {
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(v: &Value) {
        let mut ours = Vec::new();
        write_json(&mut ours, v);
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(v).unwrap()
        );
    }

    #[test]
    fn every_kind_of_value_as_serde_json_writes_it() {
        same(&json!(null));
        same(
            &json!({"a": [1, -2, 0, u64::MAX, i64::MIN, 1.5, -0.0, 1e300, 2.0e-7],
            "b": {"c": true, "d": false, "e": null}, "": [], "f": {}}),
        );
        same(&json!("plain"));
        same(&json!("quote \" backslash \\ slash / del \u{7f} é 日本 🦀"));
        let controls: String = (0u8..0x20).map(char::from).collect();
        same(&json!(controls));
        same(&json!(format!("{controls}{controls}x")));
    }

    #[test]
    fn escapes_are_found_at_every_offset_of_a_word() {
        for special in ['"', '\\', '\n', '\u{1}', '\u{1f}'] {
            for at in 0..20 {
                let mut s: String = "abcdefghijklmnopqrst".into();
                s.insert(at, special);
                s.insert_str(at, "é");
                same(&Value::String(s));
            }
        }
    }

    #[test]
    fn string_arrays_as_serde_json_writes_them() {
        for items in [vec![], vec!["a"], vec!["a", "b\"c", ""]] {
            let mut ours = Vec::new();
            write_json_strs(&mut ours, &items);
            assert_eq!(ours, serde_json::to_vec(&items).unwrap());
        }
    }

    #[test]
    fn strings_of_every_short_length() {
        for n in 0..=SHORT + 3 {
            let s: String = "abcdefghijklmnopqrstuvwxyz"[..n].into();
            same(&Value::String(s.clone()));
            for special in ['"', '\\', '\n', '\u{1}', '\u{1f}', 'é'] {
                for at in 0..=n {
                    let mut t = s.clone();
                    t.insert(at, special);
                    same(&Value::String(t));
                }
            }
        }
    }

    #[test]
    fn bytes_above_ascii_are_not_escapes() {
        for c in ['\u{80}', '\u{a0}', '\u{ff}', '\u{2028}', '\u{10ffff}'] {
            let s: String = std::iter::repeat_n(c, 9).collect();
            assert_eq!(escape_free_run(s.as_bytes()), s.len());
            same(&Value::String(s));
        }
    }
}
