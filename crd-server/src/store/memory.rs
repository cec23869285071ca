//! The in-memory store: the shared key space behind one lock. For tests and throw-away
//! servers; nothing survives the process.

use std::sync::{Arc, RwLock};

use futures::FutureExt;

use super::keys::Keys;
use super::keyspace::{Op, State};
use super::local::{LocalStore, Writes, spawn_progress, write};
use super::{KeyValue, StoreFuture};

/// An in-memory [`Store`](super::Store).
pub type MemoryStore = LocalStore<Direct>;

/// Writes of the in-memory store: applied under the lock, nothing to make durable.
pub struct Direct;

impl Writes for Direct {
    fn write(&self, state: &Arc<RwLock<State>>, op: Op) -> StoreFuture<'static, KeyValue> {
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
        let state = Arc::new(RwLock::new(State::new(Keys::default(), 1)));
        spawn_progress(&state);
        LocalStore {
            state,
            writes: Direct,
        }
    }
}
