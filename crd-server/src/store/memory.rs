//! The in-memory store: the shared key space behind one lock. For tests and throw-away
//! servers; nothing survives the process.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;

use super::state::{Op, State};
use super::{KeyValue, ListOptions, ListResult, Revision, Store, StoreError, WatchStream};

/// How often idle watches learn the current revision (the source of bookmarks).
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// An in-memory [`Store`].
#[derive(Clone)]
pub struct MemoryStore {
    state: Arc<RwLock<State>>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// An empty store at revision 1. Inside a tokio runtime it also sends watches a
    /// progress mark every second.
    pub fn new() -> MemoryStore {
        let state = Arc::new(RwLock::new(State::new(BTreeMap::new(), 1)));
        spawn_progress(&state);
        MemoryStore { state }
    }

    /// Forgets the history up to `revision`: watches and reads from before it get
    /// [`StoreError::Compacted`] (what etcd's compaction does).
    pub fn compact(&self, revision: Revision) {
        write(&self.state).compact(revision);
    }

    fn write_op(&self, op: Op) -> Result<KeyValue, StoreError> {
        let mut state = write(&self.state);
        let event = state.prepare(&[], op)?;
        let kv = event.kv.clone();
        state.apply(vec![event]);
        Ok(kv)
    }
}

/// Sends progress marks while the state is alive (a weak handle: it stops with the store).
pub(crate) fn spawn_progress(state: &Arc<RwLock<State>>) {
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let weak = Arc::downgrade(state);
    handle.spawn(async move {
        let mut tick = tokio::time::interval(PROGRESS_INTERVAL);
        tick.tick().await;
        loop {
            tick.tick().await;
            let Some(state) = weak.upgrade() else { return };
            read(&state).progress();
        }
    });
}

// A panic while holding the lock cannot leave the state half-changed (apply does not
// fail), so a poisoned lock is still consistent.
pub(crate) fn read(state: &RwLock<State>) -> RwLockReadGuard<'_, State> {
    state.read().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn write(state: &RwLock<State>) -> RwLockWriteGuard<'_, State> {
    state.write().unwrap_or_else(|e| e.into_inner())
}

impl Store for MemoryStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<KeyValue>, StoreError>> {
        futures::future::ready(Ok(read(&self.state).get(key))).boxed()
    }

    fn list<'a>(
        &'a self,
        prefix: &'a str,
        opts: ListOptions,
    ) -> BoxFuture<'a, Result<ListResult, StoreError>> {
        futures::future::ready(read(&self.state).list(prefix, &opts)).boxed()
    }

    fn create<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        let result = self.write_op(Op::Create {
            key: key.to_string(),
            value,
        });
        futures::future::ready(result).boxed()
    }

    fn update<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
        expected: Revision,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        let result = self.write_op(Op::Update {
            key: key.to_string(),
            value,
            expected,
        });
        futures::future::ready(result).boxed()
    }

    fn delete<'a>(
        &'a self,
        key: &'a str,
        expected: Option<Revision>,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        let result = self.write_op(Op::Delete {
            key: key.to_string(),
            expected,
        });
        futures::future::ready(result).boxed()
    }

    fn watch<'a>(
        &'a self,
        prefix: &'a str,
        after: Revision,
    ) -> BoxFuture<'a, Result<WatchStream, StoreError>> {
        futures::future::ready(read(&self.state).watch(prefix, after)).boxed()
    }

    fn current_revision(&self) -> BoxFuture<'_, Result<Revision, StoreError>> {
        futures::future::ready(Ok(read(&self.state).revision())).boxed()
    }

    fn describe(&self) -> String {
        "in-memory".to_string()
    }
}
