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
    let friday = "2024-03-15T10:07:30Z";
    // (schedule, after, the next time)
    let cases = [
        ("*/5 * * * *", friday, Some("2024-03-15T10:10:00Z")),
        ("@hourly", friday, Some("2024-03-15T11:00:00Z")),
        ("@daily", friday, Some("2024-03-16T00:00:00Z")),
        ("@weekly", friday, Some("2024-03-17T00:00:00Z")),
        ("@monthly", friday, Some("2024-04-01T00:00:00Z")),
        ("@yearly", friday, Some("2025-01-01T00:00:00Z")),
        ("0 9 * * mon-fri", friday, Some("2024-03-18T09:00:00Z")),
        // Day of month OR day of week when neither is `*`: the 20th, or a Monday.
        ("0 0 20 * mon", friday, Some("2024-03-18T00:00:00Z")),
        // February 30th never comes.
        ("0 0 30 2 *", friday, None),
        ("@every 90s", friday, Some("2024-03-15T10:09:00Z")),
        // The exact time is not "after".
        (
            "0 * * * *",
            "2024-03-15T10:00:00Z",
            Some("2024-03-15T11:00:00Z"),
        ),
    ];
    for (spec, after, next) in cases {
        assert_eq!(cron(spec, None).next(at(after)), next.map(at), "{spec}");
    }
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
    // (now, the most recent time missed since t0, whether over a hundred were)
    let cases = [
        ("2024-03-15T10:00:30Z", None, false),
        ("2024-03-15T10:05:30Z", Some("2024-03-15T10:05:00Z"), false),
        ("2024-03-16T10:05:30Z", Some("2024-03-16T10:05:00Z"), true),
    ];
    for (now, recent, too_many) in cases {
        assert_eq!(
            most_recent(&every_minute, t0, at(now)),
            Missed {
                most_recent: recent.map(at),
                too_many
            },
            "{now}"
        );
    }
}
