//! [`CrdSchema`] for chrono's date and time types (feature `chrono`).
//!
//! The schemas follow chrono's serde output: `DateTime<Tz>` is written as RFC 3339
//! (`2024-01-02T03:04:05Z`, `2024-01-02T03:04:05.123+02:00`), which is the
//! `date-time` format the API server checks; `NaiveDate` is `2024-01-02`, format `date`.

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};

use super::literal::Str;
use super::{AcceptsDefault, CrdSchema};
use crate::model::JSONSchemaProps;

fn string_format(format: &str) -> JSONSchemaProps {
    JSONSchemaProps {
        format: Some(format.to_string()),
        ..super::impls::typed("string")
    }
}

impl CrdSchema for DateTime<Utc> {
    fn crd_schema() -> JSONSchemaProps {
        string_format("date-time")
    }
}
impl AcceptsDefault<Str> for DateTime<Utc> {}

impl CrdSchema for DateTime<FixedOffset> {
    fn crd_schema() -> JSONSchemaProps {
        string_format("date-time")
    }
}
impl AcceptsDefault<Str> for DateTime<FixedOffset> {}

impl CrdSchema for NaiveDate {
    fn crd_schema() -> JSONSchemaProps {
        string_format("date")
    }
}
impl AcceptsDefault<Str> for NaiveDate {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas() {
        let s = <DateTime<Utc>>::crd_schema();
        assert_eq!(
            (s.type_str(), s.format.as_deref()),
            ("string", Some("date-time"))
        );
        let s = <DateTime<FixedOffset>>::crd_schema();
        assert_eq!(s.format.as_deref(), Some("date-time"));
        let s = NaiveDate::crd_schema();
        assert_eq!(
            (s.type_str(), s.format.as_deref()),
            ("string", Some("date"))
        );
    }
}
