//! The garbage collector, as kube-controller-manager's: objects whose owners are all
//! gone are deleted; an owner deleted in the foreground waits for its blocking
//! dependents; an orphaning owner has its references removed from its dependents.
//!
//! One informer follows the whole store; its events build the dependency graph
//! ([`graph`]) and queue work (dedup, backoff: [`Queue`]) for a few workers, which act
//! through the API ([`attempt`], [`orphan`]) with uid preconditions. Nothing polls: a
//! worker runs on an event or on the retry of a failed attempt. All state is rebuilt
//! from the store on start, so a replica taking over mid-cascade finishes it.

mod attempt;
mod graph;
mod orphan;
mod refs;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::client::Client;
use super::informer::{self, Change};
use super::queue::Queue;
use crate::api::kinds::Resource;
use crate::api::kinds::crd::CRD_PREFIX;
use crate::api::state::Shared;
use crate::store::KeyValue;
use graph::{Action, Graph};
use refs::{Identity, OwnerRef, Uid, read_meta};

/// The name events and `managedFields` give the garbage collector.
const COMPONENT: &str = "garbage-collector-controller";
/// Attempts running at once.
const WORKERS: usize = 8;
/// The longest a failed attempt waits for its retry.
const MAX_RETRY: Duration = Duration::from_secs(16);
/// How long the informer lets events gather once it has caught up: the collector
/// follows every write of the store, and waking for each one cost more CPU than the
/// work (BENCHMARKS.md, what the controllers cost); a cascade is not urgent to the
/// millisecond.
const PACE: Duration = Duration::from_millis(2);

/// A unit of work.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Item {
    /// attemptToDelete: collect the object of this uid, or finish its foreground deletion.
    Delete(Uid),
    /// attemptToOrphan: orphan the dependents of this uid.
    Orphan(Uid),
}

/// What became of an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Done,
    /// Failed (or cannot be decided yet): again after a backoff.
    Retry,
}

/// The garbage collector's state, shared by the graph builder and the workers.
struct Gc {
    client: Client,
    graph: Mutex<Graph>,
    queue: Queue<Item>,
}

impl Gc {
    fn graph(&self) -> MutexGuard<'_, Graph> {
        self.graph.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn shared(&self) -> &Arc<Shared> {
        self.client.shared()
    }

    /// Queues the attempts in `actions`; answers the warnings to report.
    fn dispatch(&self, actions: Vec<Action>) -> Vec<(Identity, OwnerRef)> {
        let mut warnings = Vec::new();
        for a in actions {
            match a {
                Action::Delete(uid) => self.queue.add(Item::Delete(uid)),
                Action::Orphan(uid) => self.queue.add(Item::Orphan(uid)),
                Action::InvalidNamespace { dependent, owner } => warnings.push((dependent, owner)),
            }
        }
        warnings
    }

    /// The served kind of an object, and the namespace to address it in.
    fn resource(&self, id: &Identity) -> Option<(Resource, Option<String>)> {
        let res = self
            .shared()
            .registry
            .resolve_kind(&id.api_version, &id.kind)?;
        let ns = res.info().namespaced.then(|| id.namespace.to_string());
        Some((res, ns))
    }

    /// The `OwnerRefInvalidNamespace` warning on `dependent`, worded as upstream.
    async fn report_invalid_namespace(&self, dependent: &Identity, owner: &OwnerRef) {
        let invalid = owner.identity(&dependent.namespace);
        let message = format!(
            "ownerRef {invalid} does not exist in namespace \"{}\"",
            dependent.namespace
        );
        let mut involved = json!({
            "apiVersion": &*dependent.api_version,
            "kind": &*dependent.kind,
            "metadata": {"name": dependent.name, "uid": &*dependent.uid},
        });
        if !dependent.namespace.is_empty() {
            involved["metadata"]["namespace"] = Value::String(dependent.namespace.to_string());
        }
        // An event is best effort, as for client-go's recorder.
        let _ = self
            .client
            .event(
                &involved,
                "Warning",
                "OwnerRefInvalidNamespace",
                &message,
                COMPONENT,
            )
            .await;
    }
}

/// Runs the garbage collector until aborted.
pub async fn run(shared: Arc<Shared>) {
    let store = shared.store.clone();
    let gc = Arc::new(Gc {
        client: Client::new(shared, COMPONENT),
        graph: Mutex::new(Graph::default()),
        queue: Queue::new(MAX_RETRY),
    });
    // Dropped with this future: the informer and the workers stop with it.
    let mut tasks = JoinSet::new();
    let (tx, mut rx) = mpsc::unbounded_channel();
    // The graph keeps what it needs of each object (uid, owners, deletion state): the
    // informer keeps no stored value.
    let keep = informer::Keep::Revisions;
    tasks.spawn(informer::follow_keeping(
        store,
        "/registry/".into(),
        keep,
        PACE,
        tx,
    ));
    let mut builder = Builder::default();
    let mut started = false;
    while let Some(change) = rx.recv().await {
        match change {
            Change::Put { kv, .. } => builder.put(&gc, kv).await,
            Change::Delete(kv) => builder.delete(&gc, kv).await,
            Change::Synced(_) => {
                builder.retry_pending(&gc).await;
                // Attempts wait for a complete graph (upstream waits for its caches).
                if !started {
                    started = true;
                    for _ in 0..WORKERS {
                        tasks.spawn(work(gc.clone()));
                    }
                }
            }
        }
    }
}

/// One worker: takes items until aborted.
async fn work(gc: Arc<Gc>) {
    loop {
        let item = gc.queue.get().await;
        let outcome = match &item {
            Item::Delete(uid) => attempt::attempt(&gc, uid).await,
            Item::Orphan(uid) => orphan::orphan(&gc, uid).await,
        };
        match outcome {
            Outcome::Done => gc.queue.forget(&item),
            Outcome::Retry => gc.queue.retry(item.clone()),
        }
        gc.queue.done(&item);
    }
}

/// Turns the informer's changes into graph changes.
#[derive(Default)]
struct Builder {
    /// Keys of a custom resource whose kind the registry does not serve yet (its CRD
    /// is being established): mapped again when the CRDs change.
    pending: std::collections::HashMap<String, KeyValue>,
}

/// Whether a key no served kind maps may still be a custom resource's: those live at
/// `/registry/<group>/<plural>/`, and a CRD's group has a dot.
fn maybe_custom(key: &str) -> bool {
    key.strip_prefix("/registry/")
        .and_then(|rest| rest.split('/').next())
        .is_some_and(|group| group.contains('.'))
}

impl Builder {
    async fn put(&mut self, gc: &Gc, kv: KeyValue) {
        let crd = kv.key.starts_with(CRD_PREFIX);
        let revision = kv.mod_revision;
        self.observe(gc, kv).await;
        if crd {
            self.crds_changed(gc, revision).await;
        }
    }

    async fn delete(&mut self, gc: &Gc, kv: KeyValue) {
        self.pending.remove(&kv.key);
        let actions = gc.graph().remove(&kv.key);
        gc.dispatch(actions);
        if kv.key.starts_with(CRD_PREFIX) {
            self.crds_changed(gc, kv.mod_revision).await;
        }
    }

    /// A CRD changed: once the registry serves the result, the keys of kinds it did
    /// not know are mapped again.
    async fn crds_changed(&mut self, gc: &Gc, revision: crate::store::Revision) {
        if self.pending.is_empty() {
            return;
        }
        gc.shared().registry.caught_up(revision).await;
        self.retry_pending(gc).await;
    }

    async fn retry_pending(&mut self, gc: &Gc) {
        for (_, kv) in std::mem::take(&mut self.pending) {
            self.observe(gc, kv).await;
        }
    }

    async fn observe(&mut self, gc: &Gc, kv: KeyValue) {
        let Some((res, _, _)) = gc.shared().registry.resource_for_key(&kv.key) else {
            if maybe_custom(&kv.key) {
                self.pending.insert(kv.key.clone(), kv);
            }
            return;
        };
        let info = res.info();
        // Events are not garbage collected (upstream's ignored resources).
        if info.q.plural == "events" {
            return;
        }
        let Some(meta) = read_meta(&kv.value) else {
            return;
        };
        let actions = gc
            .graph()
            .observe(&kv.key, &info.api_version(), &info.q.kind, meta);
        for (dependent, owner) in gc.dispatch(actions) {
            gc.report_invalid_namespace(&dependent, &owner).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_resource_keys_are_told_apart() {
        assert!(maybe_custom("/registry/stable.example.com/crontabs/ns/x"));
        assert!(!maybe_custom("/registry/configmaps/ns/x"));
        assert!(!maybe_custom("/registry/ranges/serviceips"));
    }
}
