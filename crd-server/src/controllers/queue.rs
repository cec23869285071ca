//! The controllers' work queue, with client-go's guarantees: an item added while
//! queued is queued once; an item added while a worker has it is processed again after
//! that worker is done, never by two workers at once; failed items come back after a
//! per-item exponential backoff. An item waits for at most one delayed pass, and a
//! worker taking it cancels that one (the pass it starts covers it).

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// The first retry's delay; each failure doubles it (client-go's per-item limiter).
const BASE_DELAY: Duration = Duration::from_millis(5);

struct State<T> {
    ready: VecDeque<T>,
    /// Queued, or to be queued again when its worker is done.
    dirty: HashSet<T>,
    processing: HashSet<T>,
    /// Items to add at an instant (the counter keeps equal instants apart).
    later: BTreeMap<(Instant, u64), T>,
    /// Each waiting item's key in `later`.
    waiting: HashMap<T, (Instant, u64)>,
    seq: u64,
    failures: HashMap<T, u32>,
    max_delay: Duration,
}

/// The queue.
pub struct Queue<T> {
    state: Mutex<State<T>>,
    wake: Notify,
}

impl<T: Clone + Eq + Hash> State<T> {
    /// Whether the item became ready (a worker should wake).
    fn add(&mut self, item: T) -> bool {
        if !self.dirty.insert(item.clone()) || self.processing.contains(&item) {
            return false;
        }
        self.ready.push_back(item);
        true
    }

    /// Moves the items whose time has come to the ready ones.
    fn promote(&mut self, now: Instant) {
        while let Some(entry) = self.later.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let item = entry.remove();
            self.waiting.remove(&item);
            self.add(item);
        }
    }

    /// Drops the item's delayed pass, if it waits for one.
    fn cancel<Q: Eq + Hash + ?Sized>(&mut self, item: &Q)
    where
        T: Borrow<Q>,
    {
        if let Some(key) = self.waiting.remove(item) {
            self.later.remove(&key);
        }
    }

    /// Whether the item now waits until `at` (an earlier wait is kept, as client-go's).
    fn add_at(&mut self, item: T, at: Instant) -> bool {
        if self.waiting.get(&item).is_some_and(|k| k.0 <= at) {
            return false;
        }
        self.cancel(&item);
        self.seq += 1;
        let key = (at, self.seq);
        self.waiting.insert(item.clone(), key);
        self.later.insert(key, item);
        true
    }
}

/// The delay after `failures` failures in a row, at most `max`.
fn backoff(failures: u32, max: Duration) -> Duration {
    BASE_DELAY.saturating_mul(1u32 << failures.min(16)).min(max)
}

impl<T: Clone + Eq + Hash> Queue<T> {
    /// An empty queue whose retries wait at most `max_delay`.
    pub fn new(max_delay: Duration) -> Self {
        Queue {
            state: Mutex::new(State {
                ready: VecDeque::new(),
                dirty: HashSet::new(),
                processing: HashSet::new(),
                later: BTreeMap::new(),
                waiting: HashMap::new(),
                seq: 0,
                failures: HashMap::new(),
                max_delay,
            }),
            wake: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `item` (once, however often it is added before a worker takes it).
    pub fn add(&self, item: T) {
        if self.lock().add(item) {
            self.wake.notify_one();
        }
    }

    /// Queues `item` after `delay` (unless it already waits for less).
    pub fn add_after(&self, item: T, delay: Duration) {
        if self.lock().add_at(item, Instant::now() + delay) {
            // A waiting worker recomputes its deadline.
            self.wake.notify_one();
        }
    }

    /// Queues `item` again after its backoff (doubled with every failure in a row).
    pub fn retry(&self, item: T) {
        let delay = {
            let mut s = self.lock();
            let max = s.max_delay;
            let failures = s.failures.entry(item.clone()).or_insert(0);
            let delay = backoff(*failures, max);
            *failures = failures.saturating_add(1);
            delay
        };
        self.add_after(item, delay);
    }

    /// Clears the item's failures and drops its delayed pass (it needs no more work).
    pub fn forget<Q: Eq + Hash + ?Sized>(&self, item: &Q)
    where
        T: Borrow<Q>,
    {
        let mut s = self.lock();
        s.failures.remove(item);
        s.cancel(item);
    }

    /// The next item; the caller must call [`Queue::done`] with it.
    pub async fn get(&self) -> T {
        loop {
            let deadline = {
                let mut s = self.lock();
                s.promote(Instant::now());
                if let Some(item) = s.ready.pop_front() {
                    s.dirty.remove(&item);
                    s.cancel(&item);
                    s.processing.insert(item.clone());
                    let more = !s.ready.is_empty();
                    drop(s);
                    if more {
                        // Pass the wake-up on: several items may have come at once.
                        self.wake.notify_one();
                    }
                    return item;
                }
                s.later.keys().next().map(|k| k.0)
            };
            match deadline {
                Some(at) => {
                    tokio::select! {
                        _ = self.wake.notified() => {}
                        _ = tokio::time::sleep_until(at) => {}
                    }
                }
                None => self.wake.notified().await,
            }
        }
    }

    /// The worker is done with `item`; added meanwhile, it is queued again.
    pub fn done(&self, item: &T) {
        let mut s = self.lock();
        s.processing.remove(item);
        if s.dirty.contains(item) {
            s.ready.push_back(item.clone());
            drop(s);
            self.wake.notify_one();
        }
    }

    /// Items queued or waiting for a retry.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        let s = self.lock();
        s.ready.len() + s.later.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_secs(16);

    async fn next(q: &Queue<u32>) -> u32 {
        tokio::time::timeout(Duration::from_secs(5), q.get())
            .await
            .expect("an item within 5 s")
    }

    #[tokio::test]
    async fn an_item_queued_twice_is_processed_once() {
        let q = Queue::new(MAX);
        q.add(1);
        q.add(2);
        q.add(1);
        assert_eq!(q.len(), 2);
        assert_eq!(next(&q).await, 1);
        assert_eq!(next(&q).await, 2);
        assert_eq!(q.len(), 0);
    }

    #[tokio::test]
    async fn an_item_added_while_processed_comes_back_after_done() {
        let q = Queue::new(MAX);
        q.add(7);
        let item = next(&q).await;
        q.add(7);
        q.add(7);
        assert_eq!(q.len(), 0, "not handed to a second worker meanwhile");
        q.done(&item);
        assert_eq!(next(&q).await, 7);
        q.done(&7);
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn the_backoff_doubles_up_to_a_bound() {
        assert_eq!(backoff(0, MAX), BASE_DELAY);
        assert_eq!(backoff(1, MAX), BASE_DELAY * 2);
        assert_eq!(backoff(3, MAX), BASE_DELAY * 8);
        assert_eq!(backoff(30, MAX), MAX);
        assert_eq!(backoff(u32::MAX, MAX), MAX);
        let longer = Duration::from_secs(60);
        assert_eq!(backoff(13, longer), BASE_DELAY * 8192);
        assert_eq!(backoff(14, longer), longer);
    }

    #[tokio::test]
    async fn retries_come_back_later_and_forget_resets() {
        let q = Queue::new(MAX);
        q.add(3);
        let item = next(&q).await;
        let start = Instant::now();
        q.retry(item);
        q.done(&item);
        assert_eq!(q.len(), 1);
        assert_eq!(next(&q).await, 3);
        assert!(start.elapsed() >= BASE_DELAY);
        q.retry(3);
        q.done(&3);
        let start = Instant::now();
        assert_eq!(next(&q).await, 3);
        assert!(start.elapsed() >= BASE_DELAY * 2);
        q.forget(&3);
        assert!(q.lock().failures.is_empty());
    }

    #[tokio::test]
    async fn workers_share_the_items() {
        let q = std::sync::Arc::new(Queue::new(MAX));
        let mut workers = Vec::new();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..4 {
            let (q, tx) = (q.clone(), tx.clone());
            workers.push(tokio::spawn(async move {
                loop {
                    let item = q.get().await;
                    tx.send(item).unwrap();
                    q.done(&item);
                }
            }));
        }
        for i in 0..100 {
            q.add(i);
        }
        let mut seen = HashSet::new();
        while seen.len() < 100 {
            let item = tokio::time::timeout(Duration::from_secs(5), rx.recv())
                .await
                .expect("every item within 5 s")
                .unwrap();
            assert!(seen.insert(item), "{item} processed twice");
        }
        for w in workers {
            w.abort();
        }
    }

    #[tokio::test]
    async fn a_pass_covers_the_retry_waiting_for_it() {
        let q = Queue::new(MAX);
        q.retry(4);
        q.retry(4);
        assert_eq!(q.len(), 1, "one delayed pass per item");
        q.add(4);
        assert_eq!(next(&q).await, 4);
        assert_eq!(q.len(), 0, "the pass taken cancels the delayed one");
        q.done(&4);
        // The failures still count until forgotten.
        assert_eq!(q.lock().failures.get(&4), Some(&2));
    }

    #[tokio::test]
    async fn forget_drops_a_delayed_pass() {
        let q = Queue::new(MAX);
        q.add_after(5, Duration::from_secs(30));
        q.retry(6);
        q.forget(&5);
        assert_eq!(q.len(), 1);
        assert_eq!(next(&q).await, 6);
        assert_eq!(q.len(), 0);
    }

    #[tokio::test]
    async fn add_after_keeps_the_earlier_time() {
        let q = Queue::new(MAX);
        q.add_after(8, Duration::from_millis(20));
        q.add_after(8, Duration::from_secs(30));
        assert_eq!(q.len(), 1);
        let start = Instant::now();
        assert_eq!(next(&q).await, 8);
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn get_can_wait_beside_other_channels() {
        let q = Queue::new(MAX);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<u32>();
        tx.send(9).unwrap();
        // A get() dropped by select! loses nothing.
        let first = tokio::select! {
            biased;
            n = rx.recv() => n.unwrap(),
            n = q.get() => n,
        };
        assert_eq!(first, 9);
        q.add(first);
        assert_eq!(next(&q).await, 9);
    }
}
