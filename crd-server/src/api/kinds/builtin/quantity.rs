//! `resource.Quantity` as the server decodes and compares them: the regular expression
//! a quantity must match (a decoding error otherwise), and its value for comparisons.

use serde_json::Value;

/// The decoding error of a malformed quantity.
pub const PARSE_ERROR: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// The value of a quantity (`None`: it does not parse).
pub fn parse(text: &str) -> Option<f64> {
    let s = text.trim();
    let digits_end = s
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || *c == '.' || ((*c == '+' || *c == '-') && *i == 0)))
        .map_or(s.len(), |(i, _)| i);
    let (number, suffix) = s.split_at(digits_end);
    if number.is_empty() || number == "+" || number == "-" || number.matches('.').count() > 1 {
        return None;
    }
    let base: f64 = number.parse().ok()?;
    let factor = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exp if exp.starts_with(['e', 'E']) => {
            let e: i32 = exp[1..].parse().ok()?;
            10f64.powi(e)
        }
        _ => return None,
    };
    Some(base * factor)
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
        for v in obj
            .pointer(p)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(_, v)| v)
        {
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

    #[test]
    fn quantities_parse_like_resource_quantity() {
        assert_eq!(parse("1Gi"), Some(1073741824.0));
        assert_eq!(parse("500m"), Some(0.5));
        assert_eq!(parse("1e3"), Some(1000.0));
        assert_eq!(parse("-2"), Some(-2.0));
        assert_eq!(parse("1.5k"), Some(1500.0));
        assert_eq!(parse("abc"), None);
        assert_eq!(parse("1Gb"), None);
        assert_eq!(parse(""), None);
        assert!(check_maps(&serde_json::json!({"a": {"x": "1Q"}}), &["/a"]).is_err());
    }
}
