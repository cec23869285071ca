//! The in-process key space both local backends share: current keys, a bounded history of
//! changes for watches and past reads, and the broadcast that feeds live watches.
//!
//! Writes are split in two steps so the embedded store can make a batch durable between
//! them: [`State::prepare`] checks an operation against the current keys plus the batch
//! prepared so far and assigns its revision; [`State::apply`] publishes the batch. Only one
//! writer prepares at a time (the memory store's lock, the embedded store's committer).
//!
//! Live changes are routed by watch prefix: the watchers of one prefix share a channel,
//! and a write is sent only to the channels whose prefix it falls under. With one
//! channel for all, every write woke every follower (a fan-out hub per resource, the
//! garbage collector) just to be dropped by most of them.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::broadcast;

use super::keys::Keys;
use super::{
    EventKind, KeyValue, ListOptions, ListResult, Revision, StoreError, WatchEvent, WatchItem,
    WatchStream,
};

/// Changes kept for watches and reads at a past revision (etcd keeps ~5 minutes of
/// history by default; a count bound keeps memory predictable under load).
pub(crate) const HISTORY_LIMIT: usize = 100_000;
/// Live changes buffered per watcher before a slow one is cut off with `Compacted` (the
/// API server ends such a watch and the client re-lists). A channel allocates its buffer
/// when made: one per watched prefix, not per watcher.
const WATCH_BUFFER: usize = 16_384;

/// A write to prepare.
#[derive(Debug)]
pub enum Op {
    Create {
        key: String,
        value: Bytes,
    },
    Update {
        key: String,
        value: Bytes,
        expected: Revision,
    },
    Delete {
        key: String,
        expected: Option<Revision>,
    },
}

/// What a broadcast carries: a change or a progress mark.
pub(crate) type Broadcast = Arc<WatchItem>;

pub struct State {
    kvs: Keys,
    revision: Revision,
    history: VecDeque<WatchEvent>,
    /// Revisions up to this one are no longer in `history`.
    compacted: Revision,
    /// One channel per watched prefix. A watch subscribes under the read lock, so the
    /// routes have a lock of their own; `apply` holds the write lock and reaches them
    /// without it.
    routes: Mutex<Vec<Route>>,
}

/// The live changes under one prefix, shared by every watcher of that prefix.
struct Route {
    prefix: String,
    tx: broadcast::Sender<Broadcast>,
}

impl State {
    /// A key space at `revision` holding `kvs` (no history before it).
    pub(crate) fn new(kvs: Keys, revision: Revision) -> State {
        State {
            kvs,
            revision,
            history: VecDeque::new(),
            compacted: revision,
            routes: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn revision(&self) -> Revision {
        self.revision
    }

    pub(crate) fn get(&self, key: &str) -> Option<KeyValue> {
        // The caller's copy of the key is in cache; the stored one rarely is.
        self.kvs.get(key).map(|kv| KeyValue {
            key: key.to_string(),
            value: kv.value.clone(),
            create_revision: kv.create_revision,
            mod_revision: kv.mod_revision,
        })
    }

    /// Checks `op` against the keys as `batch` (changes prepared before it, not yet
    /// applied) leaves them, and returns its change at the next revision.
    pub(crate) fn prepare(&self, batch: &[WatchEvent], op: Op) -> Result<WatchEvent, StoreError> {
        let revision = self.revision + batch.len() as Revision + 1;
        let current = |key: &str| -> Option<KeyValue> {
            match batch.iter().rev().find(|e| e.kv.key == key) {
                Some(e) if e.kind == EventKind::Delete => None,
                Some(e) => Some(e.kv.clone()),
                None => self.kvs.get(key).cloned(),
            }
        };
        match op {
            Op::Create { key, value } => {
                if current(&key).is_some() {
                    return Err(StoreError::AlreadyExists { key });
                }
                let kv = KeyValue {
                    key,
                    value,
                    create_revision: revision,
                    mod_revision: revision,
                };
                Ok(WatchEvent {
                    kind: EventKind::Put,
                    kv,
                    prev: None,
                })
            }
            Op::Update {
                key,
                value,
                expected,
            } => {
                let prev =
                    current(&key).ok_or_else(|| StoreError::NotFound { key: key.clone() })?;
                if prev.mod_revision != expected {
                    return Err(StoreError::Conflict {
                        key,
                        expected,
                        current: prev.mod_revision,
                    });
                }
                let kv = KeyValue {
                    key,
                    value,
                    create_revision: prev.create_revision,
                    mod_revision: revision,
                };
                Ok(WatchEvent {
                    kind: EventKind::Put,
                    kv,
                    prev: Some(prev),
                })
            }
            Op::Delete { key, expected } => {
                let prev =
                    current(&key).ok_or_else(|| StoreError::NotFound { key: key.clone() })?;
                if let Some(expected) = expected.filter(|e| *e != prev.mod_revision) {
                    return Err(StoreError::Conflict {
                        key,
                        expected,
                        current: prev.mod_revision,
                    });
                }
                let kv = KeyValue {
                    mod_revision: revision,
                    ..prev.clone()
                };
                Ok(WatchEvent {
                    kind: EventKind::Delete,
                    kv,
                    prev: Some(prev),
                })
            }
        }
    }

    /// Publishes prepared changes (in order, revisions consecutive from the current one).
    pub(crate) fn apply(&mut self, batch: Vec<WatchEvent>) {
        let routes = self.routes.get_mut().unwrap_or_else(|e| e.into_inner());
        // Channels whose last watcher has gone are dropped here, under the write lock.
        routes.retain(|r| r.tx.receiver_count() > 0);
        for event in batch {
            debug_assert_eq!(event.kv.mod_revision, self.revision + 1);
            self.revision = event.kv.mod_revision;
            match event.kind {
                EventKind::Put => {
                    self.kvs.insert(event.kv.clone());
                }
                EventKind::Delete => {
                    self.kvs.remove(&event.kv.key);
                }
            }
            let mut item: Option<Broadcast> = None;
            for route in routes
                .iter()
                .filter(|r| event.kv.key.starts_with(&r.prefix))
            {
                let item = item.get_or_insert_with(|| Arc::new(WatchItem::Event(event.clone())));
                // A route whose receivers all went since the retain above is not an error.
                let _ = route.tx.send(item.clone());
            }
            self.history.push_back(event);
            if self.history.len() > HISTORY_LIMIT
                && let Some(old) = self.history.pop_front()
            {
                self.compacted = old.kv.mod_revision;
            }
        }
    }

    /// Forgets history up to `revision` (reads and watches before it get `Compacted`).
    pub(crate) fn compact(&mut self, revision: Revision) -> Result<(), StoreError> {
        if revision > self.revision {
            return Err(StoreError::FutureRevision {
                requested: revision,
                current: self.revision,
            });
        }
        while self
            .history
            .front()
            .is_some_and(|e| e.kv.mod_revision <= revision)
        {
            self.history.pop_front();
        }
        self.compacted = self.compacted.max(revision);
        Ok(())
    }

    /// Tells live watchers that nothing else happened up to the current revision.
    pub(crate) fn progress(&self) {
        let item = Arc::new(WatchItem::Progress(self.revision));
        for route in self.routes().iter() {
            let _ = route.tx.send(item.clone());
        }
    }

    fn routes(&self) -> std::sync::MutexGuard<'_, Vec<Route>> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A receiver of the live changes under `prefix` (joining its route, or opening one).
    fn subscribe(&self, prefix: &str) -> broadcast::Receiver<Broadcast> {
        let mut routes = self.routes();
        if let Some(route) = routes.iter().find(|r| r.prefix == prefix) {
            return route.tx.subscribe();
        }
        let (tx, rx) = broadcast::channel(WATCH_BUFFER);
        routes.push(Route {
            prefix: prefix.to_string(),
            tx,
        });
        rx
    }

    pub(crate) fn list(&self, prefix: &str, opts: &ListOptions) -> Result<ListResult, StoreError> {
        let at = opts.revision.unwrap_or(self.revision);
        if at > self.revision {
            return Err(StoreError::FutureRevision {
                requested: at,
                current: self.revision,
            });
        }
        let lower = match &opts.start_after {
            Some(after) if after.as_str() >= prefix => std::ops::Bound::Excluded(after.as_str()),
            _ => std::ops::Bound::Included(prefix),
        };
        let limit = opts.limit.unwrap_or(usize::MAX);
        if at == self.revision {
            let mut range = self
                .kvs
                .from(lower)
                .take_while(|kv| kv.key.starts_with(prefix));
            let items: Vec<KeyValue> = range.by_ref().take(limit).cloned().collect();
            let remaining = range.count() as u64;
            return Ok(ListResult {
                items,
                revision: at,
                remaining,
            });
        }
        if at < self.compacted {
            return Err(StoreError::Compacted {
                requested: at,
                oldest: self.compacted + 1,
            });
        }
        // Undo the changes after `at`, newest first, on the keys in range.
        let mut past: HashMap<&str, Option<&KeyValue>> = HashMap::new();
        for event in self
            .history
            .iter()
            .rev()
            .take_while(|e| e.kv.mod_revision > at)
        {
            if event.kv.key.starts_with(prefix) {
                past.insert(&event.kv.key, event.prev.as_ref());
            }
        }
        let mut keys: BTreeMap<&str, &KeyValue> = self
            .kvs
            .from(std::ops::Bound::Included(prefix))
            .take_while(|kv| kv.key.starts_with(prefix))
            .map(|kv| (kv.key.as_str(), kv))
            .collect();
        for (key, old) in past {
            match old {
                Some(kv) => keys.insert(key, kv),
                None => keys.remove(key),
            };
        }
        let mut range = keys
            .into_iter()
            .filter(|(k, _)| match &opts.start_after {
                Some(after) => *k > after.as_str(),
                None => true,
            })
            .map(|(_, v)| v.clone());
        let items: Vec<KeyValue> = range.by_ref().take(limit).collect();
        let remaining = range.count() as u64;
        Ok(ListResult {
            items,
            revision: at,
            remaining,
        })
    }

    /// A watch of `prefix` after `after`: the kept history, then live changes.
    pub(crate) fn watch(&self, prefix: &str, after: Revision) -> Result<WatchStream, StoreError> {
        if after > self.revision {
            return Err(StoreError::FutureRevision {
                requested: after,
                current: self.revision,
            });
        }
        if after < self.compacted {
            return Err(StoreError::Compacted {
                requested: after,
                oldest: self.compacted + 1,
            });
        }
        // Subscribed under the same lock as the history read: nothing falls in between.
        let rx = self.subscribe(prefix);
        let backlog: Vec<Result<WatchItem, StoreError>> = self
            .history
            .iter()
            .filter(|e| e.kv.mod_revision > after && e.kv.key.starts_with(prefix))
            .map(|e| Ok(WatchItem::Event(e.clone())))
            .collect();
        let oldest = self.compacted + 1;
        let live = futures::stream::unfold(rx, move |mut rx| async move {
            match rx.recv().await {
                // Its route carries only changes under the prefix.
                Ok(item) => Some((Ok((*item).clone()), rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // The watcher fell too far behind: end it as etcd ends a watch on a
                    // compacted revision; the client re-lists.
                    let err = StoreError::Compacted {
                        requested: after,
                        oldest,
                    };
                    Some((Err(err), rx))
                }
                Err(broadcast::error::RecvError::Closed) => None,
            }
        });
        // After a lag error the stream must end: take_while stops after the first error.
        let mut failed = false;
        let live = live.take_while(move |item| {
            let go = !failed;
            failed |= item.is_err();
            futures::future::ready(go)
        });
        Ok(futures::stream::iter(backlog).chain(live).boxed())
    }
}

#[cfg(test)]
#[path = "keyspace_tests.rs"]
mod tests;
