//! The two local stores (in-memory and embedded) share their key space, reads and watches;
//! they differ only in how a write happens ([`Writes`]).

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use bytes::Bytes;
use futures::FutureExt;

use super::keyspace::{Op, State};
use super::{KeyValue, ListOptions, ListResult, Revision, Store, StoreFuture, WatchStream};

/// How often idle watches learn the current revision (the source of bookmarks).
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// How a local store carries out a write.
pub trait Writes: Send + Sync + 'static {
    /// Prepares and applies `op` on `state`, answering once the write is as durable as
    /// the store promises.
    #[doc(hidden)]
    fn write(&self, state: &Arc<RwLock<State>>, op: Op) -> StoreFuture<'static, KeyValue>;

    /// What the start-up line prints after `store:`.
    fn describe(&self) -> String;
}

/// A store whose key space lives in this process ([`super::MemoryStore`],
/// [`super::EmbeddedStore`]).
pub struct LocalStore<W> {
    pub(crate) state: Arc<RwLock<State>>,
    pub(crate) writes: W,
}

impl<W: Writes> Store for LocalStore<W> {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<KeyValue>> {
        futures::future::ready(Ok(read(&self.state).get(key))).boxed()
    }

    fn list<'a>(&'a self, prefix: &'a str, opts: ListOptions) -> StoreFuture<'a, ListResult> {
        futures::future::ready(read(&self.state).list(prefix, &opts)).boxed()
    }

    fn create<'a>(&'a self, key: &'a str, value: Bytes) -> StoreFuture<'a, KeyValue> {
        self.writes.write(
            &self.state,
            Op::Create {
                key: key.to_string(),
                value,
            },
        )
    }

    fn update<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
        expected: Revision,
    ) -> StoreFuture<'a, KeyValue> {
        self.writes.write(
            &self.state,
            Op::Update {
                key: key.to_string(),
                value,
                expected,
            },
        )
    }

    fn delete<'a>(&'a self, key: &'a str, expected: Option<Revision>) -> StoreFuture<'a, KeyValue> {
        self.writes.write(
            &self.state,
            Op::Delete {
                key: key.to_string(),
                expected,
            },
        )
    }

    fn watch<'a>(&'a self, prefix: &'a str, after: Revision) -> StoreFuture<'a, WatchStream> {
        futures::future::ready(read(&self.state).watch(prefix, after)).boxed()
    }

    fn current_revision(&self) -> StoreFuture<'_, Revision> {
        futures::future::ready(Ok(read(&self.state).revision())).boxed()
    }

    fn compact(&self, revision: Revision) -> StoreFuture<'_, ()> {
        futures::future::ready(write(&self.state).compact(revision)).boxed()
    }

    fn describe(&self) -> String {
        self.writes.describe()
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
