//! The pod garbage collector, as kube-controller-manager's `podgc`, in passes (every 20
//! seconds, when Pods or nodes change, and when the server's clock moves):
//!
//! - past `--terminated-pod-gc-threshold` finished Pods (Succeeded or Failed; 0 turns
//!   this off), the surplus is deleted, evicted ones first, then oldest first;
//! - Pods bound to a node that has been gone for 40 seconds (checked on the store) are
//!   marked `Failed` with the `DisruptionTarget` condition (`DeletionByPodGC`, `PodGC:
//!   node no longer exists`) and deleted;
//! - Pods being deleted that were never scheduled are deleted at once.
//!
//! Every delete is forced (grace period 0) with the Pod's uid as precondition.

mod plan;
#[cfg(test)]
mod plan_tests;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::cache::{Event, Informer};
use super::client::Mutation;
use super::workload::resources::{NODES, PODS};
use super::workload::{Api, pods, synced};
use crate::api::kinds::Subresource;
use crate::api::object::str_at;

pub use plan::plan;

/// The component its writes come from.
pub const COMPONENT: &str = "pod-garbage-collector";
/// How long a node must be gone before its Pods are (`quarantineTime`).
pub const QUARANTINE: TimeDelta = TimeDelta::seconds(40);
/// The time between passes (`gcCheckPeriod`).
const PERIOD: Duration = Duration::from_secs(20);
/// The message of the condition an orphaned Pod gets.
pub const NODE_GONE: &str = "PodGC: node no longer exists";

struct Collector {
    api: Api,
    pods: Arc<Informer>,
    nodes: Arc<Informer>,
    threshold: usize,
    /// Nodes Pods are bound to that were missing, and since when.
    missing: std::sync::Mutex<HashMap<String, DateTime<Utc>>>,
}

/// Runs the collector until aborted, keeping at most `threshold` finished Pods.
pub async fn run(api: Api, threshold: usize) {
    let Some([pods, nodes]) = api.informers([PODS, NODES]) else {
        return;
    };
    let wake = Arc::new(Notify::new());
    for inf in [&pods, &nodes] {
        let w = wake.clone();
        inf.subscribe(Arc::new(move |_: &Event| w.notify_one()));
    }
    synced(&[&pods, &nodes]).await;
    let mut moved = api.clock.moved();
    let c = Collector {
        api,
        pods,
        nodes,
        threshold,
        missing: Default::default(),
    };
    loop {
        // A failed delete is tried again on the next pass.
        let _ = c.pass().await;
        tokio::select! {
            _ = tokio::time::sleep(PERIOD) => {}
            _ = wake.notified() => {}
            changed = moved.changed() => if changed.is_err() { return },
        }
    }
}

impl Collector {
    async fn pass(&self) -> Result<(), String> {
        let all = self.pods.list(None);
        let present = |node: &str| self.nodes.get("", node).is_some();
        let p = plan(&all, &present, self.threshold);
        let mut failure = None;
        for pod in p.terminated.iter().chain(&p.unscheduled_terminating) {
            if let Err(e) = self.force_delete(pod).await {
                failure.get_or_insert(e);
            }
        }
        for node in self.quarantined(&p.orphans).await? {
            for pod in p
                .orphans
                .iter()
                .filter(|pod| str_at(pod, "/spec/nodeName") == node)
            {
                if let Err(e) = self.fail_and_delete(pod).await {
                    failure.get_or_insert(e);
                }
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// The nodes of `orphans` missing for the quarantine, confirmed gone on the store.
    async fn quarantined(&self, orphans: &[Arc<Value>]) -> Result<Vec<String>, String> {
        let now = self.api.clock.now();
        let due: Vec<String> = {
            let mut missing = self.missing.lock().unwrap_or_else(|e| e.into_inner());
            let wanted: std::collections::HashSet<&str> = orphans
                .iter()
                .map(|p| str_at(p, "/spec/nodeName"))
                .collect();
            missing.retain(|n, _| wanted.contains(n.as_str()));
            for n in &wanted {
                missing.entry(n.to_string()).or_insert(now);
            }
            missing
                .iter()
                .filter(|(_, since)| now - **since >= QUARANTINE)
                .map(|(n, _)| n.clone())
                .collect()
        };
        let mut gone = Vec::new();
        for node in due {
            let stored = self
                .api
                .client
                .get(self.nodes.resource(), None, &node)
                .await
                .map_err(|e| e.message)?;
            if stored.is_none() {
                gone.push(node);
            }
        }
        Ok(gone)
    }

    async fn force_delete(&self, pod: &Value) -> Result<(), String> {
        self.api
            .delete_now(&self.pods, pod)
            .await
            .map_err(|e| e.message)
    }

    /// `markFailedAndDeletePodWithCondition`: `Failed` (unless finished already) with
    /// the `DisruptionTarget` condition, then deleted.
    async fn fail_and_delete(&self, pod: &Value) -> Result<(), String> {
        let now = self.api.clock.timestamp();
        let mutate = |current: &Value| {
            let mut next = current.clone();
            if !pods::is_terminal(current) {
                next["status"]["phase"] = json!("Failed");
            }
            let mut conditions = super::workload::conditions::of(current);
            super::workload::conditions::remove(&mut conditions, "DisruptionTarget");
            conditions.push(json!({
                "type": "DisruptionTarget",
                "status": "True",
                "lastProbeTime": null,
                "lastTransitionTime": now,
                "reason": "DeletionByPodGC",
                "message": NODE_GONE,
            }));
            next["status"]["conditions"] = Value::Array(conditions);
            Mutation::Write(next)
        };
        let written = self
            .api
            .update_same(&self.pods, pod, Subresource::Status, mutate)
            .await
            .map_err(|e| e.message)?;
        match written {
            Some(p) => self.force_delete(&p).await,
            None => Ok(()),
        }
    }
}
