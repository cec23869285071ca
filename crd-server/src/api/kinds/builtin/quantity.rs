//! `resource.Quantity` as the server reads and writes it: parsed from the string (or
//! the bare JSON number) form, compared exactly, and written back canonically
//! (`0.5` → `500m`, `1024Mi` → `1Gi`, `1000` → `1k`), as every Quantity the server
//! answers is its `String()`.

use std::cmp::Ordering;

use serde_json::Value;

/// The decode error for a string that is not a quantity (`ErrFormatWrong`).
pub const FORMAT_ERROR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// How a quantity is written, from the suffix it was given with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    DecimalSi,
    BinarySi,
    DecimalExponent,
}

/// An exact quantity: `mantissa × 10^exponent`.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    mantissa: i128,
    exponent: i32,
    format: Format,
}

const DECIMAL: [(&str, i32); 9] = [
    ("n", -9),
    ("u", -6),
    ("m", -3),
    ("", 0),
    ("k", 3),
    ("M", 6),
    ("G", 9),
    ("T", 12),
    ("P", 15),
];
const BINARY: [(&str, u32); 6] = [
    ("Ki", 1),
    ("Mi", 2),
    ("Gi", 3),
    ("Ti", 4),
    ("Pi", 5),
    ("Ei", 6),
];
/// Digits kept before a value is refused (Go keeps more, no real value needs them).
const MAX_DIGITS: usize = 30;

impl Quantity {
    /// Parses `ParseQuantity`'s syntax; `None` when it is not a quantity.
    pub fn parse(text: &str) -> Option<Quantity> {
        let s = text.trim();
        let (negative, s) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len());
        let (number, suffix) = s.split_at(end);
        let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && frac.is_empty())
            || frac.contains('.')
            || whole.len() + frac.len() > MAX_DIGITS
        {
            return None;
        }
        let digits = format!("{whole}{frac}");
        let mut mantissa: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        let mut exponent = -(frac.len() as i32);
        let format = if let Some((_, e)) = DECIMAL.iter().find(|(s, _)| *s == suffix) {
            exponent += e;
            Format::DecimalSi
        } else if suffix == "E" {
            exponent += 18;
            Format::DecimalSi
        } else if let Some((_, n)) = BINARY.iter().find(|(s, _)| *s == suffix) {
            mantissa = mantissa.checked_mul(1024i128.pow(*n))?;
            Format::BinarySi
        } else if let Some(e) = suffix.strip_prefix(['e', 'E']) {
            let e: i32 = e.parse().ok()?;
            if e.abs() > 100 {
                return None;
            }
            exponent += e;
            Format::DecimalExponent
        } else {
            return None;
        };
        if negative {
            mantissa = -mantissa;
        }
        let mut q = Quantity {
            mantissa,
            exponent,
            format,
        };
        q.round_up(-9);
        Some(q)
    }

    /// A quantity from its JSON form (a string or a bare number).
    pub fn from_json(v: &Value) -> Option<Quantity> {
        match v {
            Value::String(s) => Quantity::parse(s),
            Value::Number(n) => Quantity::parse(&n.to_string()),
            _ => None,
        }
    }

    /// Rounds towards +∞ to a multiple of `10^scale` (`RoundUp`, as resource lists
    /// are rounded to milli units).
    pub fn round_up(&mut self, scale: i32) {
        if self.exponent >= scale {
            return;
        }
        let shift = (scale - self.exponent) as u32;
        let Some(div) = 10i128.checked_pow(shift) else {
            self.mantissa = i128::from(self.mantissa > 0);
            self.exponent = scale;
            return;
        };
        let (q, r) = (self.mantissa / div, self.mantissa % div);
        self.mantissa = if r > 0 { q + 1 } else { q };
        self.exponent = scale;
    }

    /// The value as a float (approximate; for scores and counts).
    pub fn as_f64(&self) -> f64 {
        self.mantissa as f64 * 10f64.powi(self.exponent)
    }

    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    pub fn is_negative(&self) -> bool {
        self.mantissa < 0
    }

    fn aligned(&self, other: &Quantity) -> (i128, i128) {
        let e = self.exponent.min(other.exponent);
        let scale = |q: &Quantity| {
            10i128
                .checked_pow((q.exponent - e) as u32)
                .and_then(|m| q.mantissa.checked_mul(m))
                .unwrap_or(if q.mantissa < 0 { i128::MIN } else { i128::MAX })
        };
        (scale(self), scale(other))
    }

    /// `a.Add(b)`, keeping `self`'s format.
    pub fn add(&self, other: &Quantity) -> Quantity {
        let (a, b) = self.aligned(other);
        Quantity {
            mantissa: a.saturating_add(b),
            exponent: self.exponent.min(other.exponent),
            format: self.format,
        }
    }

    /// The canonical text (`Quantity.String()`).
    pub fn canonical(&self) -> String {
        if self.mantissa == 0 {
            return "0".into();
        }
        let mut format = self.format;
        if format == Format::BinarySi {
            let small = *self < Quantity::int(1024) && *self > Quantity::int(-1024);
            if small || self.integer().is_none() {
                format = Format::DecimalSi;
            }
        }
        if format == Format::BinarySi
            && let Some(mut n) = self.integer()
        {
            let mut power = 0;
            while n % 1024 == 0 && power < 6 {
                n /= 1024;
                power += 1;
            }
            let suffix = if power == 0 { "" } else { BINARY[power - 1].0 };
            return format!("{n}{suffix}");
        }
        let (mut m, mut e) = (self.mantissa, self.exponent);
        while m % 10 == 0 {
            m /= 10;
            e += 1;
        }
        while e.rem_euclid(3) != 0 {
            m *= 10;
            e -= 1;
        }
        let suffix = match format {
            Format::DecimalExponent if e == 0 => String::new(),
            Format::DecimalExponent => format!("e{e}"),
            _ => match DECIMAL.iter().find(|(_, x)| *x == e) {
                Some((s, _)) => s.to_string(),
                None if e == 18 => "E".into(),
                None => format!("e{e}"),
            },
        };
        format!("{m}{suffix}")
    }

    fn int(n: i128) -> Quantity {
        Quantity {
            mantissa: n,
            exponent: 0,
            format: Format::DecimalSi,
        }
    }

    /// The value as an integer, when it is one.
    fn integer(&self) -> Option<i128> {
        if self.exponent >= 0 {
            return 10i128
                .checked_pow(self.exponent as u32)
                .and_then(|m| self.mantissa.checked_mul(m));
        }
        let div = 10i128.checked_pow((-self.exponent) as u32)?;
        (self.mantissa % div == 0).then_some(self.mantissa / div)
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = self.aligned(other);
        a.cmp(&b)
    }
}

/// Rewrites a quantity in place canonically (rounded up to `10^scale` first, when
/// given); the decode error when it is not one.
pub fn canonicalize(v: &mut Value, scale: Option<i32>) -> Result<(), String> {
    if v.is_null() {
        return Ok(());
    }
    let mut q = Quantity::from_json(v).ok_or_else(|| FORMAT_ERROR.to_string())?;
    if let Some(scale) = scale {
        q.round_up(scale);
    }
    *v = Value::String(q.canonical());
    Ok(())
}

/// Every value of a resource list (`requests`, `limits`, `overhead`), rounded up to
/// milli units as `SetDefaults_ResourceList` does.
pub fn canonicalize_list(list: Option<&mut Value>) -> Result<(), String> {
    if let Some(Value::Object(m)) = list {
        for v in m.values_mut() {
            canonicalize(v, Some(-3))?;
        }
    }
    Ok(())
}

/// The decoding error of a malformed quantity (the name the non-workload kinds use).
pub const PARSE_ERROR: &str = FORMAT_ERROR;

/// The value of a quantity as a float, for comparisons of limits and requests
/// (`None`: it does not parse).
pub fn parse(text: &str) -> Option<f64> {
    let q = Quantity::parse(text)?;
    Some(q.mantissa as f64 * 10f64.powi(q.exponent))
}

/// A quantity in JSON (a string or a number) as text.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Checks every value of the maps at `pointers` parses (the decoding of a body).
pub fn check_maps(obj: &Value, pointers: &[&str]) -> Result<(), String> {
    for p in pointers {
        let values = obj
            .pointer(p)
            .and_then(Value::as_object)
            .into_iter()
            .flatten();
        for (_, v) in values {
            if text(v).and_then(|t| parse(&t)).is_none() {
                return Err(PARSE_ERROR.into());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        Quantity::parse(s).unwrap().canonical()
    }

    #[test]
    fn canonical_forms_follow_quantity_string() {
        for (input, want) in [
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1500m", "1500m"),
            ("1.5", "1500m"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("12000", "12k"),
            ("100M", "100M"),
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("0.5Gi", "512Mi"),
            ("512", "512"),
            ("100Ki", "100Ki"),
            ("1e3", "1e3"),
            ("0", "0"),
            ("-2", "-2"),
            ("1n", "1n"),
        ] {
            assert_eq!(canon(input), want, "{input}");
        }
        assert!(Quantity::parse("1x").is_none());
        assert!(Quantity::parse("").is_none());
        assert!(Quantity::parse("abc").is_none());
    }

    #[test]
    fn comparisons_and_milli_rounding() {
        let q = |s: &str| Quantity::parse(s).unwrap();
        assert!(q("2") > q("1500m"));
        assert_eq!(q("1Gi"), q("1073741824"));
        assert!(q("1G") < q("1Gi"));
        let mut v = serde_json::json!("0.0001");
        canonicalize(&mut v, Some(-3)).unwrap();
        assert_eq!(v, "1m");
        let mut n = serde_json::json!(0.25);
        canonicalize(&mut n, Some(-3)).unwrap();
        assert_eq!(n, "250m");
        assert_eq!(
            canonicalize(&mut serde_json::json!("lots"), None).unwrap_err(),
            FORMAT_ERROR
        );
    }

    #[test]
    fn values_for_comparisons() {
        assert_eq!(parse("1Gi"), Some(1073741824.0));
        assert_eq!(parse("500m"), Some(0.5));
        assert_eq!(parse("1e3"), Some(1000.0));
        assert_eq!(parse("-2"), Some(-2.0));
        assert_eq!(parse("1.5k"), Some(1500.0));
        assert_eq!(parse("abc"), None);
        assert_eq!(parse("1Gb"), None);
        assert_eq!(parse(""), None);
        assert!(check_maps(&serde_json::json!({"a": {"x": "1Q"}}), &["/a"]).is_err());
        assert!(check_maps(&serde_json::json!({"a": {"x": "1Gi", "y": 2}}), &["/a"]).is_ok());
    }
}
