//! `intstr.GetScaledValueFromIntOrPercent`: an int-or-percent field (`maxSurge`,
//! `maxUnavailable`, a budget's `minAvailable`) as a count of `total`.

use serde_json::Value;

/// The count `value` stands for out of `total` (a percentage rounded up or down);
/// absent: `default`.
pub fn scaled(
    value: Option<&Value>,
    total: i64,
    round_up: bool,
    default: i64,
) -> Result<i64, String> {
    match value {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| format!("invalid value for IntOrString: {n}")),
        Some(Value::String(s)) => {
            let Some(p) = s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) else {
                return Err(format!(
                    "invalid value for IntOrString: invalid type: string is not a percentage: {s:?}"
                ));
            };
            let product = p * total;
            Ok(if round_up {
                (product + 99).div_euclid(100)
            } else {
                product.div_euclid(100)
            })
        }
        Some(other) => Err(format!("invalid value for IntOrString: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn percentages_round_as_asked() {
        assert_eq!(scaled(Some(&json!("25%")), 10, true, 0), Ok(3));
        assert_eq!(scaled(Some(&json!("25%")), 10, false, 0), Ok(2));
        assert_eq!(scaled(Some(&json!(4)), 10, false, 0), Ok(4));
        assert_eq!(scaled(None, 10, false, 1), Ok(1));
        assert!(scaled(Some(&json!("a")), 10, false, 0).is_err());
    }
}
