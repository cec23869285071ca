//! A CronJob's schedule parsed as `cron.ParseStandard` (robfig/cron v3) parses it,
//! with its error texts: five fields or a descriptor, ranges, steps and names. The
//! validation keeps the error; the CronJob controller the [`Schedule`] (each field's
//! values as bits, with robfig's "star" bit for `*` and `?`).

/// One field's bounds and names.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [&'static str],
    /// The number of the first name.
    first_name: u64,
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const FIELDS: [Bounds; 5] = [
    Bounds {
        min: 0,
        max: 59,
        names: &[],
        first_name: 0,
    },
    Bounds {
        min: 0,
        max: 23,
        names: &[],
        first_name: 0,
    },
    Bounds {
        min: 1,
        max: 31,
        names: &[],
        first_name: 0,
    },
    Bounds {
        min: 1,
        max: 12,
        names: &MONTHS,
        first_name: 1,
    },
    Bounds {
        min: 0,
        max: 6,
        names: &DAYS,
        first_name: 0,
    },
];

/// `mustParseInt`.
fn parse_int(expr: &str) -> Result<u64, String> {
    let n: i64 = expr.parse().map_err(|_| {
        format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {}: invalid syntax",
            crd_runtime::__private::go::quote(expr)
        )
    })?;
    if n < 0 {
        return Err(format!("negative number ({n}) not allowed: {expr}"));
    }
    Ok(n as u64)
}

fn parse_int_or_name(expr: &str, b: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    match b.names.iter().position(|n| *n == lower) {
        Some(i) => Ok(i as u64 + b.first_name),
        None => parse_int(expr),
    }
}

/// robfig's `starBit`: the field was `*` or `?` (which changes how the two day fields
/// combine).
pub const STAR: u64 = 1 << 63;

/// A parsed schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// The five fields' values as bits (bit `n` for value `n`, plus [`STAR`]).
    Fields {
        minute: u64,
        hour: u64,
        dom: u64,
        month: u64,
        dow: u64,
    },
    /// `@every DURATION` (whole seconds, at least one).
    Every(u64),
}

/// A schedule and the zone its `TZ=` / `CRON_TZ=` prefix names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub zone: Option<String>,
    pub schedule: Schedule,
}

/// `getRange`: the field part's values as bits.
fn range(expr: &str, b: &Bounds) -> Result<u64, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = range_and_step[0].split('-').collect();
    let mut extra = 0;
    let (start, mut end) = if low_high[0] == "*" || low_high[0] == "?" {
        extra = STAR;
        (b.min, b.max)
    } else {
        let start = parse_int_or_name(low_high[0], b)?;
        match low_high.len() {
            1 => (start, start),
            2 => (start, parse_int_or_name(low_high[1], b)?),
            _ => return Err(format!("too many hyphens: {expr}")),
        }
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = parse_int(range_and_step[1])?;
            if low_high.len() == 1 {
                end = b.max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            b.min
        ));
    }
    if end > b.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            b.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok((start..=end)
        .step_by(step as usize)
        .fold(extra, |bits, v| bits | 1 << v))
}

/// A Go duration (`time.ParseDuration`) for `@every`, in nanoseconds.
fn go_duration(s: &str) -> Option<f64> {
    let (negative, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, scale) = [
            ("ns", 1.0),
            ("us", 1e3),
            ("µs", 1e3),
            ("μs", 1e3),
            ("ms", 1e6),
            ("s", 1e9),
            ("m", 60e9),
            ("h", 3600e9),
        ]
        .into_iter()
        .find(|(u, _)| rest.starts_with(u))?;
        rest = &rest[unit.len()..];
        total += number * scale;
    }
    Some(if negative { -total } else { total })
}

/// `cron.ParseStandard(spec)`: the error text when it does not parse.
pub fn parse_standard(spec: &str) -> Result<(), String> {
    parse(spec).map(|_| ())
}

/// `cron.ParseStandard(spec)`: the schedule, or the error text.
pub fn parse(spec: &str) -> Result<Parsed, String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec;
    let mut zone = None;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let i = spec.find(' ').unwrap_or(spec.len());
        zone = spec[..i].split_once('=').map(|(_, z)| z.to_string());
        spec = spec[i..].trim();
    }
    let fields = |text: &str| -> Result<Schedule, String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(format!(
                "expected exactly 5 fields, found {}: [{}]",
                fields.len(),
                fields.join(" ")
            ));
        }
        let mut bits = [0u64; 5];
        for ((field, bounds), out) in fields.iter().zip(&FIELDS).zip(&mut bits) {
            for part in field.split(',') {
                *out |= range(part, bounds)?;
            }
        }
        Ok(Schedule::Fields {
            minute: bits[0],
            hour: bits[1],
            dom: bits[2],
            month: bits[3],
            dow: bits[4],
        })
    };
    let schedule = if let Some(descriptor) = spec.strip_prefix('@') {
        match descriptor {
            "yearly" | "annually" => fields("0 0 1 1 *")?,
            "monthly" => fields("0 0 1 * *")?,
            "weekly" => fields("0 0 * * 0")?,
            "daily" | "midnight" => fields("0 0 * * *")?,
            "hourly" => fields("0 * * * *")?,
            d if d.starts_with("every ") => {
                let duration = &spec["@every ".len()..];
                let Some(ns) = go_duration(duration) else {
                    return Err(format!(
                        "failed to parse duration {spec}: time: invalid duration {}",
                        crd_runtime::__private::go::quote(duration)
                    ));
                };
                // `Every`: below a second runs every second; whole seconds.
                Schedule::Every(((ns / 1e9).floor() as u64).max(1))
            }
            _ => return Err(format!("unrecognized descriptor: {spec}")),
        }
    } else {
        fields(spec)?
    };
    Ok(Parsed { zone, schedule })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_parse_like_robfig_cron() {
        for ok in [
            "*/5 * * * *",
            "0 0 1 jan mon",
            "@hourly",
            "@every 1h30m",
            "0-30/10 1,2 ? * *",
        ] {
            assert_eq!(parse_standard(ok), Ok(()), "{ok}");
        }
        for (bad, error) in [
            ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
            ("70 * * * *", "end of range (70) above maximum (59): 70"),
            (
                "x * * * *",
                "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax",
            ),
            ("@sometimes", "unrecognized descriptor: @sometimes"),
        ] {
            assert_eq!(parse_standard(bad).unwrap_err(), error, "{bad}");
        }
    }

    #[test]
    fn schedules_become_bits_with_the_star_bit() {
        let Schedule::Fields {
            minute, dom, dow, ..
        } = parse("*/15 * 1,15 * mon-wed").unwrap().schedule
        else {
            panic!("fields");
        };
        assert_eq!(minute, 1 | 1 << 15 | 1 << 30 | 1 << 45);
        assert_eq!(dom, 1 << 1 | 1 << 15);
        assert_eq!(dow, 0b1110);
        let Schedule::Fields { minute, hour, .. } = parse("@hourly").unwrap().schedule else {
            panic!("fields");
        };
        assert_eq!((minute, hour & STAR), (1, STAR));
        assert_eq!(
            parse("@every 1h30m").unwrap().schedule,
            Schedule::Every(5400)
        );
        assert_eq!(parse("@every 10ms").unwrap().schedule, Schedule::Every(1));
        let tz = parse("CRON_TZ=Europe/Paris 0 9 * * *").unwrap();
        assert_eq!(tz.zone.as_deref(), Some("Europe/Paris"));
    }
}
