//! Plain scalars resolved as serde-saphyr resolves them (YAML 1.1 booleans, Go-style
//! integer prefixes, floats; non-finite floats left to serde-saphyr), and the budgets
//! the text reader keeps inside serde-saphyr's, so that whatever it accepts,
//! serde-saphyr accepts too.

use serde_json::{Number, Value};

/// Budgets kept well inside the ones serde-saphyr enforces (see `yaml_options`), so
/// that whatever this builder accepts, serde-saphyr accepts too.
pub(in crate::load) const MAX_EVENTS: usize = 50_000_000;
pub(in crate::load) const MAX_DOCUMENTS: usize = 500_000;
pub(in crate::load) const MAX_SCALAR_BYTES: usize = 512 << 20;
pub(in crate::load) const MAX_INPUT_BYTES: usize = 512 << 20;

/// What an untagged plain scalar resolves to.
#[derive(Debug, PartialEq)]
pub(crate) enum Plain {
    Null,
    /// A boolean or a number.
    Value(Value),
    /// The text itself.
    Str,
}

/// Padding serde-saphyr trims before typed parses.
fn trim(s: &str) -> &str {
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let b = s.as_bytes();
    let start = b.iter().position(|c| !blank(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !blank(c)).map_or(start, |i| i + 1);
    &s[start..end]
}

fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// Resolves an untagged plain scalar the way serde-saphyr's `deserialize_any` does
/// with our options: null, YAML 1.1 booleans, then integers (`i64` when negative,
/// else `u64`; `0x`/`0o`/`0b`, `_` between digits, no leading zeros), then floats
/// (Rust's grammar, finite only), else the text. `None` for non-finite floats
/// (`.inf`, `.nan`, `1e999`), which serde-saphyr rejects.
pub(crate) fn resolve_plain(s: &str) -> Option<Plain> {
    if is_null(s) {
        return Some(Plain::Null);
    }
    let t = trim(s);
    // Booleans and numbers start with one of these: skip the parses for ordinary words.
    let first = t.as_bytes().first().copied().unwrap_or(b' ');
    if !(first.is_ascii_digit() || b"+-.tTfFyYnNoO".contains(&first)) {
        return Some(Plain::Str);
    }
    if let Some(b) = yaml11_bool(t) {
        return Some(Plain::Value(Value::Bool(b)));
    }
    // No integer, and no float but NaN (which stays text), starts with a letter:
    // skip the parses for `type`, `object`, `nullable`.
    if first.is_ascii_alphabetic() {
        return Some(Plain::Str);
    }
    if let Some(rest) = t.strip_prefix('-') {
        if !leading_zero_decimal(rest)
            && let Some(v) = integer(rest).and_then(negate)
        {
            return Some(Plain::Value(Value::from(v)));
        }
    } else if let Some(v) =
        integer(t.strip_prefix('+').unwrap_or(t)).and_then(|m| u64::try_from(m).ok())
    {
        return Some(Plain::Value(Value::from(v)));
    }
    float(t)
}

fn yaml11_bool(t: &str) -> Option<bool> {
    let is = |words: [&str; 4]| words.iter().any(|w| t.eq_ignore_ascii_case(w));
    if is(["true", "yes", "y", "on"]) {
        Some(true)
    } else if is(["false", "no", "n", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// `-0127` style: serde-saphyr skips the integer parse for these (they become floats).
fn leading_zero_decimal(digits: &str) -> bool {
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

fn negate(magnitude: u128) -> Option<i64> {
    if magnitude > 1 << 63 {
        return None;
    }
    i64::try_from(-(magnitude as i128)).ok()
}

/// Magnitude of an unsigned integer spelling (sign already removed).
fn integer(rest: &str) -> Option<u128> {
    let prefixed = |lower: &str, upper: &str| rest.strip_prefix(lower).or(rest.strip_prefix(upper));
    if let Some(d) = prefixed("0x", "0X") {
        digits(d, 16)
    } else if let Some(d) = prefixed("0o", "0O") {
        digits(d, 8)
    } else if let Some(d) = prefixed("0b", "0B") {
        digits(d, 2)
    } else if rest.starts_with('0') && rest != "0" {
        None
    } else {
        digits(rest, 10)
    }
}

/// Digits in `radix` with single `_` separators between digits; at least one digit.
fn digits(s: &str, radix: u32) -> Option<u128> {
    let bytes = s.as_bytes();
    let mut value: u128 = 0;
    let mut saw = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let prev_ok = i > 0 && bytes[i - 1] != b'_';
            let next_ok = bytes.get(i + 1).is_some_and(|&n| n != b'_');
            if !prev_ok || !next_ok {
                return None;
            }
            continue;
        }
        let d = char::from(b).to_digit(radix)?;
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(d))?;
        saw = true;
    }
    saw.then_some(value)
}

/// The float step: YAML's `.inf`/`.nan` spellings and literals that overflow are
/// errors for serde-saphyr (`None`); other finite Rust float literals are numbers.
fn float(t: &str) -> Option<Plain> {
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if matches!(
        unsigned,
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF"
    ) {
        return None;
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Some(Plain::Value(Value::Number(Number::from_f64(v)?))),
        Ok(v) if v.is_infinite() && unsigned.as_bytes().first().is_some_and(u8::is_ascii_digit) => {
            None
        }
        _ => Some(Plain::Str),
    }
}
