//! The embedded durable store: redb on disk, the key space in memory for reads.
//!
//! Every write goes through one committer thread that gathers the writes waiting for it
//! into one redb transaction (group commit), commits it with redb's default immediate
//! durability (fsync), and only then publishes the changes and answers the writers. So a
//! write is acknowledged only once it is on disk, readers never see a change that could
//! still be lost, and concurrent writers share one fsync instead of queueing for one each.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock, mpsc};

use bytes::Bytes;
use futures::FutureExt;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::oneshot;

use super::keys::Keys;
use super::keyspace::{Op, State};
use super::local::{LocalStore, Writes, read, spawn_progress, write};
use super::{EventKind, KeyValue, Revision, StoreError, StoreFuture, WatchEvent};

/// key → create revision (8 bytes LE), mod revision (8 bytes LE), value.
const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
/// "revision" → the store's revision.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const DB_FILE: &str = "store.redb";
/// Writes per transaction at most: bounds the latency one fsync adds to a batch.
const MAX_BATCH: usize = 1024;

type Reply = oneshot::Sender<Result<KeyValue, StoreError>>;

/// The embedded durable [`Store`](super::Store) in a data directory.
pub type EmbeddedStore = LocalStore<Committer>;

/// Writes of the embedded store: handed to the committer thread, answered once durable.
pub struct Committer {
    requests: mpsc::Sender<(Op, Reply)>,
    dir: PathBuf,
    /// The writer thread, which owns the database.
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Closing the store closes the database: the writer thread finishes the writes
/// already sent and ends, so the data directory can be opened again right away.
impl Drop for Committer {
    fn drop(&mut self) {
        let (closed, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.requests, closed));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Writes for Committer {
    fn write(&self, _state: &Arc<RwLock<State>>, op: Op) -> StoreFuture<'static, KeyValue> {
        let (reply, answer) = oneshot::channel();
        let sent = self.requests.send((op, reply));
        async move {
            let gone = || StoreError::Unavailable("the store's writer has stopped".into());
            sent.map_err(|_| gone())?;
            answer.await.map_err(|_| gone())?
        }
        .boxed()
    }

    fn describe(&self) -> String {
        format!("embedded {}", self.dir.display())
    }
}

impl LocalStore<Committer> {
    /// Opens (or creates) the store in `dir`; fails when another process has it open.
    pub fn open(dir: &Path) -> Result<EmbeddedStore, StoreError> {
        let unavailable = |what: &str, e: &dyn std::fmt::Display| {
            StoreError::Unavailable(format!("{what} {}: {e}", dir.display()))
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| unavailable("cannot create data directory", &e))?;
        let db = Database::create(dir.join(DB_FILE))
            .map_err(|e| unavailable("cannot open the store in", &e))?;
        let (kvs, revision) = load(&db).map_err(|e| unavailable("cannot read the store in", &e))?;
        let state = Arc::new(RwLock::new(State::new(kvs, revision)));
        spawn_progress(&state);
        let (writer, requests) = mpsc::channel();
        let committer_state = state.clone();
        let thread = std::thread::Builder::new()
            .name("crd-server-store".into())
            .spawn(move || commit_loop(db, committer_state, requests))
            .map_err(|e| unavailable("cannot start the store's writer for", &e))?;
        Ok(LocalStore {
            state,
            writes: Committer {
                requests: writer,
                dir: dir.to_path_buf(),
                thread: Some(thread),
            },
        })
    }
}

fn load(db: &Database) -> Result<(Keys, Revision), redb::Error> {
    let txn = db.begin_read()?;
    let mut kvs = Keys::default();
    let revision = match txn.open_table(META) {
        Ok(meta) => meta.get("revision")?.map(|v| v.value()).unwrap_or(1),
        Err(redb::TableError::TableDoesNotExist(_)) => 1,
        Err(e) => return Err(e.into()),
    };
    match txn.open_table(KEYS) {
        Ok(table) => {
            for entry in table.iter()? {
                let (key, value) = entry?;
                let Some(kv) = decode(key.value(), value.value()) else {
                    return Err(redb::Error::Corrupted(format!(
                        "bad entry for key {:?}",
                        key.value()
                    )));
                };
                kvs.insert(kv);
            }
        }
        Err(redb::TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(e.into()),
    }
    Ok((kvs, revision))
}

fn encode(kv: &KeyValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + kv.value.len());
    out.extend_from_slice(&kv.create_revision.to_le_bytes());
    out.extend_from_slice(&kv.mod_revision.to_le_bytes());
    out.extend_from_slice(&kv.value);
    out
}

fn decode(key: &str, bytes: &[u8]) -> Option<KeyValue> {
    let create = u64::from_le_bytes(bytes.get(0..8)?.try_into().ok()?);
    let modified = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
    Some(KeyValue {
        key: key.to_string(),
        value: Bytes::copy_from_slice(&bytes[16..]),
        create_revision: create,
        mod_revision: modified,
    })
}

/// The committer: gathers waiting writes, makes them durable in one transaction, then
/// publishes and answers. Ends when the store is dropped.
fn commit_loop(db: Database, state: Arc<RwLock<State>>, requests: mpsc::Receiver<(Op, Reply)>) {
    while let Ok(first) = requests.recv() {
        let mut waiting = vec![first];
        while waiting.len() < MAX_BATCH {
            match requests.try_recv() {
                Ok(next) => waiting.push(next),
                Err(_) => break,
            }
        }
        let mut batch: Vec<WatchEvent> = Vec::with_capacity(waiting.len());
        let mut replies: Vec<(Reply, Option<Result<KeyValue, StoreError>>)> = Vec::new();
        {
            let current = read(&state);
            for (op, reply) in waiting {
                match current.prepare(&batch, op) {
                    Ok(event) => {
                        batch.push(event);
                        replies.push((reply, None));
                    }
                    Err(e) => replies.push((reply, Some(Err(e)))),
                }
            }
        }
        let outcome = if batch.is_empty() {
            Ok(())
        } else {
            persist(&db, &batch)
        };
        let mut events = batch.iter();
        let answers: Vec<(Reply, Result<KeyValue, StoreError>)> = replies
            .into_iter()
            .map(|(reply, early)| match early {
                Some(result) => (reply, result),
                None => {
                    let kv = events.next().map(|e| e.kv.clone());
                    let result = match (&outcome, kv) {
                        (Ok(()), Some(kv)) => Ok(kv),
                        (Err(e), _) => Err(StoreError::Unavailable(format!("write failed: {e}"))),
                        (Ok(()), None) => Err(StoreError::Unavailable("write lost".into())),
                    };
                    (reply, result)
                }
            })
            .collect();
        if outcome.is_ok() && !batch.is_empty() {
            write(&state).apply(batch);
        }
        for (reply, result) in answers {
            // A writer that went away (request cancelled) still had its write committed.
            let _ = reply.send(result);
        }
    }
}

fn persist(db: &Database, batch: &[WatchEvent]) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    {
        let mut keys = txn.open_table(KEYS)?;
        for event in batch {
            match event.kind {
                EventKind::Put => {
                    keys.insert(event.kv.key.as_str(), encode(&event.kv).as_slice())?;
                }
                EventKind::Delete => {
                    keys.remove(event.kv.key.as_str())?;
                }
            }
        }
        let mut meta = txn.open_table(META)?;
        if let Some(last) = batch.last() {
            meta.insert("revision", last.kv.mod_revision)?;
        }
    }
    txn.commit()?;
    Ok(())
}
