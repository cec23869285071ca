//! Following a key prefix of the store as client-go's informers follow a resource:
//! list, then watch from the list's revision; when the watch breaks (compaction, an
//! etcd restart) list again and report what changed meanwhile, deletions included, so
//! a controller's view never misses an event for good.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;

use crate::store::{EventKind, KeyValue, ListOptions, Revision, Store, WatchItem};

/// How long the informer waits before it retries a failed list or watch.
const RETRY: Duration = Duration::from_millis(200);

/// A change under the followed prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Created or updated (`prev`: the value before, when known).
    Put {
        /// The key now.
        kv: KeyValue,
        /// The key before, when the watch knew it.
        prev: Option<KeyValue>,
    },
    /// Deleted; `kv` is the last value.
    Delete(KeyValue),
    /// Everything listed so far has been reported (after the first list and every
    /// relist): the view is complete up to this revision.
    Synced(Revision),
}

/// Follows `prefix`, sending every change to `tx`, until the receiver goes away.
pub async fn follow(store: Arc<dyn Store>, prefix: String, tx: mpsc::UnboundedSender<Change>) {
    // Last value seen per key: a relist reports the keys it no longer finds as deleted.
    let mut known: HashMap<String, KeyValue> = HashMap::new();
    loop {
        let listed = match store.list(&prefix, ListOptions::default()).await {
            Ok(l) => l,
            Err(_) => {
                if tx.is_closed() {
                    return;
                }
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        let mut fresh: HashMap<String, KeyValue> = HashMap::with_capacity(listed.items.len());
        for kv in listed.items {
            let prev = known.remove(&kv.key);
            if prev.as_ref().map(|p| p.mod_revision) != Some(kv.mod_revision)
                && tx
                    .send(Change::Put {
                        kv: kv.clone(),
                        prev,
                    })
                    .is_err()
            {
                return;
            }
            fresh.insert(kv.key.clone(), kv);
        }
        for (_, gone) in known.drain() {
            if tx.send(Change::Delete(gone)).is_err() {
                return;
            }
        }
        known = fresh;
        if tx.send(Change::Synced(listed.revision)).is_err() {
            return;
        }
        let Ok(mut events) = store.watch(&prefix, listed.revision).await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        while let Some(item) = events.next().await {
            let change = match item {
                Ok(WatchItem::Event(e)) => match e.kind {
                    EventKind::Put => {
                        known.insert(e.kv.key.clone(), e.kv.clone());
                        Change::Put {
                            kv: e.kv,
                            prev: e.prev,
                        }
                    }
                    EventKind::Delete => {
                        known.remove(&e.kv.key);
                        Change::Delete(e.kv)
                    }
                },
                Ok(WatchItem::Progress(r)) => Change::Synced(r),
                Err(_) => break,
            };
            if tx.send(change).is_err() {
                return;
            }
        }
        if tx.is_closed() {
            return;
        }
        tokio::time::sleep(RETRY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    async fn next(rx: &mut mpsc::UnboundedReceiver<Change>) -> Change {
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("a change within 5 s")
            .expect("the informer runs")
    }

    #[tokio::test]
    async fn lists_then_watches() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        store.create("/registry/a/x", "1".into()).await.unwrap();
        store.create("/registry/b/y", "2".into()).await.unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(follow(store.clone(), "/registry/a/".into(), tx));
        assert!(
            matches!(next(&mut rx).await, Change::Put { kv, prev: None } if kv.key == "/registry/a/x")
        );
        assert!(matches!(next(&mut rx).await, Change::Synced(_)));
        store.create("/registry/a/z", "3".into()).await.unwrap();
        store.create("/registry/b/w", "4".into()).await.unwrap();
        store.delete("/registry/a/x", None).await.unwrap();
        let mut seen = Vec::new();
        while seen.len() < 2 {
            match next(&mut rx).await {
                Change::Put { kv, .. } => seen.push(format!("put {}", kv.key)),
                Change::Delete(kv) => seen.push(format!("delete {}", kv.key)),
                Change::Synced(_) => {}
            }
        }
        assert_eq!(seen, ["put /registry/a/z", "delete /registry/a/x"]);
        drop(rx);
        store.create("/registry/a/last", "5".into()).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the informer ends once nobody listens")
            .unwrap();
    }
}
