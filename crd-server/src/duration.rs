//! Durations as Go's `time.ParseDuration` writes them, for the flags and fault rules
//! that take one (kube-apiserver's flags are Go durations).

use std::time::Duration;

/// Parses a duration as Go's `time.ParseDuration` does (`15s`, `600ms`, `1m30s`,
/// `1.5h`; units ns, us, µs, ms, s, m, h), for the flags and fault rules that take one.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("time: invalid duration {text:?}");
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = text;
    let mut total = 0f64;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("time: missing unit in duration {text:?}"))?;
        let value: f64 = rest[..n].parse().map_err(|_| bad())?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..u] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            unit => return Err(format!("time: unknown unit {unit:?} in duration {text:?}")),
        };
        total += value * scale;
        rest = &rest[u..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        let cases: [(&str, Result<Duration, String>); 7] = [
            ("15s", Ok(Duration::from_secs(15))),
            ("600ms", Ok(Duration::from_millis(600))),
            ("1m30s", Ok(Duration::from_secs(90))),
            ("1.5h", Ok(Duration::from_secs(5400))),
            ("0", Ok(Duration::ZERO)),
            ("10", Err("time: missing unit in duration \"10\"".into())),
            (
                "3d",
                Err("time: unknown unit \"d\" in duration \"3d\"".into()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text), want, "{text}");
        }
        assert!(parse_duration("").is_err() && parse_duration("-1s").is_err());
    }
}
