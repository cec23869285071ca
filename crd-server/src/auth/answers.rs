//! The answers a webhook gave, kept for a while (the token and authorization webhooks'
//! caches): each answer with the time it came, fresh as long as the TTL its caller
//! gives it; expired answers are swept out once the cache has grown large.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many answers a cache holds before the expired ones are swept out.
const SWEEP_AT: usize = 4096;

/// Answers by key.
pub struct Answers<K, V> {
    /// No answer lives longer than this (what a sweep drops).
    longest: Duration,
    entries: Mutex<HashMap<K, (Instant, V)>>,
}

impl<K: Eq + Hash, V: Clone> Answers<K, V> {
    /// An empty cache whose answers live at most `longest`.
    pub fn new(longest: Duration) -> Self {
        Answers {
            longest,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The answer kept for `key`, if it is younger than the TTL `ttl_of` gives it.
    pub fn get(&self, key: &K, ttl_of: impl Fn(&V) -> Duration) -> Option<V> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (at, value) = entries.get(key)?;
        (at.elapsed() < ttl_of(value)).then(|| value.clone())
    }

    /// Keeps `value` as the answer for `key` from now.
    pub fn insert(&self, key: K, value: V) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= SWEEP_AT {
            let longest = self.longest;
            entries.retain(|_, (at, _)| at.elapsed() < longest);
        }
        entries.insert(key, (Instant::now(), value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_fresh_for_the_ttl_its_caller_gives() {
        let answers = Answers::new(Duration::from_secs(60));
        answers.insert("a", true);
        assert_eq!(answers.get(&"a", |_| Duration::from_secs(60)), Some(true));
        assert_eq!(answers.get(&"a", |_| Duration::ZERO), None);
        assert_eq!(answers.get(&"b", |_| Duration::from_secs(60)), None);
    }
}
