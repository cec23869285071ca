//! The CRD finalizer (`customresourcecleanup`), as apiextensions-apiserver's
//! `CRDFinalizer`: a deleted CRD waits on the `customresourcecleanup.apiextensions.k8s.io`
//! finalizer its DELETE added; this controller marks it `Terminating`
//! (`InstanceDeletionInProgress`), deletes each of its objects through the API (so
//! their own finalizers hold them), and once none is left records
//! `InstanceDeletionCompleted` and removes the finalizer — the CRD then goes with that
//! write, and its kind leaves the registry.
//!
//! Upstream polls the remaining objects every 5 s; here an informer on the objects'
//! prefix wakes the CRD when the last one goes, so the CRD disappears as soon as a
//! client releases the last object. Failures are retried with an exponential backoff.
//! Everything is read again from the store on each pass, so a restart or another
//! replica picks up where this one stopped.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use super::AbortOnDrop;
use super::client::{Client, Mutation};
use super::informer::{Change, follow};
use super::queue::Queue;
use crate::api::kinds::crd::conditions::{TERMINATING, condition_true, set_condition};
use crate::api::kinds::crd::{CLEANUP_FINALIZER, CRD_PREFIX};
use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{is_deleting, name_of, str_at};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::store::{KeyValue, ListOptions};

/// The manager apiextensions-apiserver's loopback client writes as.
const MANAGER: &str = "kube-apiserver";

/// The longest wait between retries of a failed pass (the first waits 5 ms, each
/// failure in a row doubles it).
const MAX_RETRY: Duration = Duration::from_secs(60);

/// Kinds whose storage a CRD may share with a built-in resource: their objects are
/// never deleted for the CRD (`OverlappingBuiltInResources`).
const OVERLAPPING: [(&str, &str); 2] = [
    ("apiregistration.k8s.io", "apiservices"),
    ("apiextensions.k8s.io", "customresourcedefinitions"),
];

/// A `Terminating` condition: status, reason, message.
type Condition = (bool, &'static str, String);

/// Runs the controller until the task is aborted.
pub async fn run(shared: Arc<Shared>) {
    let Some(crds) =
        shared
            .registry
            .resolve("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    else {
        return;
    };
    let (crd_tx, mut crd_rx) = mpsc::unbounded_channel();
    let _crd_follower = AbortOnDrop(
        tokio::spawn(follow(shared.store.clone(), CRD_PREFIX.into(), crd_tx)).abort_handle(),
    );
    let (object_tx, mut object_rx) = mpsc::unbounded_channel();
    let mut cleanup = Cleanup {
        client: Client::new(shared, MANAGER),
        crds,
        watches: HashMap::new(),
        next_watch: 0,
        object_tx,
    };
    // CRD names to work on: now, or after a backoff.
    let queue = Queue::<String>::new(MAX_RETRY);
    loop {
        // Queued names first, then the informers' news.
        tokio::select! {
            biased;
            name = queue.get() => {
                match cleanup.sync(&name).await {
                    Ok(()) => queue.forget(&name),
                    Err(_) => queue.retry(name.clone()),
                }
                queue.done(&name);
            }
            change = crd_rx.recv() => match change {
                Some(change) => cleanup.on_crd(change, &queue),
                None => return,
            },
            Some(event) = object_rx.recv() => cleanup.on_object(event, &queue),
        }
    }
}

/// The objects of one terminating CRD, as an informer on their prefix sees them.
struct Watch {
    /// Tells this watch's events from those of an earlier one for the same CRD.
    id: u64,
    prefix: String,
    _task: AbortOnDrop,
    keys: HashSet<String>,
    /// Keys of objects not yet being deleted.
    live: HashSet<String>,
    synced: bool,
}

/// A change under a watched prefix: the CRD's name, the watch's id, the change.
type ObjectEvent = (String, u64, Change);

struct Cleanup {
    client: Client,
    crds: Resource,
    watches: HashMap<String, Watch>,
    next_watch: u64,
    object_tx: mpsc::UnboundedSender<ObjectEvent>,
}

fn decode(kv: &KeyValue) -> Option<Value> {
    crd_runtime::__private::depth::from_json_slice(&kv.value).ok()
}

fn has_cleanup_finalizer(obj: &Value) -> bool {
    obj.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| f.iter().any(|f| f == CLEANUP_FINALIZER))
}

/// Whether the finalizer still has work on this CRD.
fn waiting_on_us(obj: &Value) -> bool {
    is_deleting(obj) && has_cleanup_finalizer(obj)
}

/// The CRD without what this controller itself changes (its `Terminating` condition)
/// and without its revision: a change beyond these asks for another pass.
fn without_own_writes(obj: &Value) -> Value {
    let mut obj = obj.clone();
    if let Some(m) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("resourceVersion");
    }
    if let Some(cs) = obj
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    {
        cs.retain(|c| c["type"] != TERMINATING);
    }
    obj
}

/// `utilerrors.NewAggregate(...).Error()`: one message as it is, several (each once)
/// in brackets.
fn aggregate(messages: &[String]) -> String {
    let mut seen = HashSet::new();
    let unique: Vec<&str> = messages
        .iter()
        .filter(|m| seen.insert(m.as_str()))
        .map(String::as_str)
        .collect();
    match unique.as_slice() {
        [one] => one.to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// What became of a CRD's objects on one pass.
enum Instances {
    /// None is left (or none is to be deleted): the finalizer goes.
    Done(Condition),
    /// Some wait on their own finalizers: the objects' informer wakes the CRD.
    Remaining,
    /// A step failed: recorded, and retried after a backoff.
    Failed(Condition, ApiError),
}

fn failed(reason: &'static str, message: String, e: ApiError) -> Instances {
    Instances::Failed((true, reason, message), e)
}

impl Cleanup {
    fn on_crd(&mut self, change: Change, queue: &Queue<String>) {
        match change {
            Change::Put { kv, prev } => {
                let Some(crd) = decode(&kv) else { return };
                let name = name_of(&crd).to_string();
                if !waiting_on_us(&crd) {
                    self.watches.remove(&name);
                    return;
                }
                // This controller's own condition writes ask for no other pass (they
                // would loop); anything else, and every relist, does.
                let own_write = prev
                    .as_ref()
                    .and_then(decode)
                    .is_some_and(|p| without_own_writes(&p) == without_own_writes(&crd));
                if !own_write {
                    queue.add(name.clone());
                }
            }
            Change::Delete(kv) => {
                if let Some(crd) = decode(&kv) {
                    let name = name_of(&crd);
                    self.watches.remove(name);
                    queue.forget(name);
                }
            }
            Change::Synced(_) => {}
        }
    }

    fn on_object(&mut self, (name, id, change): ObjectEvent, queue: &Queue<String>) {
        let Some(w) = self.watches.get_mut(&name).filter(|w| w.id == id) else {
            return;
        };
        match change {
            Change::Put { kv, .. } => {
                let deleting = decode(&kv).is_some_and(|o| is_deleting(&o));
                w.keys.insert(kv.key.clone());
                if deleting {
                    w.live.remove(&kv.key);
                } else {
                    w.live.insert(kv.key);
                    if w.synced {
                        // An object to delete (written by a replica that had not yet
                        // seen the CRD terminating).
                        queue.add(name.clone());
                    }
                }
            }
            Change::Delete(kv) => {
                w.keys.remove(&kv.key);
                w.live.remove(&kv.key);
                if w.synced && w.keys.is_empty() {
                    queue.add(name.clone());
                }
            }
            Change::Synced(_) => {
                w.synced = true;
                if w.keys.is_empty() || !w.live.is_empty() {
                    queue.add(name.clone());
                }
            }
        }
    }

    /// Follows the objects under `prefix` for the CRD `name` (once).
    fn watch(&mut self, name: &str, prefix: &str) {
        if self.watches.get(name).is_some_and(|w| w.prefix == prefix) {
            return;
        }
        self.next_watch += 1;
        let id = self.next_watch;
        let (tx, mut rx) = mpsc::unbounded_channel();
        let out = self.object_tx.clone();
        let tag = name.to_string();
        let follower = follow(self.client.shared().store.clone(), prefix.to_string(), tx);
        let task = tokio::spawn(async move {
            let forward = async {
                while let Some(change) = rx.recv().await {
                    if out.send((tag.clone(), id, change)).is_err() {
                        return;
                    }
                }
            };
            tokio::select! {
                _ = follower => {}
                _ = forward => {}
            }
        });
        self.watches.insert(
            name.to_string(),
            Watch {
                id,
                prefix: prefix.to_string(),
                _task: AbortOnDrop(task.abort_handle()),
                keys: HashSet::new(),
                live: HashSet::new(),
                synced: false,
            },
        );
    }

    /// One pass over the CRD `name` (`CRDFinalizer.sync`).
    async fn sync(&mut self, name: &str) -> Result<(), ApiError> {
        let crd = self.client.get(&self.crds, None, name).await?;
        let Some(crd) = crd.filter(waiting_on_us) else {
            self.watches.remove(name);
            return Ok(());
        };
        let uid = str_at(&crd, "/metadata/uid").to_string();
        // The cleanup may take a while: say so first.
        let in_progress = (
            true,
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress".to_string(),
        );
        let Some(crd) = self.terminating(name, &uid, in_progress, false).await? else {
            self.watches.remove(name);
            return Ok(());
        };
        let group = str_at(&crd, "/spec/group");
        let plural = str_at(&crd, "/spec/names/plural");
        let outcome = if OVERLAPPING.contains(&(group, plural)) {
            Instances::Done((
                false,
                "OverlappingBuiltInResource",
                "instances overlap with built-in resources in storage".into(),
            ))
        } else if condition_true(&crd, "Established") {
            self.delete_instances(name, &crd).await
        } else {
            Instances::Done((
                false,
                "NeverEstablished",
                "resource was never established".into(),
            ))
        };
        match outcome {
            Instances::Remaining => Ok(()),
            Instances::Failed(condition, e) => {
                // Recorded on a best-effort basis: the retry writes it again.
                let _ = self.terminating(name, &uid, condition, false).await;
                Err(e)
            }
            Instances::Done(condition) => {
                self.terminating(name, &uid, condition, true).await?;
                self.watches.remove(name);
                Ok(())
            }
        }
    }

    /// Writes the `Terminating` condition through status (and, with `release`, removes
    /// the finalizer, which lets the CRD go). `None`: the CRD is gone, replaced, or no
    /// longer waits on this controller.
    async fn terminating(
        &self,
        name: &str,
        uid: &str,
        (status, reason, message): Condition,
        release: bool,
    ) -> Result<Option<Value>, ApiError> {
        let ours = |crd: &Value| str_at(crd, "/metadata/uid") == uid && waiting_on_us(crd);
        let written = self
            .client
            .update(&self.crds, None, name, Subresource::Status, |current| {
                if !ours(current) {
                    return Mutation::Keep;
                }
                let mut next = current.clone();
                set_condition(&mut next, TERMINATING, status, reason, &message);
                if release
                    && let Some(list) = next
                        .pointer_mut("/metadata/finalizers")
                        .and_then(Value::as_array_mut)
                {
                    list.retain(|f| f != CLEANUP_FINALIZER);
                }
                Mutation::Write(next)
            })
            .await?;
        Ok(written.filter(|crd| ours(crd)))
    }

    /// The CRD's kind as the registry serves it: the storage version if served,
    /// otherwise another served version (objects convert from any stored version).
    async fn resource_for(&self, crd: &Value) -> Option<Resource> {
        let registry = &self.client.shared().registry;
        // The registry serves the kind as of this CRD's revision at least.
        if let Ok(revision) = str_at(crd, "/metadata/resourceVersion").parse() {
            registry.caught_up(revision).await;
        }
        let group = str_at(crd, "/spec/group");
        let plural = str_at(crd, "/spec/names/plural");
        let versions = crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let served = versions.iter().filter(|v| v["served"] == true);
        let mut preferred: Vec<&Value> = served.clone().filter(|v| v["storage"] == true).collect();
        preferred.extend(served.filter(|v| v["storage"] != true));
        preferred
            .into_iter()
            .find_map(|v| registry.resolve(group, v["name"].as_str()?, plural))
    }

    /// Deletes every object of the CRD that is not being deleted yet
    /// (`deleteInstances`), then tells whether any is left.
    async fn delete_instances(&mut self, name: &str, crd: &Value) -> Instances {
        let resource = format!(
            "{}.{}",
            str_at(crd, "/spec/names/plural"),
            str_at(crd, "/spec/group")
        );
        let Some(res) = self.resource_for(crd).await else {
            let why = format!(
                "unable to find a custom resource client for {resource}: no version of it is served"
            );
            return failed(
                "InstanceDeletionFailed",
                format!("could not list instances: {why}"),
                ApiError::internal(why),
            );
        };
        let prefix = res.info().prefix.clone();
        self.watch(name, &prefix);
        let objects = match self.client.list(&res, None).await {
            Ok(o) => o,
            Err(e) => {
                return failed(
                    "InstanceDeletionFailed",
                    format!("could not list instances: {}", e.message),
                    e,
                );
            }
        };
        let mut errors = Vec::new();
        let mut last_error = None;
        for obj in objects.iter().filter(|o| !is_deleting(o)) {
            let ns = obj.pointer("/metadata/namespace").and_then(Value::as_str);
            let uid = str_at(obj, "/metadata/uid");
            match self
                .client
                .delete(&res, ns, name_of(obj), None, Some(uid))
                .await
            {
                Ok(_) => {}
                // Replaced meanwhile: the new object is deleted on the next pass.
                Err(e) if e.code == http::StatusCode::CONFLICT => {}
                Err(e) => {
                    errors.push(e.message.clone());
                    last_error = Some(e);
                }
            }
        }
        if let Some(e) = last_error {
            return failed(
                "InstanceDeletionFailed",
                format!("could not issue all deletes: {}", aggregate(&errors)),
                e,
            );
        }
        let one = ListOptions {
            limit: Some(1),
            ..ListOptions::default()
        };
        match self.client.shared().store.list(&prefix, one).await {
            Ok(left) if left.items.is_empty() => Instances::Done((
                false,
                "InstanceDeletionCompleted",
                "removed all instances".into(),
            )),
            Ok(_) => Instances::Remaining,
            Err(e) => {
                let e = ApiError::from_store(&res.info().q, "", e);
                failed(
                    "InstanceDeletionCheck",
                    format!(
                        "could not confirm zero CustomResources remaining: {}",
                        e.message
                    ),
                    e,
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_as_client_go() {
        assert_eq!(aggregate(&["a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into(), "a".into()]), "[a, b]");
    }

    #[test]
    fn own_condition_writes_are_not_changes() {
        let a = serde_json::json!({"metadata": {"name": "a", "resourceVersion": "1"},
            "status": {"conditions": [{"type": "Established", "status": "True"},
                                      {"type": "Terminating", "status": "True", "reason": "InstanceDeletionPending"}]}});
        let mut b = a.clone();
        b["metadata"]["resourceVersion"] = "2".into();
        b["status"]["conditions"][1]["reason"] = "InstanceDeletionInProgress".into();
        assert_eq!(without_own_writes(&a), without_own_writes(&b));
        b["metadata"]["labels"] = serde_json::json!({"x": "y"});
        assert_ne!(without_own_writes(&a), without_own_writes(&b));
    }
}
