//! The two local stores (in-memory and embedded) share their key space, reads and watches;
//! they differ only in how a write happens ([`Writes`]).

use std::sync::{Arc, RwLock};

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;

use super::memory::read;
use super::state::{Op, State};
use super::{KeyValue, ListOptions, ListResult, Revision, Store, StoreError, WatchStream};

/// How a local store carries out a write.
pub trait Writes: Send + Sync + 'static {
    /// Prepares and applies `op` on `state`, answering once the write is as durable as
    /// the store promises.
    #[doc(hidden)]
    fn write(
        &self,
        state: &Arc<RwLock<State>>,
        op: Op,
    ) -> BoxFuture<'static, Result<KeyValue, StoreError>>;

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
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        self.writes.write(
            &self.state,
            Op::Update {
                key: key.to_string(),
                value,
                expected,
            },
        )
    }

    fn delete<'a>(
        &'a self,
        key: &'a str,
        expected: Option<Revision>,
    ) -> BoxFuture<'a, Result<KeyValue, StoreError>> {
        self.writes.write(
            &self.state,
            Op::Delete {
                key: key.to_string(),
                expected,
            },
        )
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
        self.writes.describe()
    }
}
