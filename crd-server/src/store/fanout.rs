//! One backend watch per resource, shared by all of its watchers (what kube-apiserver's
//! watch cache does): a hub follows `/registry/{group}/{resource}/` from the backend,
//! keeps a window of its recent events (`window.rs`), and hands each watcher the events after its
//! revision under its own (namespace) prefix. A thousand `kubectl get -w` cost the
//! backend one watch.
//!
//! What a watch can resume from is what kube-apiserver's watch cache allows: any
//! revision the window covers; a revision the window dropped, or one from before the
//! server started (its [floor](FanOut::set_floor)), fails with [`StoreError::Compacted`]
//! (the API's 410 Expired). A revision from before a hub existed (the hub starts with its
//! first watcher) gets its own backend watch, as long as the backend's history has it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use futures::{FutureExt, StreamExt};
use tokio::sync::broadcast;

use super::window::{CAPACITY, Coverage, Window};
use super::{
    KeyValue, ListOptions, ListResult, Revision, Store, StoreError, StoreFuture, WatchItem,
    WatchStream,
};

/// Items buffered per watcher before a slow one is cut off (it re-lists).
const HUB_BUFFER: usize = 16_384;

struct HubState {
    window: Window,
    failed: bool,
}

struct Hub {
    state: Mutex<HubState>,
    tx: broadcast::Sender<Arc<WatchItem>>,
}

/// A [`Store`] whose watches share one backend watch per resource.
pub struct FanOut {
    inner: Arc<dyn Store>,
    hubs: Mutex<HashMap<String, Arc<Hub>>>,
    /// The hubs' backend watches, aborted with the FanOut: each holds a backend
    /// stream, which holds the backend open.
    followers: Mutex<Vec<tokio::task::AbortHandle>>,
    /// A watch from before this revision is expired.
    floor: AtomicU64,
    /// Bumped to end every open watch ([`FanOut::restart`]).
    epoch: tokio::sync::watch::Sender<u64>,
    /// The least and the most events a hub's window keeps.
    window: (usize, usize),
}

impl Drop for FanOut {
    fn drop(&mut self) {
        for task in lock(&self.followers).drain(..) {
            task.abort();
        }
    }
}

/// The resource a watch prefix belongs to: the first three path segments
/// (`/registry/stable.example.com/crontabs/` of `.../crontabs/default/`).
fn hub_prefix(prefix: &str) -> String {
    let mut slashes = prefix.match_indices('/').map(|(i, _)| i);
    match slashes.nth(3) {
        Some(end) => prefix[..=end].to_string(),
        None => prefix.to_string(),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl FanOut {
    /// Wraps a backend; each resource's window holds 100 to 102,400 events, as
    /// kube-apiserver's watch cache does.
    pub fn new(inner: Arc<dyn Store>) -> FanOut {
        Self::with_window(inner, CAPACITY.1)
    }

    /// Wraps a backend, each resource's window holding at most `events` (and at least
    /// 100, or `events` when fewer).
    pub fn with_window(inner: Arc<dyn Store>, events: usize) -> FanOut {
        FanOut {
            inner,
            hubs: Mutex::new(HashMap::new()),
            followers: Mutex::new(Vec::new()),
            floor: AtomicU64::new(0),
            epoch: tokio::sync::watch::channel(0).0,
            window: (CAPACITY.0.min(events), events),
        }
    }

    /// Expires every revision before `revision` (at least): the server calls it with
    /// the revision it started at, as kube-apiserver's watch cache starts from a list
    /// at that revision.
    pub fn set_floor(&self, revision: Revision) {
        self.floor.fetch_max(revision, Ordering::Relaxed);
    }

    /// What a watch cache that re-lists at `revision` does: every window is emptied, a
    /// watch from before `revision` is expired from now on, and every open watch ends
    /// (its client resumes from the last revision it saw, or re-lists on 410 Expired).
    pub fn restart(&self, revision: Revision) {
        self.set_floor(revision);
        for hub in lock(&self.hubs).values() {
            lock(&hub.state).window.reset(revision);
        }
        self.epoch.send_modify(|e| *e += 1);
    }

    /// The events each resource's window holds now, by hub prefix.
    pub fn window_sizes(&self) -> Vec<(String, usize)> {
        let mut sizes: Vec<(String, usize)> = lock(&self.hubs)
            .iter()
            .map(|(p, h)| (p.clone(), lock(&h.state).window.len()))
            .collect();
        sizes.sort();
        sizes
    }

    /// Whether a watch of `prefix` spans every resource (`/registry/`, the garbage
    /// collector's). It is no resource's watch cache and shares nothing with their
    /// watchers: it reads the backend's own watch, so that no hub keeps a copy of
    /// the store's recent writes for it nor wakes for each write on its behalf (its
    /// follower reads in batches); one that falls behind resumes from the backend's
    /// history or re-lists.
    fn spans_resources(prefix: &str) -> bool {
        prefix.matches('/').count() < 3
    }

    /// `stream`, ended by the next [`FanOut::restart`] (or with the FanOut).
    fn ending(&self, stream: WatchStream) -> WatchStream {
        let mut epoch = self.epoch.subscribe();
        stream
            .take_until(async move {
                let _ = epoch.changed().await;
            })
            .boxed()
    }

    async fn hub(&self, prefix: &str) -> Result<Arc<Hub>, StoreError> {
        if let Some(hub) = lock(&self.hubs)
            .get(prefix)
            .filter(|h| !lock(&h.state).failed)
        {
            return Ok(hub.clone());
        }
        let start = self.inner.current_revision().await?;
        let mut events = self.inner.watch(prefix, start).await?;
        let (tx, _) = broadcast::channel(HUB_BUFFER);
        let hub = Arc::new(Hub {
            state: Mutex::new(HubState {
                window: Window::new(start, self.window),
                failed: false,
            }),
            tx,
        });
        let mut hubs = lock(&self.hubs);
        if let Some(existing) = hubs.get(prefix).filter(|h| !lock(&h.state).failed) {
            return Ok(existing.clone()); // another watcher made one meanwhile
        }
        hubs.insert(prefix.to_string(), hub.clone());
        drop(hubs);
        let follower = Arc::downgrade(&hub);
        let task = tokio::spawn(async move {
            while let Some(item) = events.next().await {
                let Some(hub) = follower.upgrade() else {
                    return;
                };
                let mut state = lock(&hub.state);
                match item {
                    Ok(WatchItem::Event(e)) => {
                        state.window.push(e.clone(), Instant::now());
                        let _ = hub.tx.send(Arc::new(WatchItem::Event(e)));
                    }
                    Ok(progress) => {
                        let _ = hub.tx.send(Arc::new(progress));
                    }
                    Err(_) => break,
                }
            }
            // The backend watch ended: watchers end too (they re-list); the next watch
            // makes a new hub.
            if let Some(hub) = follower.upgrade() {
                lock(&hub.state).failed = true;
            }
        });
        let mut followers = lock(&self.followers);
        followers.retain(|t| !t.is_finished());
        followers.push(task.abort_handle());
        drop(followers);
        Ok(hub)
    }
}

impl Store for FanOut {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<KeyValue>> {
        self.inner.get(key)
    }

    fn list<'a>(&'a self, prefix: &'a str, opts: ListOptions) -> StoreFuture<'a, ListResult> {
        self.inner.list(prefix, opts)
    }

    fn create<'a>(&'a self, key: &'a str, value: Bytes) -> StoreFuture<'a, KeyValue> {
        self.inner.create(key, value)
    }

    fn update<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
        expected: Revision,
    ) -> StoreFuture<'a, KeyValue> {
        self.inner.update(key, value, expected)
    }

    fn delete<'a>(&'a self, key: &'a str, expected: Option<Revision>) -> StoreFuture<'a, KeyValue> {
        self.inner.delete(key, expected)
    }

    fn watch<'a>(&'a self, prefix: &'a str, after: Revision) -> StoreFuture<'a, WatchStream> {
        async move {
            let floor = self.floor.load(Ordering::Relaxed);
            if after < floor {
                return Err(StoreError::Compacted {
                    requested: after,
                    oldest: floor + 1,
                });
            }
            // `None`: the backend's own watch serves it.
            let subscribed = if Self::spans_resources(prefix) {
                None
            } else {
                let hub = self.hub(&hub_prefix(prefix)).await?;
                let state = lock(&hub.state);
                match state.window.coverage(after) {
                    _ if state.failed => None,
                    Coverage::Before => None,
                    Coverage::Expired(kept_after) => {
                        return Err(StoreError::Compacted {
                            requested: after,
                            oldest: kept_after + 1,
                        });
                    }
                    Coverage::Covered => {
                        let backlog: Vec<Result<WatchItem, StoreError>> = state
                            .window
                            .after(after, prefix)
                            .map(|e| Ok(WatchItem::Event(e.clone())))
                            .collect();
                        Some((backlog, hub.tx.subscribe()))
                    }
                }
            };
            let Some((backlog, rx)) = subscribed else {
                let own = self.inner.watch(prefix, after).await?;
                return Ok(self.ending(own));
            };
            // Shared with each step of the stream: a clone per event costs no copy.
            let prefix: Arc<str> = Arc::from(prefix);
            let live = futures::stream::unfold((rx, false), move |(mut rx, done)| {
                let prefix = prefix.clone();
                async move {
                    if done {
                        return None;
                    }
                    loop {
                        match rx.recv().await {
                            Ok(item) => match &*item {
                                WatchItem::Event(e) if e.kv.mod_revision <= after => {}
                                // Another namespace's change: nothing changed under this
                                // prefix up to its revision (what bookmarks report).
                                WatchItem::Event(e) if !e.kv.key.starts_with(&*prefix) => {
                                    let progress = WatchItem::Progress(e.kv.mod_revision);
                                    return Some((Ok(progress), (rx, false)));
                                }
                                WatchItem::Progress(r) if *r < after => {}
                                _ => return Some((Ok((*item).clone()), (rx, false))),
                            },
                            Err(broadcast::error::RecvError::Lagged(_)) => {
                                let err = StoreError::Compacted {
                                    requested: after,
                                    oldest: after + 1,
                                };
                                return Some((Err(err), (rx, true)));
                            }
                            Err(broadcast::error::RecvError::Closed) => return None,
                        }
                    }
                }
            });
            Ok(self.ending(futures::stream::iter(backlog).chain(live).boxed()))
        }
        .boxed()
    }

    fn current_revision(&self) -> StoreFuture<'_, Revision> {
        self.inner.current_revision()
    }

    fn compact(&self, revision: Revision) -> StoreFuture<'_, ()> {
        self.inner.compact(revision)
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

#[cfg(test)]
#[path = "fanout_tests.rs"]
mod tests;
