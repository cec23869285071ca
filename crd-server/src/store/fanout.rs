//! One backend watch per resource, shared by all of its watchers (what kube-apiserver's
//! watch cache does): a hub follows `/registry/{group}/{resource}/` from the backend,
//! keeps its recent events, and hands each watcher the events after its revision under
//! its own (namespace) prefix. A thousand `kubectl get -w` cost the backend one watch;
//! a watcher older than the hub's history gets its own backend watch (and the backend's
//! `Compacted` when that history is gone too).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use tokio::sync::broadcast;

use super::{
    KeyValue, ListOptions, ListResult, Revision, Store, StoreError, WatchEvent, WatchItem,
    WatchStream,
};

/// Events a hub keeps for watchers that start behind it.
const HUB_HISTORY: usize = 10_000;
/// Items buffered per watcher before a slow one is cut off (it re-lists).
const HUB_BUFFER: usize = 16_384;

struct HubState {
    events: VecDeque<WatchEvent>,
    /// Every event after this revision is in `events` (or was sent before a watcher came).
    complete_after: Revision,
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
    /// Wraps a backend.
    pub fn new(inner: Arc<dyn Store>) -> FanOut {
        FanOut {
            inner,
            hubs: Mutex::new(HashMap::new()),
            followers: Mutex::new(Vec::new()),
        }
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
                events: VecDeque::new(),
                complete_after: start,
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
                        state.events.push_back(e.clone());
                        if state.events.len() > HUB_HISTORY
                            && let Some(old) = state.events.pop_front()
                        {
                            state.complete_after = old.kv.mod_revision;
                        }
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
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<KeyValue>, StoreError>> {
        self.inner.get(key)
    }

    fn list<'a>(
        &'a self,
        prefix: &'a str,
        opts: ListOptions,
    ) -> BoxFuture<'a, Result<ListResult, StoreError>> {
        self.inner.list(prefix, opts)
    }

    fn create<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        self.inner.create(key, value)
    }

    fn update<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
        expected: Revision,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        self.inner.update(key, value, expected)
    }

    fn delete<'a>(
        &'a self,
        key: &'a str,
        expected: Option<Revision>,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        self.inner.delete(key, expected)
    }

    fn watch<'a>(
        &'a self,
        prefix: &'a str,
        after: Revision,
    ) -> BoxFuture<'a, Result<WatchStream, StoreError>> {
        async move {
            let hub = self.hub(&hub_prefix(prefix)).await?;
            let subscribed = {
                let state = lock(&hub.state);
                if state.failed || after < state.complete_after {
                    None
                } else {
                    let backlog: Vec<Result<WatchItem, StoreError>> = state
                        .events
                        .iter()
                        .filter(|e| e.kv.mod_revision > after && e.kv.key.starts_with(prefix))
                        .map(|e| Ok(WatchItem::Event(e.clone())))
                        .collect();
                    Some((backlog, hub.tx.subscribe()))
                }
            };
            let Some((backlog, rx)) = subscribed else {
                return self.inner.watch(prefix, after).await;
            };
            let prefix = prefix.to_string();
            let live = futures::stream::unfold((rx, false), move |(mut rx, done)| {
                let prefix = prefix.clone();
                async move {
                    if done {
                        return None;
                    }
                    loop {
                        match rx.recv().await {
                            Ok(item) => match &*item {
                                WatchItem::Event(e)
                                    if e.kv.mod_revision <= after
                                        || !e.kv.key.starts_with(&prefix) => {}
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
            Ok(futures::stream::iter(backlog).chain(live).boxed())
        }
        .boxed()
    }

    fn current_revision(&self) -> BoxFuture<'_, Result<Revision, StoreError>> {
        self.inner.current_revision()
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use crate::store::suite::check_contract;

    #[tokio::test]
    async fn fan_out_keeps_the_contract() {
        check_contract(&FanOut::new(Arc::new(MemoryStore::new())), "/registry/g/r").await;
    }

    #[test]
    fn watches_share_the_resource_hub() {
        assert_eq!(
            hub_prefix("/registry/stable.example.com/crontabs/default/"),
            "/registry/stable.example.com/crontabs/"
        );
        assert_eq!(hub_prefix("/registry/namespaces/"), "/registry/namespaces/");
    }
}
