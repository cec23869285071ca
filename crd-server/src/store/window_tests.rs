use bytes::Bytes;

use super::*;
use crate::store::{EventKind, KeyValue};

fn event(key: &str, revision: Revision) -> WatchEvent {
    WatchEvent {
        kind: EventKind::Put,
        kv: KeyValue {
            key: key.into(),
            value: Bytes::new(),
            create_revision: revision,
            mod_revision: revision,
        },
        prev: None,
    }
}

/// A window starting after `start` (bounds `bounds`) holding a write to `/r/a` at each
/// revision of `writes`, all made at `at`.
fn filled(
    start: Revision,
    bounds: (usize, usize),
    writes: std::ops::RangeInclusive<Revision>,
    at: Instant,
) -> Window {
    let mut w = Window::new(start, bounds);
    for r in writes {
        w.push(event("/r/a", r), at);
    }
    w
}

fn revisions(w: &Window, after: Revision, prefix: &str) -> Vec<Revision> {
    w.after(after, prefix).map(|e| e.kv.mod_revision).collect()
}

#[test]
fn a_revision_before_a_window_that_dropped_nothing_is_the_stores_to_answer() {
    let now = Instant::now();
    let empty = Window::new(10, (4, 8));
    assert_eq!(empty.coverage(10), Coverage::Covered);
    assert_eq!(empty.coverage(9), Coverage::Before);
    let w = filled(10, (4, 8), 11..=13, now);
    assert_eq!(revisions(&w, 11, "/r/"), vec![12, 13]);
    assert_eq!(revisions(&w, 11, "/s/"), Vec::<Revision>::new());
}

#[test]
fn fresh_events_grow_the_window_up_to_its_bound_then_the_oldest_expire() {
    let now = Instant::now();
    let mut w = filled(0, (4, 8), 1..=8, now);
    assert_eq!(
        (w.len(), w.capacity()),
        (8, 8),
        "doubled once, to the bound"
    );
    assert_eq!(w.coverage(0), Coverage::Covered);
    w.push(event("/r/a", 9), now);
    assert_eq!(w.len(), 8);
    assert_eq!(w.coverage(0), Coverage::Expired(1));
    assert_eq!(w.coverage(1), Coverage::Covered);
    assert_eq!(revisions(&w, 0, "/r/").first(), Some(&2));
}

#[test]
fn a_stale_window_shrinks() {
    let start = Instant::now();
    let mut w = filled(0, (4, 16), 1..=8, start);
    assert_eq!(w.capacity(), 8);
    // Full of events older than FRESH: the next one halves the window.
    w.push(event("/r/a", 9), start + FRESH + Duration::from_secs(1));
    assert_eq!((w.capacity(), w.len()), (4, 4));
    assert_eq!(w.coverage(4), Coverage::Expired(5));
    assert_eq!(revisions(&w, 5, "/r/"), vec![6, 7, 8, 9]);
}

#[test]
fn a_reset_expires_everything_before_it() {
    let now = Instant::now();
    let mut w = Window::new(0, CAPACITY);
    w.push(event("/r/a", 1), now);
    w.reset(5);
    assert_eq!(w.len(), 0);
    assert_eq!(w.coverage(4), Coverage::Expired(5));
    assert_eq!(w.coverage(5), Coverage::Covered);
    // A tiny window still works.
    let mut tiny = Window::new(0, (0, 0));
    tiny.push(event("/r/a", 1), now);
    tiny.push(event("/r/a", 2), now);
    assert_eq!(revisions(&tiny, 0, "/r/"), vec![2]);
}
