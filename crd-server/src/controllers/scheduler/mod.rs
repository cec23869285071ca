//! The scheduler, as kube-scheduler with its default profile: each pending Pod of the
//! `default-scheduler` is bound, through its `binding` subresource, to the Ready node
//! that passes its filters ([`fit`]) and has the most room left; a Pod that fits
//! nowhere gets `PodScheduled=False` with reason `Unschedulable`, kube-scheduler's
//! message and a `FailedScheduling` event, and is tried again when a node changes or
//! a Pod leaves one.

pub mod fit;
mod volumes;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::cache::{Event, Informer, key_of};
use super::client::Mutation;
use super::queue::Queue;
use super::workload::resources::{CLAIMS, NODES, PODS, STORAGE_CLASSES};
use super::workload::{Api, MAX_RETRY, Next, Reconciler, each_key, pods, synced, work};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};

/// The component its events come from (and the scheduler name it serves).
pub const COMPONENT: &str = "default-scheduler";

/// Whether `pod` waits for this scheduler.
fn pending(pod: &Value) -> bool {
    let scheduler = str_at(pod, "/spec/schedulerName");
    str_at(pod, "/spec/nodeName").is_empty()
        && (scheduler.is_empty() || scheduler == COMPONENT)
        && !is_deleting(pod)
        && !pods::is_terminal(pod)
        && pod
            .pointer("/spec/schedulingGates")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
}

/// Whether a pod holds a place on a node (bound, not finished).
fn placed(pod: &Value) -> bool {
    !str_at(pod, "/spec/nodeName").is_empty() && !pods::is_terminal(pod)
}

struct Scheduler {
    api: Api,
    nodes: Arc<Informer>,
    pods: Arc<Informer>,
    claims: Arc<Informer>,
    classes: Arc<Informer>,
}

/// Runs the scheduler until aborted.
pub async fn run(api: Api) {
    let Some([nodes, pod_informer, claims, classes]) =
        api.informers([NODES, PODS, CLAIMS, STORAGE_CLASSES])
    else {
        return;
    };
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let requeue_all = {
        let (q, p) = (queue.clone(), pod_informer.clone());
        move || {
            for pod in p.list(None).into_iter().filter(|p| pending(p)) {
                q.add(key_of(&pod));
            }
        }
    };
    let q = queue.clone();
    let freed = requeue_all.clone();
    pod_informer.subscribe(Arc::new(move |e: &Event| {
        if e.new.as_deref().is_some_and(pending) {
            q.add(e.key.clone());
        }
        // A pod leaving its node makes room for the ones waiting.
        let was_placed = e.old.as_deref().is_some_and(placed);
        if was_placed && !e.new.as_deref().is_some_and(placed) {
            freed();
        }
    }));
    // A claim that appears or gets bound may be what a pending pod waits for.
    let bound = requeue_all.clone();
    claims.subscribe(Arc::new(move |e: &Event| {
        let volume = |o: Option<&Value>| o.map(|c| str_at(c, "/spec/volumeName").to_string());
        if e.old.is_none() || volume(e.old.as_deref()) != volume(e.new.as_deref()) {
            bound();
        }
    }));
    nodes.subscribe(Arc::new(move |e: &Event| {
        let spec_or_status_changed = match (e.old.as_deref(), e.new.as_deref()) {
            (Some(o), Some(n)) => {
                o.get("spec") != n.get("spec")
                    || o.pointer("/metadata/labels") != n.pointer("/metadata/labels")
                    || o.pointer("/status/allocatable") != n.pointer("/status/allocatable")
                    || crate::controllers::nodes::is_ready(o)
                        != crate::controllers::nodes::is_ready(n)
            }
            _ => true,
        };
        if spec_or_status_changed {
            requeue_all();
        }
    }));
    synced(&[&nodes, &pod_informer, &claims, &classes]).await;
    let c = Arc::new(Scheduler {
        api,
        nodes,
        pods: pod_informer,
        claims,
        classes,
    });
    // One pod at a time, as kube-scheduler's scheduling cycle: two pods never take
    // the same room.
    work(queue, 1, each_key(c)).await;
}

impl Reconciler for Scheduler {
    /// One scheduling cycle: the pod of `key`, if it still waits, bound or marked
    /// unschedulable.
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let Some(pod) = self.pods.get_key(key).filter(|p| pending(p)) else {
            return Ok(Next::Done);
        };
        let nodes = self.nodes.list(None);
        let waiting = match volumes::check(&pod, &self.claims, &self.classes) {
            volumes::Claims::Ready => Vec::new(),
            volumes::Claims::WaitForNode(names) => names,
            volumes::Claims::Unschedulable(reason) => {
                let message = volumes::prefilter_error(nodes.len(), &reason);
                return self.unschedulable(&pod, &message).await;
            }
        };
        let wanted = fit::requests(&pod);
        let mut usage: HashMap<String, fit::Usage> = HashMap::new();
        for p in self.pods.list(None).iter().filter(|p| placed(p)) {
            usage
                .entry(str_at(p, "/spec/nodeName").to_string())
                .or_default()
                .add(p, !wanted.is_empty());
        }
        let empty = fit::Usage::default();
        let mut best: Option<(i128, &str)> = None;
        let mut failures = Vec::new();
        for node in &nodes {
            let node_name = str_at(node, "/metadata/name");
            let used = usage.get(node_name).unwrap_or(&empty);
            let reasons = fit::filter(&pod, node, used, &wanted);
            if !reasons.is_empty() {
                failures.push(reasons);
                continue;
            }
            let score = fit::score(node, used);
            if best.is_none_or(|(s, n)| score > s || (score == s && node_name < n)) {
                best = Some((score, node_name));
            }
        }
        match best {
            Some((_, node)) if !waiting.is_empty() => self.select_node(&pod, &waiting, node).await,
            Some((_, node)) => self.bind(&pod, node).await,
            None => {
                let message = fit::fit_error(nodes.len(), &failures);
                self.unschedulable(&pod, &message).await
            }
        }
    }
}

impl Scheduler {
    /// `PreBind` for claims that wait for their first consumer: each names the node
    /// (the PV controller then binds or provisions it); the pod is bound on a later
    /// pass, once they are bound.
    async fn select_node(
        &self,
        pod: &Value,
        claims: &[String],
        node: &str,
    ) -> Result<Next, String> {
        let ns = str_at(pod, "/metadata/namespace");
        for name in claims {
            self.api
                .update(&self.claims, ns, name, Subresource::Main, |current| {
                    let selected = current
                        .pointer("/metadata/annotations")
                        .and_then(|a| a.get(crate::controllers::volumes::SELECTED_NODE));
                    if selected.is_some() {
                        return Mutation::Keep;
                    }
                    let mut next = current.clone();
                    let meta = crate::api::object::meta_mut(&mut next);
                    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
                    if !annotations.is_object() {
                        *annotations = json!({});
                    }
                    annotations[crate::controllers::volumes::SELECTED_NODE] = json!(node);
                    Mutation::Write(next)
                })
                .await
                .map_err(|e| e.message)?;
        }
        Ok(Next::After(std::time::Duration::from_millis(200)))
    }

    async fn bind(&self, pod: &Value, node: &str) -> Result<Next, String> {
        let (ns, name) = (
            str_at(pod, "/metadata/namespace"),
            str_at(pod, "/metadata/name"),
        );
        match self
            .api
            .client
            .bind(self.pods.resource(), ns, name, node)
            .await
        {
            Ok(bound) => {
                self.pods.wrote(&bound);
                let msg = format!("Successfully assigned {ns}/{name} to {node}");
                self.api
                    .event(pod, "Normal", "Scheduled", &msg, COMPONENT)
                    .await;
                Ok(Next::Done)
            }
            // Bound, gated or deleted meanwhile: its update brings it back if need be.
            Err(e) if e.code == http::StatusCode::CONFLICT => Ok(Next::Done),
            Err(e) if e.code == http::StatusCode::NOT_FOUND => Ok(Next::Done),
            Err(e) => Err(e.message),
        }
    }

    /// Records why the pod waits: the `PodScheduled=False` condition and an event
    /// (once per change of the message).
    async fn unschedulable(&self, pod: &Value, message: &str) -> Result<Next, String> {
        let current = pods::condition(pod, "PodScheduled");
        if current.is_some_and(|c| {
            c["status"] == "False" && c["reason"] == "Unschedulable" && c["message"] == message
        }) {
            return Ok(Next::Done);
        }
        let (ns, name) = (
            str_at(pod, "/metadata/namespace"),
            str_at(pod, "/metadata/name"),
        );
        let uid = pod["metadata"]["uid"].clone();
        let now = self.api.clock.timestamp();
        let mutate = |current: &Value| {
            if current["metadata"]["uid"] != uid || !pending(current) {
                return Mutation::Keep;
            }
            let mut next = current.clone();
            if !next.get("status").is_some_and(Value::is_object) {
                next["status"] = json!({});
            }
            next["status"]["phase"] = json!("Pending");
            let mut conditions: Vec<Value> = next
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            conditions.retain(|c| c["type"] != "PodScheduled");
            conditions.push(json!({"type": "PodScheduled", "status": "False",
                                   "lastProbeTime": null, "lastTransitionTime": now,
                                   "reason": "Unschedulable", "message": message}));
            next["status"]["conditions"] = Value::Array(conditions);
            Mutation::Write(next)
        };
        let written = self
            .api
            .update(&self.pods, ns, name, Subresource::Status, mutate)
            .await
            .map_err(|e| e.message)?;
        if written.is_some() {
            self.api
                .event(pod, "Warning", "FailedScheduling", message, COMPONENT)
                .await;
        }
        Ok(Next::Done)
    }
}
