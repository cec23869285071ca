//! The background tasks that keep the registry current: one follows the stored CRDs
//! (and rebuilds the custom kinds on every change), one the namespace names. Each
//! lists, then watches from the list's revision, and starts over when the watch breaks
//! (compaction, an etcd restart).

use std::collections::HashMap;
use std::sync::{Arc, RwLock, Weak};

use futures::StreamExt;
use serde_json::Value;

use super::Registry;
use crate::api::kinds::builtin::core::namespace::NAMESPACE_PREFIX;
use crate::api::kinds::crd::CRD_PREFIX;
use crate::follow::RETRY;
use crate::store::{EventKind, ListOptions, ListResult, Revision, Store, WatchItem};

/// Follows the CRDs from `revision` (the state `crds` was listed at). Ends when the
/// registry is the only holder left, or when aborted.
pub(super) async fn crds(
    registry: Arc<Registry>,
    store: Arc<dyn Store>,
    mut revision: Revision,
    mut crds: HashMap<String, Value>,
) {
    loop {
        // A watch that cannot start from `revision` (expired by a compaction, or the
        // store unavailable) is followed by a fresh list, as a broken one is.
        let mut events = match store.watch(CRD_PREFIX, revision).await {
            Ok(w) => w,
            Err(_) => {
                tokio::time::sleep(RETRY).await;
                futures::stream::empty().boxed()
            }
        };
        while let Some(item) = events.next().await {
            match item {
                Ok(WatchItem::Event(e)) => {
                    revision = e.kv.mod_revision;
                    match e.kind {
                        EventKind::Put => {
                            if let Ok(v) =
                                crd_runtime::__private::depth::from_json_slice(&e.kv.value)
                            {
                                crds.insert(e.kv.key.clone(), v);
                            }
                        }
                        EventKind::Delete => {
                            crds.remove(&e.kv.key);
                        }
                    }
                    registry.rebuild(&crds);
                    registry.seen.send_replace(revision);
                }
                Ok(WatchItem::Progress(r)) => {
                    revision = revision.max(r);
                    registry.seen.send_replace(revision);
                }
                Err(_) => break,
            }
        }
        if Arc::strong_count(&registry) == 1 {
            return; // the server is gone
        }
        match store.list(CRD_PREFIX, ListOptions::default()).await {
            Ok(listed) => {
                crds = decoded(&listed);
                revision = listed.revision;
                registry.rebuild(&crds);
                registry.seen.send_replace(revision);
            }
            Err(_) => tokio::time::sleep(RETRY).await,
        }
    }
}

/// The stored CRDs of a list by key, those that decode (a CRD the store holds was
/// validated when written).
pub(super) fn decoded(listed: &ListResult) -> HashMap<String, Value> {
    listed
        .items
        .iter()
        .filter_map(|kv| {
            let crd = crd_runtime::__private::depth::from_json_slice(&kv.value).ok()?;
            Some((kv.key.clone(), crd))
        })
        .collect()
}

/// Whether a stored namespace is `Terminating` (what the NamespaceLifecycle admission
/// reads), decoding no more of it than its phase.
fn terminating(value: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Namespace {
        #[serde(default)]
        status: Option<Status>,
    }
    #[derive(serde::Deserialize)]
    struct Status {
        #[serde(default)]
        phase: Option<String>,
    }
    crd_runtime::__private::depth::from_json_slice::<Namespace>(value)
        .ok()
        .and_then(|n| n.status?.phase)
        .is_some_and(|p| p == "Terminating")
}

/// Keeps the namespace names current, each with whether it is terminating. Ends when
/// the map is dropped.
pub(super) async fn namespaces(store: Arc<dyn Store>, names: Weak<RwLock<HashMap<String, bool>>>) {
    let prefix = NAMESPACE_PREFIX;
    loop {
        let Ok(listed) = store.list(prefix, ListOptions::default()).await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        {
            let Some(names) = names.upgrade() else { return };
            let mut map = names.write().unwrap_or_else(|e| e.into_inner());
            map.clear();
            map.extend(listed.items.iter().filter_map(|kv| {
                let name = kv.key.strip_prefix(prefix)?;
                Some((name.to_string(), terminating(&kv.value)))
            }));
        }
        let Ok(mut events) = store.watch(prefix, listed.revision).await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        while let Some(Ok(item)) = events.next().await {
            let Some(names) = names.upgrade() else { return };
            if let WatchItem::Event(e) = item {
                let Some(name) = e.kv.key.strip_prefix(prefix) else {
                    continue;
                };
                let mut map = names.write().unwrap_or_else(|e| e.into_inner());
                match e.kind {
                    EventKind::Put => map.insert(name.to_string(), terminating(&e.kv.value)),
                    EventKind::Delete => map.remove(name),
                };
            }
        }
    }
}
