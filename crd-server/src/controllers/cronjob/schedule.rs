//! When a CronJob runs, as robfig/cron's `SpecSchedule.Next` and the CronJob
//! controller's `utils.go` compute it: the next minute after a time whose civil time in
//! the schedule's zone matches every field (day of month and day of week combined with
//! OR unless one of them is `*`), and the most recent of the times missed since the
//! last run — more than 100 of them being "too many".

use chrono::{DateTime, TimeDelta, Utc};
use jiff::civil::DateTime as Civil;
use jiff::tz::TimeZone;

use crate::api::kinds::builtin::batch::cron::{STAR, Schedule};

/// A schedule in its zone.
pub struct Cron {
    schedule: Schedule,
    zone: TimeZone,
}

/// How far `next` looks (robfig gives up after five years too).
const YEARS: i16 = 5;

fn has(bits: u64, v: i8) -> bool {
    bits & (1u64 << (v as u32)) != 0
}

impl Cron {
    /// The schedule in `zone` (an IANA name; `None`: UTC, as kube-controller-manager
    /// runs in most clusters).
    pub fn new(schedule: Schedule, zone: Option<&str>) -> Result<Cron, String> {
        let zone = match zone {
            None => TimeZone::UTC,
            Some(name) => jiff::tz::db()
                .get(name)
                .map_err(|_| format!("unknown time zone {name}"))?,
        };
        Ok(Cron { schedule, zone })
    }

    /// `Next`: the first time after `after` the schedule fires (`None` within five
    /// years: never).
    pub fn next(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let (minute, hour, dom, month, dow) = match self.schedule {
            Schedule::Every(secs) => {
                let whole = after.timestamp();
                return DateTime::from_timestamp(whole + secs as i64, 0);
            }
            Schedule::Fields {
                minute,
                hour,
                dom,
                month,
                dow,
            } => (minute, hour, dom, month, dow),
        };
        let start = jiff::Timestamp::from_second(after.timestamp()).ok()?;
        let local = start.to_zoned(self.zone.clone()).datetime();
        let mut t = local
            .with()
            .second(0)
            .subsec_nanosecond(0)
            .build()
            .ok()?
            .checked_add(jiff::Span::new().minutes(1))
            .ok()?;
        let limit = local.year() + YEARS;
        let day_matches = |t: &Civil| {
            let d = has(dom, t.day());
            let w = has(dow, t.weekday().to_sunday_zero_offset());
            if dom & STAR != 0 || dow & STAR != 0 {
                d && w
            } else {
                d || w
            }
        };
        while t.year() <= limit {
            if !has(month, t.month()) {
                t = t
                    .first_of_month()
                    .checked_add(jiff::Span::new().months(1))
                    .ok()?;
                t = t.with().hour(0).minute(0).build().ok()?;
                continue;
            }
            if !day_matches(&t) {
                t = t
                    .date()
                    .tomorrow()
                    .ok()?
                    .to_datetime(jiff::civil::Time::midnight());
                continue;
            }
            if !has(hour, t.hour()) {
                t = t
                    .with()
                    .minute(0)
                    .build()
                    .ok()?
                    .checked_add(jiff::Span::new().hours(1))
                    .ok()?;
                continue;
            }
            if !has(minute, t.minute()) {
                t = t.checked_add(jiff::Span::new().minutes(1)).ok()?;
                continue;
            }
            // A civil time skipped or repeated by a clock change: the later instant of
            // a gap, the earlier of a fold.
            let at = self
                .zone
                .to_ambiguous_zoned(t)
                .compatible()
                .ok()?
                .timestamp();
            if at.as_second() > after.timestamp() {
                return DateTime::from_timestamp(at.as_second(), 0);
            }
            t = t.checked_add(jiff::Span::new().minutes(1)).ok()?;
        }
        None
    }
}

/// `mostRecentScheduleTime`'s answer.
#[derive(Debug, PartialEq, Eq)]
pub struct Missed {
    /// The most recent time the schedule fired at or before now, if any since
    /// `earliest`.
    pub most_recent: Option<DateTime<Utc>>,
    /// More than 100 times were missed.
    pub too_many: bool,
}

/// The times the schedule fired after `earliest` up to `now`: the most recent, and
/// whether there were more than 100.
pub fn most_recent(cron: &Cron, earliest: DateTime<Utc>, now: DateTime<Utc>) -> Missed {
    let mut most_recent = None;
    let mut t = earliest;
    for _ in 0..=100 {
        match cron.next(t) {
            Some(n) if n <= now => {
                most_recent = Some(n);
                t = n;
            }
            _ => {
                return Missed {
                    most_recent,
                    too_many: false,
                };
            }
        }
    }
    // More than 100: the last before now, found in the shortest window before now
    // that holds one (robfig's schedules repeat within a year at most).
    let mut last = most_recent;
    for days in [
        TimeDelta::hours(1),
        TimeDelta::days(1),
        TimeDelta::days(32),
        TimeDelta::days(366),
    ] {
        let mut from = (now - days).max(t);
        if cron.next(from).is_none_or(|n| n > now) {
            continue;
        }
        while let Some(n) = cron.next(from).filter(|n| *n <= now) {
            last = Some(n);
            from = n;
        }
        break;
    }
    Missed {
        most_recent: last,
        too_many: true,
    }
}
