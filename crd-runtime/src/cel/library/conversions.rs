//! `duration(x)`, `timestamp(x)` and `dyn(x)` as cel-go defines them. The `cel` crate's
//! versions accept trailing garbage after a duration and report a bad string
//! with its parser's internal error (`Parsing Error: Error { .. }`, found by
//! the engine_admit fuzz target); cel-go parses with Go's `time.ParseDuration`
//! and `time.Parse(time.RFC3339, ..)` and answers a bad string with a
//! "type conversion error".

use kube_cel::cel::objects::Value;
use kube_cel::cel::{ExecutionError, ResolveResult};

use crate::cel::schema::value::parse_go_duration;

const DURATION: &str = "google.protobuf.Duration";
const TIMESTAMP: &str = "google.protobuf.Timestamp";

/// The error cel-go returns when a string does not convert to `to`.
fn conversion_error(function: &str, to: &str) -> ExecutionError {
    ExecutionError::function_error(
        function,
        format!("type conversion error from 'string' to '{to}'"),
    )
}

/// `dyn(x)`: `x` itself; it only changes the static type (the `cel` crate has no `dyn`).
pub(in crate::cel) fn dyn_(v: Value) -> ResolveResult {
    Ok(v)
}

/// `duration(string)` and `duration(duration)`.
pub(in crate::cel) fn duration(v: Value) -> ResolveResult {
    match v {
        Value::String(s) => parse_go_duration(&s, false)
            .map(Value::Duration)
            .ok_or_else(|| conversion_error("duration", DURATION)),
        Value::Duration(d) => Ok(Value::Duration(d)),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// `timestamp(string)`, `timestamp(timestamp)` and `timestamp(int)` (Unix seconds).
pub(in crate::cel) fn timestamp(v: Value) -> ResolveResult {
    match v {
        Value::String(s) => parse_rfc3339(&s)
            .map(Value::Timestamp)
            .ok_or_else(|| conversion_error("timestamp", TIMESTAMP)),
        Value::Timestamp(t) => Ok(Value::Timestamp(t)),
        Value::Int(secs) => chrono::DateTime::from_timestamp(secs, 0)
            .filter(|t| in_cel_range(t.timestamp()))
            .map(|t| Value::Timestamp(t.fixed_offset()))
            .ok_or_else(|| ExecutionError::function_error("timestamp", "timestamp overflow")),
        _ => Err(ExecutionError::NoSuchOverload),
    }
}

/// Go's RFC 3339 layout: an upper-case `T` between date and time and years
/// 0001-9999 (CEL's timestamp range).
fn parse_rfc3339(s: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    if s.as_bytes().get(10) != Some(&b'T') {
        return None;
    }
    let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    in_cel_range(t.timestamp()).then_some(t)
}

/// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
fn in_cel_range(unix_seconds: i64) -> bool {
    (-62_135_596_800..=253_402_300_799).contains(&unix_seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn s(text: &str) -> Value {
        Value::String(Arc::new(text.to_string()))
    }

    fn message(r: ResolveResult) -> String {
        match r {
            Err(ExecutionError::FunctionError { message, .. }) => message,
            other => panic!("expected a function error, got {other:?}"),
        }
    }

    #[test]
    fn durations_parse_like_time_parse_duration() {
        assert_eq!(
            duration(s("1h30m")),
            Ok(Value::Duration(chrono::Duration::minutes(90)))
        );
        assert_eq!(
            duration(s("-1.5s")),
            Ok(Value::Duration(chrono::Duration::milliseconds(-1500)))
        );
        assert_eq!(
            duration(s("0")),
            Ok(Value::Duration(chrono::Duration::zero()))
        );
        for bad in ["string", "", "1", "1sgarbage", "2d", "1w", ".s", "1e3s"] {
            assert_eq!(
                message(duration(s(bad))),
                "type conversion error from 'string' to 'google.protobuf.Duration'",
                "{bad}"
            );
        }
        assert_eq!(duration(Value::Int(1)), Err(ExecutionError::NoSuchOverload));
    }

    #[test]
    fn timestamps_parse_like_go_rfc3339() {
        let t = timestamp(s("2024-01-02T03:04:05Z")).expect("valid");
        assert_eq!(timestamp(Value::Int(1_704_164_645)), Ok(t));
        for bad in [
            "2024-01-02 03:04:05Z",
            "2024-01-02",
            "garbage",
            "2024-01-02T03:04:05",
            "",
            "2024-01-0\u{1F600}",
        ] {
            assert_eq!(
                message(timestamp(s(bad))),
                "type conversion error from 'string' to 'google.protobuf.Timestamp'",
                "{bad}"
            );
        }
        assert_eq!(
            message(timestamp(Value::Int(i64::MAX))),
            "timestamp overflow"
        );
    }
}
