//! chrono's date/time types (crd-runtime feature `chrono`): what serde writes, the schema
//! admits unchanged and serde reads back; malformed dates are rejected by both.

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use crd_runtime::{CustomResource, CustomResourceExt, assert_valid_crd};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(group = "example.com", version = "v1", kind = "Timed", derive = [PartialEq])]
#[serde(rename_all = "camelCase")]
pub struct TimedSpec {
    pub at: DateTime<Utc>,
    pub local: DateTime<FixedOffset>,
    pub day: NaiveDate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<DateTime<Utc>>,
    #[serde(default)]
    pub holidays: Vec<NaiveDate>,
}

#[test]
fn schema_formats() {
    let crd = Timed::crd();
    assert_valid_crd(&crd);
    let root = crd.spec.versions[0].open_api_schema().unwrap();
    let spec = &root.properties.as_ref().unwrap()["spec"];
    let props = spec.properties.as_ref().unwrap();
    for (name, format) in [
        ("at", "date-time"),
        ("local", "date-time"),
        ("day", "date"),
        ("expires", "date-time"),
    ] {
        assert_eq!(props[name].type_str(), "string", "{name}");
        assert_eq!(props[name].format.as_deref(), Some(format), "{name}");
    }
    let items = props["holidays"].items_schema().unwrap();
    assert_eq!(items.format.as_deref(), Some("date"));
}

#[test]
fn malformed_dates_are_rejected_by_both() {
    let engine = Timed::engine().unwrap();
    for (at, day) in [
        ("2024-01-02T03:04:05Z", "2024-13-01"),
        ("2024-01-02 03:04:05", "2024-01-02"),
        ("yesterday", "2024-01-02"),
    ] {
        let obj = json!({"apiVersion": "example.com/v1", "kind": "Timed", "metadata": {"name": "t"},
                         "spec": {"at": at, "local": "2024-01-02T03:04:05+02:00", "day": day}});
        let mut admitted = obj.clone();
        assert!(engine.admit(&mut admitted).is_err(), "{at} {day}");
        assert!(serde_json::from_value::<Timed>(obj).is_err(), "{at} {day}");
    }
}

fn arb_spec() -> impl Strategy<Value = TimedSpec> {
    // 1970..2200, with and without sub-second digits, offsets of ±14h in minutes.
    let secs = 0i64..7_258_118_400;
    let nanos = prop_oneof![Just(0u32), 0u32..1_000_000_000, Just(123_000_000)];
    let offset = (-14 * 60i32..=14 * 60).prop_map(|m| FixedOffset::east_opt(m * 60).unwrap());
    (
        (secs.clone(), nanos.clone()),
        (secs.clone(), nanos, offset),
        0i64..80_000,
        proptest::option::of(secs),
        proptest::collection::vec(0i64..80_000, 0..3),
    )
        .prop_map(|((s, n), (ls, ln, off), d, exp, hol)| {
            let day =
                |d: i64| NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Days::new(d as u64);
            TimedSpec {
                at: Utc.timestamp_opt(s, n).unwrap(),
                local: off.timestamp_opt(ls, ln).unwrap(),
                day: day(d),
                expires: exp.map(|e| Utc.timestamp_opt(e, 0).unwrap()),
                holidays: hol.into_iter().map(day).collect(),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn serde_output_is_admitted_unchanged(spec in arb_spec()) {
        let engine = Timed::engine().unwrap();
        let obj = Timed::new("t", spec);
        let written = serde_json::to_value(&obj).unwrap();
        let mut admitted = written.clone();
        let result = engine.admit(&mut admitted);
        prop_assert!(result.is_ok(), "rejected: {:?}\n{written:#}", result.err());
        prop_assert_eq!(&admitted, &written);
        let back: Timed = serde_json::from_value(admitted).unwrap();
        prop_assert_eq!(back, obj);
    }
}
