//! The in-memory store: the shared key space behind one lock. For tests and throw-away
//! servers; nothing survives the process.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::local::{LocalStore, Writes};
use super::state::{Op, State};
use super::{KeyValue, Revision, StoreError};

/// How often idle watches learn the current revision (the source of bookmarks).
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// An in-memory [`Store`](super::Store).
pub type MemoryStore = LocalStore<Direct>;

/// Writes of the in-memory store: applied under the lock, nothing to make durable.
pub struct Direct;

impl Writes for Direct {
    fn write(
        &self,
        state: &Arc<RwLock<State>>,
        op: Op,
    ) -> BoxFuture<'static, Result<KeyValue, StoreError>> {
        let result = (|| {
            let mut state = write(state);
            let event = state.prepare(&[], op)?;
            let kv = event.kv.clone();
            state.apply(vec![event]);
            Ok(kv)
        })();
        futures::future::ready(result).boxed()
    }

    fn describe(&self) -> String {
        "in-memory".to_string()
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalStore<Direct> {
    /// An empty store at revision 1. Inside a tokio runtime it also sends watches a
    /// progress mark every second.
    pub fn new() -> MemoryStore {
        let state = Arc::new(RwLock::new(State::new(BTreeMap::new(), 1)));
        spawn_progress(&state);
        LocalStore {
            state,
            writes: Direct,
        }
    }

    /// Forgets the history up to `revision`: watches and reads from before it get
    /// [`StoreError::Compacted`] (what etcd's compaction does).
    pub fn compact(&self, revision: Revision) {
        write(&self.state).compact(revision);
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
