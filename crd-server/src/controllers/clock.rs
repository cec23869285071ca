//! The controllers' clock: the wall clock plus an offset a test can move forward
//! ([`Clock::advance`]), so that a CronJob's next schedule, a Job's deadline, a
//! Deployment's progress deadline or a finished Job's TTL come at once instead of after
//! minutes. Controllers that wait for a time subscribe to [`Clock::moved`] and look
//! again when it moves.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use tokio::sync::watch;

/// The server's clock, shared by its controllers (cheap to clone).
#[derive(Clone)]
pub struct Clock {
    inner: Arc<Inner>,
}

struct Inner {
    offset: Mutex<TimeDelta>,
    moved: watch::Sender<u64>,
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("offset", &self.offset())
            .finish()
    }
}

impl Clock {
    /// The wall clock (no offset).
    pub fn new() -> Clock {
        Clock {
            inner: Arc::new(Inner {
                offset: Mutex::new(TimeDelta::zero()),
                moved: watch::channel(0).0,
            }),
        }
    }

    fn offset(&self) -> TimeDelta {
        *self.inner.offset.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Now, as the controllers see it.
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.offset()
    }

    /// Now as the API writes timestamps (RFC 3339, seconds).
    pub fn timestamp(&self) -> String {
        self.now().to_rfc3339_opts(SecondsFormat::Secs, true)
    }

    /// Moves the clock forward by `by`; the controllers waiting for a time look again.
    pub fn advance(&self, by: Duration) {
        let by = TimeDelta::from_std(by).unwrap_or(TimeDelta::MAX);
        {
            let mut offset = self.inner.offset.lock().unwrap_or_else(|e| e.into_inner());
            *offset = offset.checked_add(&by).unwrap_or(TimeDelta::MAX);
        }
        self.inner.moved.send_modify(|n| *n += 1);
    }

    /// Changes each time the clock is moved.
    pub fn moved(&self) -> watch::Receiver<u64> {
        self.inner.moved.subscribe()
    }

    /// How long from now until `at` (zero when it has passed).
    pub fn until(&self, at: DateTime<Utc>) -> Duration {
        (at - self.now()).to_std().unwrap_or(Duration::ZERO)
    }
}

/// An RFC 3339 timestamp as the API writes them; `None` when it is not one.
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advancing_moves_now_and_tells_the_subscribers() {
        let clock = Clock::new();
        let moved = clock.moved();
        let before = clock.now();
        clock.advance(Duration::from_secs(3600));
        let after = clock.now();
        assert!(after - before >= TimeDelta::seconds(3600));
        assert!(moved.has_changed().unwrap());
        assert_eq!(clock.until(before), Duration::ZERO);
        assert!(clock.until(after + TimeDelta::seconds(10)) <= Duration::from_secs(10));
        assert!(clock.timestamp().ends_with('Z'));
        assert_eq!(
            parse_time("2024-01-02T03:04:05Z").map(|t| t.timestamp()),
            Some(1_704_164_645)
        );
        assert_eq!(parse_time("yesterday"), None);
    }
}
