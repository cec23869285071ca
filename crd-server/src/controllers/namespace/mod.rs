//! The namespace controller, as kube-controller-manager's: a namespace marked for
//! deletion (`deletionTimestamp`, phase `Terminating`) is emptied — every namespaced
//! object of every served kind deleted, each honouring its own finalizers — and then
//! released by removing `kubernetes` from its `spec.finalizers`, after which the server
//! removes it ([`deleter`]). The conditions it keeps meanwhile are in [`conditions`].
//!
//! It follows the namespaces with an informer. While objects in a namespace wait on
//! their finalizers it watches the prefixes they are stored under and passes again as
//! soon as one changes, instead of upstream's timed re-check (kept only as a slow
//! fallback); a failed pass is retried after a doubling back-off.

mod conditions;
mod deleter;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::client::Client;
use super::informer::{self, Change};
use super::queue::Queue;
use crate::api::kinds::builtin::core::namespace::NAMESPACE_PREFIX;
use crate::api::state::Shared;
use crate::store::{KeyValue, Revision, Store, WatchItem};
use deleter::Outcome;

/// The manager the controller's writes are recorded as.
const MANAGER: &str = "kube-controller-manager";

/// The longest a namespace waiting on finalizers goes without a pass even when no
/// change is seen (kube-controller-manager's re-check: half its 15 s estimate, plus 1).
const RECHECK: Duration = Duration::from_secs(8);

/// The longest back-off after failed passes (it doubles from 5 ms, client-go's per-item
/// limiter).
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Runs the namespace controller until aborted.
pub async fn run(shared: Arc<Shared>) {
    let (tx, changes) = mpsc::unbounded_channel();
    let follow = informer::follow(shared.store.clone(), NAMESPACE_PREFIX.to_string(), tx);
    let client =
        Client::new(shared, MANAGER).acting_as(super::identity::controller("namespace-controller"));
    let controller = Controller::new(client);
    // One task: aborting it stops the informer and, by dropping the controller, the
    // watches it holds.
    tokio::select! {
        _ = follow => {}
        _ = controller.run(changes) => {}
    }
}

/// Whether a stored namespace has a `deletionTimestamp`, decoding nothing else.
fn deleting(kv: &KeyValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Namespace {
        #[serde(default)]
        metadata: Meta,
    }
    #[derive(Default, serde::Deserialize)]
    struct Meta {
        #[serde(default, rename = "deletionTimestamp")]
        deletion_timestamp: Option<String>,
    }
    crd_runtime::__private::depth::from_json_slice::<Namespace>(&kv.value)
        .ok()
        .and_then(|n| n.metadata.deletion_timestamp)
        .is_some()
}

/// Sends `name` once anything changes under `prefix` after `after` (or the watch
/// cannot be had or ends: the next pass sets up another).
async fn wake_on_change(
    store: Arc<dyn Store>,
    prefix: String,
    after: Revision,
    name: String,
    wake: mpsc::UnboundedSender<String>,
) {
    if let Ok(mut events) = store.watch(&prefix, after).await {
        while let Some(Ok(WatchItem::Progress(_))) = events.next().await {}
    }
    let _ = wake.send(name);
}

struct Controller {
    client: Client,
    /// Namespaces to pass over, each at most once: now, after a back-off or at the
    /// re-check.
    queue: Queue<String>,
    /// The watches over the content each namespace waits on.
    watches: HashMap<String, Vec<AbortHandle>>,
    wake: mpsc::UnboundedSender<String>,
    woken: Option<mpsc::UnboundedReceiver<String>>,
}

impl Drop for Controller {
    fn drop(&mut self) {
        for handles in self.watches.values() {
            handles.iter().for_each(AbortHandle::abort);
        }
    }
}

impl Controller {
    fn new(client: Client) -> Controller {
        let (wake, woken) = mpsc::unbounded_channel();
        Controller {
            client,
            queue: Queue::new(MAX_BACKOFF),
            watches: HashMap::new(),
            wake,
            woken: Some(woken),
        }
    }

    async fn run(mut self, mut changes: mpsc::UnboundedReceiver<Change>) {
        let Some(mut woken) = self.woken.take() else {
            return;
        };
        loop {
            // Queued namespaces first, then the news.
            tokio::select! {
                biased;
                name = self.queue.get() => {
                    self.pass(&name).await;
                    self.queue.done(&name);
                }
                change = changes.recv() => match change {
                    Some(c) => self.observe(c),
                    None => return,
                },
                Some(name) = woken.recv() => self.queue.add(name),
            }
        }
    }

    /// A namespace changed: one being deleted is passed over (kube-controller-manager
    /// waits 5 s first for other API servers' admission to see the deletion; here the
    /// admission follows the same store the controller does).
    fn observe(&mut self, change: Change) {
        match change {
            Change::Put { kv, .. } => {
                let Some(name) = kv.key.strip_prefix(NAMESPACE_PREFIX) else {
                    return;
                };
                if deleting(&kv) {
                    self.queue.add(name.to_string());
                } else {
                    self.forget(name);
                }
            }
            Change::Delete(kv) => {
                if let Some(name) = kv.key.strip_prefix(NAMESPACE_PREFIX) {
                    self.forget(name);
                }
            }
            Change::Synced(_) => {}
        }
    }

    /// Drops what is kept about a namespace that is gone or no longer being deleted.
    fn forget(&mut self, name: &str) {
        self.stop_watching(name);
        self.queue.forget(name);
    }

    fn stop_watching(&mut self, name: &str) {
        for h in self.watches.remove(name).unwrap_or_default() {
            h.abort();
        }
    }

    /// One pass (the queue has dropped the one it was due for, if any).
    async fn pass(&mut self, name: &str) {
        self.stop_watching(name);
        match deleter::sync(&self.client, name).await {
            Outcome::Done => self.queue.forget(name),
            Outcome::Waiting(prefixes) => {
                self.queue.forget(name);
                let store = self.client.shared().store.clone();
                let handles = prefixes
                    .into_iter()
                    .map(|(prefix, after)| {
                        let task = wake_on_change(
                            store.clone(),
                            prefix,
                            after,
                            name.to_string(),
                            self.wake.clone(),
                        );
                        tokio::spawn(task).abort_handle()
                    })
                    .collect();
                self.watches.insert(name.to_string(), handles);
                self.queue.add_after(name.to_string(), RECHECK);
            }
            Outcome::Failed(_) => self.queue.retry(name.to_string()),
        }
    }
}
