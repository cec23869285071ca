//! The JSON of objects as a kind's version last answered them, keyed by storage key and
//! revision: a GET whose object is still at that revision is answered with the bytes,
//! without decoding, coercing and encoding it again. Exact by construction — the
//! answer is a function of the stored bytes (fixed by the revision) and of the kind,
//! and a kind's cache goes with the kind when its CRD changes. Bounded in bytes, the
//! oldest entries go first.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bytes::Bytes;

use crate::store::Revision;

/// How many bytes of JSON one kind's version keeps.
pub const BUDGET: usize = 16 * 1024 * 1024;

#[derive(Default)]
struct Inner {
    entries: HashMap<String, (Revision, Bytes)>,
    /// Keys in insertion order (each once), for eviction.
    order: VecDeque<String>,
    bytes: usize,
}

/// See the module docs.
pub struct ReadCache {
    inner: Mutex<Inner>,
    budget: usize,
}

impl ReadCache {
    /// An empty cache holding at most `budget` bytes of JSON.
    pub fn new(budget: usize) -> ReadCache {
        ReadCache {
            inner: Mutex::new(Inner::default()),
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Entries are replaced whole: a panic elsewhere cannot leave one half-written.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The JSON of `key` at `revision`, if that is what the cache holds.
    pub fn get(&self, key: &str, revision: Revision) -> Option<Bytes> {
        let inner = self.lock();
        match inner.entries.get(key) {
            Some((r, json)) if *r == revision => Some(json.clone()),
            _ => None,
        }
    }

    /// Keeps the JSON of `key` at `revision` (replacing an older one).
    pub fn put(&self, key: &str, revision: Revision, json: Bytes) {
        if json.len() > self.budget {
            return;
        }
        let mut inner = self.lock();
        let added = json.len();
        match inner.entries.insert(key.to_string(), (revision, json)) {
            Some((_, old)) => inner.bytes -= old.len(),
            None => inner.order.push_back(key.to_string()),
        }
        inner.bytes += added;
        while inner.bytes > self.budget {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some((_, json)) = inner.entries.remove(&oldest) {
                inner.bytes -= json.len();
            }
        }
    }

    /// Forgets `key` (its object is gone).
    pub fn remove(&self, key: &str) {
        let mut inner = self.lock();
        if let Some((_, json)) = inner.entries.remove(key) {
            inner.bytes -= json.len();
            inner.order.retain(|k| k != key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_only_the_revision_it_holds_and_stays_in_budget() {
        let cache = ReadCache::new(10);
        cache.put("/a", 1, Bytes::from_static(b"aaaa"));
        assert_eq!(cache.get("/a", 1).as_deref(), Some(&b"aaaa"[..]));
        assert_eq!(cache.get("/a", 2), None, "another revision is a miss");
        cache.put("/a", 2, Bytes::from_static(b"aaaaa"));
        assert_eq!(cache.get("/a", 1), None, "replaced");
        cache.put("/b", 3, Bytes::from_static(b"bbbb"));
        cache.put("/c", 4, Bytes::from_static(b"cccc"));
        assert_eq!(cache.get("/a", 2), None, "the oldest went to make room");
        assert!(cache.get("/b", 3).is_some() && cache.get("/c", 4).is_some());
        cache.remove("/b");
        assert_eq!(cache.get("/b", 3), None);
        cache.put("/big", 5, Bytes::from(vec![0; 11]));
        assert_eq!(
            cache.get("/big", 5),
            None,
            "larger than the budget: not kept"
        );
        assert!(cache.get("/c", 4).is_some());
    }
}
