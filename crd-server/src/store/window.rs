//! The window of recent events a resource's watch cache keeps, sized as kube-apiserver's
//! watch cache sizes its own (`storage/cacher/watch_cache.go`): it starts at 100 events,
//! doubles (up to 102,400) when it is full of events younger than 75 seconds, and halves
//! (down to 100) when even its newest quarter is older than that. A watch can resume
//! from any revision the window covers; one older than the window gets 410 Expired.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::{Revision, WatchEvent};

/// How long events are worth keeping (a little over the one-minute bookmark cadence, so
/// that a watcher's last bookmark is almost always within the window).
pub(crate) const FRESH: Duration = Duration::from_secs(75);
/// The least and the most events a window holds.
pub(crate) const CAPACITY: (usize, usize) = (100, 100 * 1024);

/// A sliding window of events in revision order.
pub(crate) struct Window {
    events: VecDeque<(WatchEvent, Instant)>,
    capacity: usize,
    bounds: (usize, usize),
    /// Every event after this revision is in `events`.
    complete_after: Revision,
    /// Whether events were dropped from the front (or the window was reset): a revision
    /// before `complete_after` is then expired, where before that it predates the window
    /// and only the store's history can tell.
    dropped: bool,
}

/// Where a watch from a revision stands against the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// The window holds every event after it.
    Covered,
    /// It predates the window (which dropped nothing yet): the store's history may hold it.
    Before,
    /// Expired: the window dropped events after it. The payload is the revision the
    /// window is complete after (the `Y` of `too old resource version: X (Y)`).
    Expired(Revision),
}

impl Window {
    /// An empty window holding everything after `start`, its capacity within `bounds`.
    pub(crate) fn new(start: Revision, bounds: (usize, usize)) -> Window {
        let lower = bounds.0.max(1);
        Window {
            events: VecDeque::with_capacity(lower),
            capacity: lower,
            bounds: (lower, bounds.1.max(lower)),
            complete_after: start,
            dropped: false,
        }
    }

    /// Adds the next event, received at `now`. Kept out of line so that a profile shows
    /// what the window costs a write (`benches/requests.rs -- N watched`).
    #[inline(never)]
    pub(crate) fn push(&mut self, event: WatchEvent, now: Instant) {
        if self.events.len() >= self.capacity {
            self.resize(now);
        }
        while self.events.len() >= self.capacity {
            self.drop_front();
        }
        self.events.push_back((event, now));
    }

    fn drop_front(&mut self) {
        if let Some((old, _)) = self.events.pop_front() {
            self.complete_after = old.kv.mod_revision;
            self.dropped = true;
        }
    }

    /// Grows a full window of fresh events, shrinks one whose newest quarter is stale.
    fn resize(&mut self, now: Instant) {
        let age = |i: usize| now.saturating_duration_since(self.events[i].1);
        let len = self.events.len();
        if age(0) < FRESH {
            self.capacity = (self.capacity * 2).min(self.bounds.1);
        } else if age(len - (self.capacity / 4).clamp(1, len)) > FRESH {
            self.capacity = (self.capacity / 2).max(self.bounds.0);
            while self.events.len() > self.capacity {
                self.drop_front();
            }
        }
    }

    /// Whether a watch from `after` can be served from the window.
    pub(crate) fn coverage(&self, after: Revision) -> Coverage {
        if after >= self.complete_after {
            Coverage::Covered
        } else if self.dropped {
            Coverage::Expired(self.complete_after)
        } else {
            Coverage::Before
        }
    }

    /// The events after `after` whose key starts with `prefix`.
    pub(crate) fn after<'a>(
        &'a self,
        after: Revision,
        prefix: &'a str,
    ) -> impl Iterator<Item = &'a WatchEvent> + 'a {
        let first = self
            .events
            .partition_point(|(e, _)| e.kv.mod_revision <= after);
        self.events
            .range(first..)
            .map(|(e, _)| e)
            .filter(move |e| e.kv.key.starts_with(prefix))
    }

    /// Forgets every event: the window is complete after `revision` only, and a watch
    /// from before it is expired (what a watch cache that re-listed at `revision` keeps).
    pub(crate) fn reset(&mut self, revision: Revision) {
        self.events.clear();
        self.complete_after = self.complete_after.max(revision);
        self.dropped = true;
    }

    /// The events held.
    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }

    /// How many events the window holds before it drops the oldest.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
