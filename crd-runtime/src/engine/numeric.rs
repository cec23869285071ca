//! Numbers as Go's unstructured decoding types them, and kube-openapi's
//! `IsValueValidAgainstRange`: shared by the compiler (does a schema bound fit the
//! node's type?) and the validator (does a value?).

use serde_json::Number;

use crate::field::BadValue;

/// A decoded JSON number as Go's unstructured decoding types it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GoNum {
    Int(i64),
    Float(f64),
}

impl GoNum {
    pub(crate) fn of(n: &Number) -> GoNum {
        match n.as_i64() {
            Some(i) => GoNum::Int(i),
            None => GoNum::Float(n.as_f64().unwrap_or(f64::NAN)),
        }
    }

    pub(crate) fn as_f64(self) -> f64 {
        match self {
            GoNum::Int(i) => i as f64,
            GoNum::Float(f) => f,
        }
    }

    pub(crate) fn bad_value(self) -> BadValue {
        match self {
            GoNum::Int(i) => BadValue::Int(i),
            GoNum::Float(f) => BadValue::Float(f),
        }
    }
}

/// `IsValueValidAgainstRange`: can the value be converted to the type (`integer` when
/// the node's single type is `integer`) and format without loss?
pub(crate) fn fits(v: GoNum, integer: bool, format: &str) -> bool {
    if !integer {
        return match format {
            "float" | "float32" => (v.as_f64() as f32).is_finite(),
            _ => true,
        };
    }
    let i = match v {
        GoNum::Int(i) => i as i128,
        GoNum::Float(f) => {
            // Go formats the float with 'f' and parses it as an integer.
            if !f.is_finite() || f.fract() != 0.0 || f.abs() >= 9.3e18 {
                return false;
            }
            f as i128
        }
    };
    match format {
        "int32" => i32::try_from(i).is_ok(),
        "uint32" => u32::try_from(i).is_ok(),
        "uint64" => u64::try_from(i).is_ok(),
        _ => i64::try_from(i).is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_fit_their_format() {
        assert!(fits(GoNum::Int(i64::from(i32::MAX)), true, "int32"));
        assert!(!fits(GoNum::Int(i64::from(i32::MAX) + 1), true, "int32"));
        assert!(!fits(GoNum::Int(-1), true, "uint32"));
        assert!(fits(GoNum::Float(3.0), true, ""));
        assert!(!fits(GoNum::Float(3.5), true, ""));
        assert!(!fits(GoNum::Float(1e19), true, "uint64"));
    }

    #[test]
    fn floats_fit_float32_unless_they_overflow() {
        assert!(fits(GoNum::Float(3.5), false, "float"));
        assert!(!fits(GoNum::Float(1e39), false, "float"));
        assert!(fits(GoNum::Float(1e39), false, "double"));
    }
}
