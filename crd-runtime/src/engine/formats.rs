//! The string formats the API server validates (`apiextensions` supported formats,
//! checked the way kube-openapi's `strfmt` registry checks them).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveTime, TimeZone, Timelike};
use regex::Regex;

use crate::names;

/// A known string format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `bsonobjectid`
    BsonObjectId,
    /// `uri`
    Uri,
    /// `email`
    Email,
    /// `hostname`
    Hostname,
    /// `ipv4`
    Ipv4,
    /// `ipv6`
    Ipv6,
    /// `cidr`
    Cidr,
    /// `mac`
    Mac,
    /// `uuid`
    Uuid,
    /// `uuid3`
    Uuid3,
    /// `uuid4`
    Uuid4,
    /// `uuid5`
    Uuid5,
    /// `isbn`
    Isbn,
    /// `isbn10`
    Isbn10,
    /// `isbn13`
    Isbn13,
    /// `creditcard`
    CreditCard,
    /// `ssn`
    Ssn,
    /// `hexcolor`
    HexColor,
    /// `rgbcolor`
    RgbColor,
    /// `byte` (base64)
    Byte,
    /// `password` (anything)
    Password,
    /// `date`
    Date,
    /// `duration`
    Duration,
    /// `date-time`
    DateTime,
    /// `k8s-short-name` (RFC 1123 label)
    K8sShortName,
    /// `k8s-long-name` (RFC 1123 subdomain)
    K8sLongName,
}

/// The format named `name` (go-openapi normalizes names by dropping `-`).
pub fn lookup(name: &str) -> Option<Format> {
    let normalized: String = name.chars().filter(|c| *c != '-').collect();
    Some(match normalized.as_str() {
        "bsonobjectid" => Format::BsonObjectId,
        "uri" => Format::Uri,
        "email" => Format::Email,
        "hostname" => Format::Hostname,
        "ipv4" => Format::Ipv4,
        "ipv6" => Format::Ipv6,
        "cidr" => Format::Cidr,
        "mac" => Format::Mac,
        "uuid" => Format::Uuid,
        "uuid3" => Format::Uuid3,
        "uuid4" => Format::Uuid4,
        "uuid5" => Format::Uuid5,
        "isbn" => Format::Isbn,
        "isbn10" => Format::Isbn10,
        "isbn13" => Format::Isbn13,
        "creditcard" => Format::CreditCard,
        "ssn" => Format::Ssn,
        "hexcolor" => Format::HexColor,
        "rgbcolor" => Format::RgbColor,
        "byte" => Format::Byte,
        "password" => Format::Password,
        "date" => Format::Date,
        "duration" => Format::Duration,
        "datetime" => Format::DateTime,
        "k8sshortname" => Format::K8sShortName,
        "k8slongname" => Format::K8sLongName,
        _ => return None,
    })
}

fn re(p: &str) -> Regex {
    // The patterns below are constants and known to compile.
    Regex::new(p).unwrap_or_else(|e| panic!("built-in pattern {p}: {e}"))
}

static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$",
    )
});
static UUID: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    [
        re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
        re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
        re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
        re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
    ]
});
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:[^<>@\s]*<)?[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\-]+@[A-Za-z0-9\-.\[\]:]+>?$")
});
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$",
    )
});
static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    let c = r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*";
    re(&format!(r"^rgb\({c},{c},{c}\)$"))
});
static BASE64: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$|^[0-9]+\s*(?:ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$",
    )
});

impl Format {
    /// Whether `s` is valid in this format.
    pub fn check(self, s: &str) -> bool {
        match self {
            Format::BsonObjectId => s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()),
            Format::Uri => is_request_uri(s),
            Format::Email => EMAIL.is_match(s),
            Format::Hostname => {
                HOSTNAME.is_match(s) && s.len() <= 255 && s.split('.').all(|p| p.len() <= 63)
            }
            Format::Ipv4 => s.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => s.contains(':') && s.parse::<Ipv6Addr>().is_ok(),
            Format::Cidr => is_cidr(s),
            Format::Mac => is_mac(s),
            Format::Uuid => UUID[0].is_match(s),
            Format::Uuid3 => UUID[1].is_match(s),
            Format::Uuid4 => UUID[2].is_match(s),
            Format::Uuid5 => UUID[3].is_match(s),
            Format::Isbn => is_isbn10(s) || is_isbn13(s),
            Format::Isbn10 => is_isbn10(s),
            Format::Isbn13 => is_isbn13(s),
            Format::CreditCard => is_credit_card(s),
            Format::Ssn => s.len() >= 9 && s.len() <= 11 && SSN.is_match(s),
            Format::HexColor => HEX_COLOR.is_match(s),
            Format::RgbColor => RGB_COLOR.is_match(s),
            Format::Byte => BASE64.is_match(s),
            Format::Password => true,
            Format::Date => parse_date(s).is_some(),
            Format::Duration => DURATION.is_match(s),
            Format::DateTime => parse_rfc3339(s).is_some(),
            Format::K8sShortName => names::dns1123_label(s).is_empty(),
            Format::K8sLongName => names::dns1123_subdomain(s).is_empty(),
        }
    }
}

fn is_request_uri(s: &str) -> bool {
    if s.is_empty() || s.chars().any(|c| c.is_control() || c == ' ') {
        return false;
    }
    if s.starts_with('/') {
        return true;
    }
    // An absolute URI: a scheme, then `:`.
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut cs = scheme.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic())
        && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else {
        return false;
    };
    let Ok(bits) = bits.parse::<u8>() else {
        return false;
    };
    if ip.parse::<Ipv4Addr>().is_ok() {
        bits <= 32
    } else {
        ip.parse::<Ipv6Addr>().is_ok() && bits <= 128
    }
}

fn is_mac(s: &str) -> bool {
    let hex2 = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit());
    let hex4 = |p: &str| p.len() == 4 && p.bytes().all(|b| b.is_ascii_hexdigit());
    for sep in [':', '-'] {
        let parts: Vec<&str> = s.split(sep).collect();
        if matches!(parts.len(), 6 | 8 | 20) && parts.iter().all(|p| hex2(p)) {
            return true;
        }
    }
    let parts: Vec<&str> = s.split('.').collect();
    matches!(parts.len(), 3 | 4 | 10) && parts.iter().all(|p| hex4(p))
}

fn isbn_digits(s: &str) -> Vec<char> {
    s.chars().filter(|c| *c != ' ' && *c != '-').collect()
}

fn is_isbn10(s: &str) -> bool {
    let d = isbn_digits(s);
    if d.len() != 10 || !d[..9].iter().all(char::is_ascii_digit) {
        return false;
    }
    let last = match d[9] {
        'X' => 10,
        c => match c.to_digit(10) {
            Some(v) => v,
            None => return false,
        },
    };
    let sum: u32 = d[..9]
        .iter()
        .enumerate()
        .map(|(i, c)| (i as u32 + 1) * c.to_digit(10).unwrap_or(0))
        .sum::<u32>()
        + 10 * last;
    sum.is_multiple_of(11)
}

fn is_isbn13(s: &str) -> bool {
    let d = isbn_digits(s);
    if d.len() != 13 || !d.iter().all(char::is_ascii_digit) {
        return false;
    }
    let sum: u32 = d[..12]
        .iter()
        .enumerate()
        .map(|(i, c)| c.to_digit(10).unwrap_or(0) * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    (10 - sum % 10) % 10 == d[12].to_digit(10).unwrap_or(99)
}

fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    // Luhn checksum.
    let mut sum = 0;
    for (i, c) in digits.chars().rev().enumerate() {
        let mut d = c.to_digit(10).unwrap_or(0);
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// A fixed-width field of ASCII digits (no sign, no spaces).
fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The layout `YYYY-MM-DD` (ASCII digits, exactly), a real date of the proleptic
/// Gregorian calendar (as Go's `time.Parse` checks it: day within the month, 29
/// February only in leap years).
fn scan_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = i32::try_from(digits(&s[0..4])?).ok()?;
    NaiveDate::from_ymd_opt(year, digits(&s[5..7])?, digits(&s[8..10])?)
}

/// `YYYY-MM-DD` with a real calendar date: returns (year, month, day).
pub fn parse_date(s: &str) -> Option<(i64, i64, i64)> {
    let date = scan_date(s)?;
    Some((date.year().into(), date.month().into(), date.day().into()))
}

/// An RFC 3339 date-time: returns seconds since the epoch (UTC), fraction dropped.
///
/// The layout is scanned here: date, `T`/`t`/space, `hh:mm:ss`, an optional fraction,
/// then `Z`/`z` or `±hh:mm` (hours to 23, minutes to 59); ASCII only. chrono's own
/// RFC 3339 parser accepts a different set (a Unicode minus sign before the offset),
/// so it only does the calendar and clock arithmetic. A leap second (`:60`) is
/// accepted and counts as the first second of the next minute.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    // ASCII only, so the byte offsets below are character boundaries (a date-time
    // with a 4-byte character across offset 10 panicked; found by fuzzing).
    if s.len() < 20 || !s.is_ascii() {
        return None;
    }
    let (date, rest) = s.split_at(10);
    let date = scan_date(date)?;
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let b = rest.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (hour, minute, second) = (
        digits(&rest[0..2])?,
        digits(&rest[3..5])?,
        digits(&rest[6..8])?,
    );
    let leap = second == 60;
    let time = NaiveTime::from_hms_opt(hour, minute, if leap { 59 } else { second })?;
    let mut zone = &rest[8..];
    if let Some(frac) = zone.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        zone = &frac[n..];
    }
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let zb = zone.as_bytes();
            if zb.len() != 6 || !matches!(zb[0], b'+' | b'-') || zb[3] != b':' {
                return None;
            }
            let (oh, om) = (digits(&zone[1..3])?, digits(&zone[4..6])?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = i32::try_from(oh * 3600 + om * 60).ok()?;
            if zb[0] == b'-' { -o } else { o }
        }
    };
    let at = FixedOffset::east_opt(offset)?
        .from_local_datetime(&date.and_time(time))
        .single()?;
    Some(at.timestamp() + i64::from(leap))
}

/// Whether `s` is a date-time as metav1.Time writes it (`2006-01-02T15:04:05Z`: UTC,
/// whole seconds), i.e. reading and writing it again gives `s` back; without writing.
pub fn is_written_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b[10] == b'T'
        && b[19] == b'Z'
        && b[17..19] != *b"60"
        && parse_rfc3339(s).is_some()
}

/// Formats epoch seconds like Go's `time.RFC3339` in UTC (`2006-01-02T15:04:05Z`), as
/// metav1.Time writes them: a year outside 0–9999 as Go's `Format` writes it (`-0001`,
/// `10000`); `None` outside chrono's range (about ±262,000 years).
pub fn format_rfc3339(secs: i64) -> Option<String> {
    let t = DateTime::from_timestamp(secs, 0)?;
    let year = t.year();
    let sign = if year < 0 { "-" } else { "" };
    Some(format!(
        "{sign}{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        year.unsigned_abs(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_and_reject() {
        let cases: &[(&str, &str, bool)] = &[
            ("uuid", "123e4567-e89b-12d3-a456-426614174000", true),
            ("uuid", "nope", false),
            ("ipv4", "10.0.0.1", true),
            ("ipv4", "10.0.0.256", false),
            ("ipv6", "::1", true),
            ("cidr", "10.0.0.0/8", true),
            ("cidr", "10.0.0.0/33", false),
            ("mac", "00:1a:2b:3c:4d:5e", true),
            ("hostname", "example.com", true),
            ("hostname", "-bad", false),
            ("date", "2024-02-29", true),
            ("date", "2023-02-29", false),
            ("date-time", "2024-01-02T03:04:05Z", true),
            ("date-time", "2024-01-02T03:04:05.123+02:00", true),
            ("date-time", "2024-01-02", false),
            ("byte", "aGVsbG8=", true),
            ("byte", "not base64", false),
            ("isbn10", "0321751043", true),
            ("isbn13", "978-0321751041", true),
            ("creditcard", "4111 1111 1111 1111", true),
            ("ssn", "123-45-6789", true),
            ("hexcolor", "#fff", true),
            ("rgbcolor", "rgb(255, 0, 0)", true),
            ("duration", "1h30m", true),
            ("duration", "3 days", true),
            ("duration", "soon", false),
            ("email", "a@b.com", true),
            ("email", "nope", false),
            ("uri", "https://example.com/x", true),
            ("uri", "not a uri", false),
            ("k8s-short-name", "a-", false),
            ("k8s-long-name", "a.b", true),
            ("bsonobjectid", "507f1f77bcf86cd799439011", true),
        ];
        for (name, value, ok) in cases {
            let f = lookup(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(f.check(value), *ok, "{name} {value}");
        }
        assert!(lookup("made-up").is_none());
    }

    #[test]
    fn rfc3339_round_trip() {
        let t = parse_rfc3339("2024-01-02T03:04:05.5+01:00").unwrap();
        assert_eq!(format_rfc3339(t).as_deref(), Some("2024-01-02T02:04:05Z"));
        assert_eq!(format_rfc3339(0).as_deref(), Some("1970-01-01T00:00:00Z"));
    }

    /// The layouts accepted and the arithmetic (pinned when chrono took over the
    /// calendar: a differential run of 2 million generated strings against the
    /// hand-written version agreed on every acceptance and every timestamp).
    #[test]
    fn rfc3339_layouts_and_arithmetic() {
        let epoch = |s: &str| parse_rfc3339(s);
        for (good, seconds) in [
            ("1970-01-01T00:00:00Z", 0),
            ("1970-01-01t00:00:00z", 0),
            ("1970-01-01 00:00:00Z", 0),
            ("1970-01-01T01:30:00+01:30", 0),
            ("1969-12-31T23:00:00.999999999999-01:00", 0),
            // A leap second counts as the next minute's first second.
            ("1970-01-01T00:00:60Z", 60),
            ("2000-02-29T00:00:00Z", 951_782_400),
            ("0000-02-29T00:00:00Z", -62_162_121_600),
            ("9999-12-31T23:59:59-23:59", 253_402_387_139),
        ] {
            assert_eq!(epoch(good), Some(seconds), "{good}");
        }
        for bad in [
            "1900-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-01-02T24:00:00Z",
            "2024-01-02T00:60:00Z",
            "2024-01-02T00:00:61Z",
            "2024-01-02T00:00:00",
            "2024-01-02T00:00:00.Z",
            "2024-01-02T00:00:00+24:00",
            "2024-01-02T00:00:00+01:60",
            "2024-01-02T00:00:00+0100",
            "2024-01-02T00:00:00\u{2212}01:00",
            "2024-01-02x00:00:00Z",
            "+024-01-02T00:00:00Z",
            "2024-1-02T00:00:00Z",
        ] {
            assert_eq!(epoch(bad), None, "{bad}");
        }
        assert_eq!(parse_date("0000-02-29"), Some((0, 2, 29)));
        assert_eq!(parse_date("2100-02-29"), None);
        assert_eq!(parse_date("2024-13-01"), None);
    }

    #[test]
    fn utc_seconds_are_written_as_metav1_time_writes_them() {
        let written = |s: &str| parse_rfc3339(s).and_then(format_rfc3339);
        assert_eq!(
            written("2024-05-01T10:00:00.123456+02:00").as_deref(),
            Some("2024-05-01T08:00:00Z")
        );
        // Years outside 0-9999 after the offset, as Go's Format writes them.
        assert_eq!(
            written("0000-01-01T00:00:00+00:01").as_deref(),
            Some("-0001-12-31T23:59:00Z")
        );
        assert_eq!(
            written("9999-12-31T23:59:59-00:01").as_deref(),
            Some("10000-01-01T00:00:59Z")
        );
        assert_eq!(format_rfc3339(i64::MAX), None);
    }

    #[test]
    fn the_written_form_is_what_reading_and_writing_gives_back() {
        for s in [
            "2024-05-01T10:00:00Z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2024-05-01T10:00:60Z",
            "2024-05-01t10:00:00Z",
            "2024-05-01 10:00:00Z",
            "2024-05-01T10:00:00z",
            "2024-05-01T10:00:00.0Z",
            "2024-05-01T10:00:00+00:00",
            "2024-02-30T10:00:00Z",
            "2024-05-01T10:00:0\u{e9}",
            "",
        ] {
            let round_trip = parse_rfc3339(s).and_then(format_rfc3339);
            assert_eq!(
                is_written_rfc3339(s),
                round_trip.as_deref() == Some(s),
                "{s}"
            );
        }
    }

    /// Found by the `engine_admit` fuzz target (FUZZING.md): a 4-byte character
    /// across byte offset 10 made the date/time split panic.
    #[test]
    fn non_ascii_date_times_are_invalid_not_a_panic() {
        for value in [
            "2024-01-0\u{5222c}T00:00:00Z",
            "2024-01-02T\u{e9}0:00:00Z",
            "\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}",
        ] {
            assert_eq!(parse_rfc3339(value), None, "{value}");
            assert!(!lookup("date-time").unwrap().check(value), "{value}");
        }
    }
}
