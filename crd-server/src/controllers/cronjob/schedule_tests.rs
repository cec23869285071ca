use chrono::{DateTime, Utc};

use super::schedule::{Cron, Missed, most_recent};
use crate::api::kinds::builtin::batch::cron::parse;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn cron(spec: &str, zone: Option<&str>) -> Cron {
    Cron::new(parse(spec).unwrap().schedule, zone).unwrap()
}

#[test]
fn next_follows_robfig_fields_and_descriptors() {
    let t = at("2024-03-15T10:07:30Z"); // a Friday
    assert_eq!(
        cron("*/5 * * * *", None).next(t),
        Some(at("2024-03-15T10:10:00Z"))
    );
    assert_eq!(
        cron("@hourly", None).next(t),
        Some(at("2024-03-15T11:00:00Z"))
    );
    assert_eq!(
        cron("@daily", None).next(t),
        Some(at("2024-03-16T00:00:00Z"))
    );
    assert_eq!(
        cron("@weekly", None).next(t),
        Some(at("2024-03-17T00:00:00Z"))
    );
    assert_eq!(
        cron("@monthly", None).next(t),
        Some(at("2024-04-01T00:00:00Z"))
    );
    assert_eq!(
        cron("@yearly", None).next(t),
        Some(at("2025-01-01T00:00:00Z"))
    );
    assert_eq!(
        cron("0 9 * * mon-fri", None).next(t),
        Some(at("2024-03-18T09:00:00Z"))
    );
    // Day of month OR day of week when neither is `*`: the 20th, or a Monday.
    assert_eq!(
        cron("0 0 20 * mon", None).next(t),
        Some(at("2024-03-18T00:00:00Z"))
    );
    // February 30th never comes.
    assert_eq!(cron("0 0 30 2 *", None).next(t), None);
    assert_eq!(
        cron("@every 90s", None).next(t),
        Some(at("2024-03-15T10:09:00Z"))
    );
    // The exact time is not "after".
    assert_eq!(
        cron("0 * * * *", None).next(at("2024-03-15T10:00:00Z")),
        Some(at("2024-03-15T11:00:00Z"))
    );
}

#[test]
fn time_zones_and_their_clock_changes() {
    let t = at("2024-03-15T10:07:30Z");
    // 09:00 in Paris (UTC+1 in March before the change).
    assert_eq!(
        cron("0 9 * * *", Some("Europe/Paris")).next(t),
        Some(at("2024-03-16T08:00:00Z"))
    );
    // 02:30 does not exist in Paris on 2024-03-31: the later instant (03:30 CEST).
    let gap = cron("30 2 31 3 *", Some("Europe/Paris")).next(t);
    assert_eq!(gap, Some(at("2024-03-31T01:30:00Z")));
    assert!(Cron::new(parse("@daily").unwrap().schedule, Some("Mars/Olympus")).is_err());
}

#[test]
fn missed_times_are_counted_up_to_one_hundred() {
    let every_minute = cron("* * * * *", None);
    let t0 = at("2024-03-15T10:00:00Z");
    assert_eq!(
        most_recent(&every_minute, t0, at("2024-03-15T10:00:30Z")),
        Missed {
            most_recent: None,
            too_many: false
        }
    );
    assert_eq!(
        most_recent(&every_minute, t0, at("2024-03-15T10:05:30Z")),
        Missed {
            most_recent: Some(at("2024-03-15T10:05:00Z")),
            too_many: false
        }
    );
    assert_eq!(
        most_recent(&every_minute, t0, at("2024-03-16T10:05:30Z")),
        Missed {
            most_recent: Some(at("2024-03-16T10:05:00Z")),
            too_many: true
        }
    );
}
