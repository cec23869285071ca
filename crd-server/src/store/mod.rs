//! Storage: one small trait, the shape of the API server's `storage.Interface` without
//! its object decoding. Backends store opaque bytes under string keys; everything that
//! knows about objects, schemas and resources lives above this module.
//!
//! The contract every backend keeps (and the shared test suite checks):
//! - Revisions are global and strictly increasing: every successful write (create, update,
//!   delete) gets a revision greater than any revision seen before, across all keys.
//!   `resourceVersion` is the decimal text of a key's `mod_revision`.
//! - A write is acknowledged only once it is durable for the backend (on disk for the
//!   embedded store, committed by the cluster for etcd).
//! - `update` and `delete` with an expected revision are compare-and-swap: they fail with
//!   [`StoreError::Conflict`] when the key's `mod_revision` differs, never overwrite.
//! - `watch(prefix, after)` delivers, in revision order and exactly once, every change to a
//!   key under `prefix` with a revision greater than `after`, or fails with
//!   [`StoreError::Compacted`] when that history is no longer kept.
//! - `compact(revision)` forgets the history before `revision` as etcd's compaction does:
//!   the state at `revision` and every change after it stay readable, reads and watches
//!   from before it fail with [`StoreError::Compacted`] ([`compactor`] runs it on
//!   kube-apiserver's schedule).

pub mod compactor;
mod embedded;
pub mod etcd;
mod fanout;
mod keys;
mod keyspace;
mod local;
mod memory;
#[doc(hidden)]
pub mod suite;
#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
mod window;

pub use embedded::Committer;
pub use embedded::EmbeddedStore;
pub use etcd::EtcdStore;
pub use fanout::FanOut;
pub use local::{LocalStore, Writes};
pub use memory::Direct;
pub use memory::MemoryStore;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::BoxStream;

/// A store revision (etcd's revision; the embedded store's commit counter).
pub type Revision = u64;

/// One key with its value and revisions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyValue {
    /// The key, e.g. `/registry/stable.example.com/crontabs/default/daily`.
    pub key: String,
    /// The stored bytes (a JSON object for every key crd-server writes).
    pub value: Bytes,
    /// Revision of the write that created the key.
    pub create_revision: Revision,
    /// Revision of the last write to the key (for a deletion event: the deletion's).
    pub mod_revision: Revision,
}

/// Options of [`Store::list`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// At most this many keys (`None`: all).
    pub limit: Option<usize>,
    /// Only keys greater than this one (the continue position of a paginated list).
    pub start_after: Option<String>,
    /// Read the state as of this revision (`None`: the latest). Fails with
    /// [`StoreError::Compacted`] when that state is no longer kept.
    pub revision: Option<Revision>,
}

/// The answer of [`Store::list`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListResult {
    /// Keys under the prefix in ascending key order.
    pub items: Vec<KeyValue>,
    /// The revision the list was read at.
    pub revision: Revision,
    /// Keys under the prefix after the last item that `limit` left out (0 when complete).
    pub remaining: u64,
}

/// What happened to a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Created or updated.
    Put,
    /// Deleted.
    Delete,
}

/// One change seen by a watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchEvent {
    /// Put or delete.
    pub kind: EventKind,
    /// The key after the change; for a deletion the last value, with `mod_revision`
    /// set to the deletion's revision.
    pub kv: KeyValue,
    /// The value before the change (`None` for a creation).
    pub prev: Option<KeyValue>,
}

/// An item of a watch stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchItem {
    /// A change.
    Event(WatchEvent),
    /// No change under the prefix up to this revision (the source of BOOKMARK events).
    Progress(Revision),
}

/// A watch: items in revision order; it ends when the store shuts down.
pub type WatchStream = BoxStream<'static, Result<WatchItem, StoreError>>;

/// Why a store operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No such key.
    #[error("key {key:?} not found")]
    NotFound {
        /// The key.
        key: String,
    },
    /// `create` of a key that exists.
    #[error("key {key:?} already exists")]
    AlreadyExists {
        /// The key.
        key: String,
    },
    /// Compare-and-swap failed: the key is at another revision.
    #[error("key {key:?} is at revision {current}, not the expected {expected}")]
    Conflict {
        /// The key.
        key: String,
        /// The revision the caller expected.
        expected: Revision,
        /// The key's current `mod_revision`.
        current: Revision,
    },
    /// History at `requested` is no longer kept (`oldest` is the oldest revision that is).
    #[error("revision {requested} has been compacted (oldest kept: {oldest})")]
    Compacted {
        /// The revision asked for.
        requested: Revision,
        /// The oldest revision still available.
        oldest: Revision,
    },
    /// A revision in the future of the store.
    #[error("revision {requested} is newer than the store's {current}")]
    FutureRevision {
        /// The revision asked for.
        requested: Revision,
        /// The store's current revision.
        current: Revision,
    },
    /// The backend cannot be reached or failed (I/O, etcd down, timeout).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
}

/// What every [`Store`] call returns: a boxed future of its result.
pub type StoreFuture<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

/// A key-value store with revisions, compare-and-swap and watch.
///
/// Object-safe (boxed futures) so the server holds an `Arc<dyn Store>` chosen at start-up.
pub trait Store: Send + Sync + 'static {
    /// The key's current value.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<KeyValue>>;

    /// Keys starting with `prefix`, in key order.
    fn list<'a>(&'a self, prefix: &'a str, opts: ListOptions) -> StoreFuture<'a, ListResult>;

    /// Creates `key`; [`StoreError::AlreadyExists`] when it exists.
    fn create<'a>(&'a self, key: &'a str, value: Bytes) -> StoreFuture<'a, KeyValue>;

    /// Replaces `key` if its `mod_revision` is `expected` ([`StoreError::Conflict`]
    /// otherwise, [`StoreError::NotFound`] when it does not exist).
    fn update<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
        expected: Revision,
    ) -> StoreFuture<'a, KeyValue>;

    /// Deletes `key` (if at `expected`, when given); returns its last value with
    /// `mod_revision` set to the deletion's revision.
    fn delete<'a>(&'a self, key: &'a str, expected: Option<Revision>) -> StoreFuture<'a, KeyValue>;

    /// Changes under `prefix` with revisions greater than `after`.
    fn watch<'a>(&'a self, prefix: &'a str, after: Revision) -> StoreFuture<'a, WatchStream>;

    /// The latest revision.
    fn current_revision(&self) -> StoreFuture<'_, Revision>;

    /// Forgets the history before `revision` (etcd's compaction): reads at and watches
    /// from an older revision fail with [`StoreError::Compacted`]; the state at
    /// `revision` and the changes after it are kept. Compacting to a revision at or
    /// before one already compacted is not an error; a revision in the future is
    /// ([`StoreError::FutureRevision`]).
    fn compact(&self, revision: Revision) -> StoreFuture<'_, ()>;

    /// What the start-up line prints after `store:` (e.g. `embedded ./crd-server-data`).
    fn describe(&self) -> String;
}
