//! Following a key prefix of the store as client-go's informers follow a resource:
//! list, then watch from the list's revision; when the watch breaks (compaction, an
//! etcd restart) list again and report what changed meanwhile, deletions included, so
//! a controller's view never misses an event for good.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::{FutureExt, StreamExt};
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

/// What an informer remembers of each key between relists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The last value: a deletion found by a relist reports it.
    Values,
    /// Revisions only (a follower that keeps its own slim view, such as the garbage
    /// collector's graph): a deletion found by a relist reports the key with an empty
    /// value (so does the `prev` of a change a relist finds), and no stored value
    /// outlives the event that carried it.
    Revisions,
}

/// What an informer keeps of a key (the key itself is the map's). The value is boxed:
/// an informer that keeps revisions only pays a pointer for it, one per key.
struct Kept {
    value: Option<Box<bytes::Bytes>>,
    create_revision: Revision,
    mod_revision: Revision,
}

impl Kept {
    fn into_key_value((key, kept): (Box<str>, Kept)) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: kept.value.map_or_else(bytes::Bytes::new, |v| *v),
            create_revision: kept.create_revision,
            mod_revision: kept.mod_revision,
        }
    }
}

/// Follows `prefix`, sending every change to `tx`, until the receiver goes away.
pub async fn follow(store: Arc<dyn Store>, prefix: String, tx: mpsc::UnboundedSender<Change>) {
    follow_keeping(store, prefix, Keep::Values, Duration::ZERO, tx).await
}

/// [`follow`], remembering of each key what `keep` says. With a `pace`, the informer
/// waits that long whenever it has caught up, so that a busy store's events gather and
/// it (and its receiver) wake once a batch, not once a write: for a follower of the
/// whole store, such as the garbage collector, whose work is not urgent to the
/// millisecond.
pub async fn follow_keeping(
    store: Arc<dyn Store>,
    prefix: String,
    keep: Keep,
    pace: Duration,
    tx: mpsc::UnboundedSender<Change>,
) {
    // Last seen per key: a relist reports the keys it no longer finds as deleted.
    let remember = |kv: &KeyValue| Kept {
        value: match keep {
            Keep::Values => Some(Box::new(kv.value.clone())),
            Keep::Revisions => None,
        },
        create_revision: kv.create_revision,
        mod_revision: kv.mod_revision,
    };
    let mut known: HashMap<Box<str>, Kept> = HashMap::new();
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
        let mut fresh: HashMap<Box<str>, Kept> = HashMap::with_capacity(listed.items.len());
        for kv in listed.items {
            let prev = known
                .remove_entry(kv.key.as_str())
                .map(Kept::into_key_value);
            let (key, kept) = (kv.key.as_str().into(), remember(&kv));
            if prev.as_ref().map(|p| p.mod_revision) != Some(kv.mod_revision)
                && tx.send(Change::Put { kv, prev }).is_err()
            {
                return;
            }
            fresh.insert(key, kept);
        }
        for gone in known.drain().map(Kept::into_key_value) {
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
        loop {
            let item = match events.next().now_or_never() {
                Some(ready) => ready,
                None => {
                    if !pace.is_zero() {
                        tokio::time::sleep(pace).await;
                    }
                    events.next().await
                }
            };
            let Some(item) = item else {
                break;
            };
            let change = match item {
                Ok(WatchItem::Event(e)) => match e.kind {
                    EventKind::Put => {
                        // An update keeps the key's copy.
                        let kept = remember(&e.kv);
                        match known.get_mut(e.kv.key.as_str()) {
                            Some(k) => *k = kept,
                            None => {
                                known.insert(e.kv.key.as_str().into(), kept);
                            }
                        }
                        Change::Put {
                            kv: e.kv,
                            prev: e.prev,
                        }
                    }
                    EventKind::Delete => {
                        known.remove(e.kv.key.as_str());
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
        lists_then_watches_keeping(Keep::Values, Duration::ZERO).await;
        // Paced, the same changes in the same order.
        lists_then_watches_keeping(Keep::Revisions, Duration::from_millis(20)).await;
    }

    async fn lists_then_watches_keeping(keep: Keep, pace: Duration) {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        store.create("/registry/a/x", "1".into()).await.unwrap();
        store.create("/registry/b/y", "2".into()).await.unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(follow_keeping(
            store.clone(),
            "/registry/a/".into(),
            keep,
            pace,
            tx,
        ));
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
