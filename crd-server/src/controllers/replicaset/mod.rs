//! The ReplicaSet controller, as kube-controller-manager's `replicaset`: each
//! ReplicaSet claims the active Pods its selector matches (adopting orphans, releasing
//! those it no longer selects), creates Pods from its template in slow-start batches
//! while it has too few, deletes the least useful while it has too many (unassigned,
//! pending, not ready first), and reports `replicas`, `fullyLabeledReplicas`,
//! `readyReplicas`, `availableReplicas` (ready for `minReadySeconds`) and a
//! `ReplicaFailure` condition when it cannot create or delete.

mod status;

use std::sync::Arc;

use futures::future::join_all;
use serde_json::Value;

use super::cache::{Event, Informer};
use super::client::Mutation;
use super::queue::Queue;
use super::workload::owners::{self, Claim};
use super::workload::pods;
use super::workload::{Api, MAX_RETRY, Next, split_key, work};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::api::request::DeleteOptions;
use crate::api::selectors::label;

/// The component its events come from.
pub const COMPONENT: &str = "replicaset-controller";
/// Pods created or deleted in one pass at most (`BurstReplicas`).
const BURST: usize = 500;
/// Passes running at once (`--concurrent-replicaset-syncs`).
const WORKERS: usize = 5;

struct Controller {
    api: Api,
    sets: Arc<Informer>,
    pods: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let (Ok(sets), Ok(pods)) = (
        api.informer("apps", "replicasets"),
        api.informer("", "pods"),
    ) else {
        return;
    };
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    sets.subscribe(Arc::new(move |e: &Event| q.add(e.key.clone())));
    let (q, by_selector) = (queue.clone(), sets.clone());
    pods.subscribe(Arc::new(move |e: &Event| {
        for key in owners_of(&by_selector, e) {
            q.add(key);
        }
    }));
    sets.synced().await;
    pods.synced().await;
    let c = Arc::new(Controller { api, sets, pods });
    work(queue, WORKERS, move |key: String| {
        let c = c.clone();
        async move { c.sync(&key).await }
    })
    .await;
}

/// The ReplicaSets a pod change concerns: its controller (before and after), or for an
/// orphan every ReplicaSet of its namespace that selects it.
fn owners_of(sets: &Informer, e: &Event) -> Vec<String> {
    let mut keys = Vec::new();
    for pod in [e.old.as_deref(), e.new.as_deref()].into_iter().flatten() {
        let ns = str_at(pod, "/metadata/namespace");
        match owners::controller_ref(pod) {
            Some(r) if r["kind"] == "ReplicaSet" => {
                keys.push(format!("{ns}/{}", r["name"].as_str().unwrap_or("")));
            }
            Some(_) => {}
            None if pods::is_active(pod) => {
                let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
                for rs in sets.list(Some(ns)) {
                    let sel = rs.pointer("/spec/selector").unwrap_or(&Value::Null);
                    if !label::is_empty(sel) && label::matches(sel, labels) {
                        keys.push(crate::controllers::cache::key_of(&rs));
                    }
                }
            }
            None => {}
        }
    }
    keys.dedup();
    keys
}

impl Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let (ns, name) = split_key(key);
        let Some(rs) = self.sets.get(ns, name) else {
            return Ok(Next::Done);
        };
        let selector = rs.pointer("/spec/selector").cloned().unwrap_or_default();
        let uid = str_at(&rs, "/metadata/uid").to_string();
        let mut mine = Vec::new();
        for pod in self
            .pods
            .list(Some(ns))
            .into_iter()
            .filter(|p| pods::is_active(p))
        {
            match owners::claim(&rs, &selector, &pod) {
                Claim::Keep => mine.push(pod),
                Claim::Adopt => {
                    if let Some(adopted) = self.adopt(&rs, &pod).await? {
                        mine.push(Arc::new(adopted));
                    }
                }
                Claim::Release => self.release(&pod, &uid).await?,
                Claim::Ignore => {}
            }
        }
        let manage = if is_deleting(&rs) {
            Ok(())
        } else {
            self.manage(&rs, &mine).await
        };
        let now = self.api.clock.now();
        let next = status::calculate(&rs, &mine, manage.as_ref().err(), &self.api.clock);
        if status::changed(&rs, &next) {
            let mutate = |current: &Value| {
                if current.pointer("/metadata/uid") != rs.pointer("/metadata/uid") {
                    return Mutation::Keep;
                }
                let mut obj = current.clone();
                obj["status"] = next.clone();
                obj["status"]["observedGeneration"] = rs["metadata"]["generation"].clone();
                Mutation::Write(obj)
            };
            self.api
                .update(&self.sets, ns, name, Subresource::Status, mutate)
                .await
                .map_err(|e| e.message)?;
        }
        manage?;
        // A ready pod becomes available once it has been ready for minReadySeconds.
        let min_ready = rs
            .pointer("/spec/minReadySeconds")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let soonest = mine
            .iter()
            .filter_map(|p| pods::available_at(p, min_ready, now))
            .min();
        Ok(match soonest {
            Some(at) => {
                Next::After(self.api.clock.until(at) + std::time::Duration::from_millis(10))
            }
            None => Next::Done,
        })
    }

    async fn adopt(&self, rs: &Value, pod: &Value) -> Result<Option<Value>, String> {
        let (ns, name) = (
            str_at(pod, "/metadata/namespace"),
            str_at(pod, "/metadata/name"),
        );
        let uid = pod["metadata"]["uid"].clone();
        let mutate = |current: &Value| {
            if current["metadata"]["uid"] != uid {
                return Mutation::Keep;
            }
            match owners::adopt(current, rs) {
                Some(next) => Mutation::Write(next),
                None => Mutation::Keep,
            }
        };
        let written = self
            .api
            .update(&self.pods, ns, name, Subresource::Main, mutate)
            .await
            .map_err(|e| e.message)?;
        Ok(written.filter(|p| owners::controller_ref_to(p, str_at(rs, "/metadata/uid"))))
    }

    async fn release(&self, pod: &Value, owner_uid: &str) -> Result<(), String> {
        let (ns, name) = (
            str_at(pod, "/metadata/namespace"),
            str_at(pod, "/metadata/name"),
        );
        let mutate = |current: &Value| match owners::release(current, owner_uid) {
            Some(next) => Mutation::Write(next),
            None => Mutation::Keep,
        };
        self.api
            .update(&self.pods, ns, name, Subresource::Main, mutate)
            .await
            .map(|_| ())
            .map_err(|e| e.message)
    }

    /// `manageReplicas`: creates or deletes pods until the ReplicaSet has its
    /// replicas; the first error is the pass's.
    async fn manage(&self, rs: &Value, mine: &[Arc<Value>]) -> Result<(), String> {
        let want = rs
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1)
            .max(0) as usize;
        if mine.len() < want {
            self.create_pods(rs, (want - mine.len()).min(BURST)).await
        } else if mine.len() > want {
            let mut doomed = mine.to_vec();
            let related = self.pods.list(rs["metadata"]["namespace"].as_str());
            pods::deletion_order(&mut doomed, &related);
            doomed.truncate((mine.len() - want).min(BURST));
            self.delete_pods(rs, &doomed).await
        } else {
            Ok(())
        }
    }

    /// `slowStartBatch`: batches of 1, 2, 4, … pods; a batch with a failure ends it.
    async fn create_pods(&self, rs: &Value, count: usize) -> Result<(), String> {
        let ns = str_at(rs, "/metadata/namespace");
        let name = str_at(rs, "/metadata/name");
        let template = rs.pointer("/spec/template").cloned().unwrap_or_default();
        let owner = owners::new_controller_ref(rs);
        let (mut done, mut batch) = (0, 1);
        while done < count {
            let size = batch.min(count - done);
            let creates = (0..size).map(|_| {
                let pod = pods::from_template(&template, owner.clone(), name);
                self.api.create(&self.pods, ns, pod)
            });
            let mut failure = None;
            for result in join_all(creates).await {
                match result {
                    Ok(pod) => {
                        let msg = format!("Created pod: {}", str_at(&pod, "/metadata/name"));
                        self.api
                            .event(rs, "Normal", "SuccessfulCreate", &msg, COMPONENT)
                            .await;
                    }
                    Err(e) if e.message.contains("because it is being terminated") => {
                        // The namespace is going: every create would fail, quietly.
                        return Ok(());
                    }
                    Err(e) => {
                        let msg = format!("Error creating: {}", e.message);
                        self.api
                            .event(rs, "Warning", "FailedCreate", &msg, COMPONENT)
                            .await;
                        failure.get_or_insert(e.message);
                    }
                }
            }
            if let Some(e) = failure {
                return Err(e);
            }
            done += size;
            batch *= 2;
        }
        Ok(())
    }

    async fn delete_pods(&self, rs: &Value, doomed: &[Arc<Value>]) -> Result<(), String> {
        let deletes = doomed
            .iter()
            .map(|p| self.api.delete(&self.pods, p, DeleteOptions::default()));
        let mut failure = None;
        for (pod, result) in doomed.iter().zip(join_all(deletes).await) {
            let pod_name = str_at(pod, "/metadata/name");
            match result {
                Ok(()) => {
                    let msg = format!("Deleted pod: {pod_name}");
                    self.api
                        .event(rs, "Normal", "SuccessfulDelete", &msg, COMPONENT)
                        .await;
                }
                Err(e) => {
                    let msg = format!("Error deleting: {}", e.message);
                    self.api
                        .event(rs, "Warning", "FailedDelete", &msg, COMPONENT)
                        .await;
                    failure.get_or_insert(e.message);
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
