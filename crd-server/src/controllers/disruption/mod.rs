//! The disruption controller, as kube-controller-manager's `disruption`: each
//! PodDisruptionBudget's status — `expectedPods` (the selected Pods, or the scale of
//! their controllers for `maxUnavailable` and percentages), `desiredHealthy`,
//! `currentHealthy` (ready, not going, not just evicted), `disruptionsAllowed`,
//! `disruptedPods`, `observedGeneration` and the `DisruptionAllowed` condition
//! (`SufficientPods`, `InsufficientPods`, `SyncFailed`). The eviction subresource
//! reads it ([`crate::api::kinds::builtin::core::pod::eviction`]).

pub mod budget;
#[cfg(test)]
mod budget_tests;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::cache::{Event, Informer, key_of};
use super::client::Mutation;
use super::workload::resources::{BUDGETS, PODS};
use super::workload::{
    Api, Next, Reconciler, each_key, owners, queue_of, split_key, synced, work_with_clock,
};
use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::core::pod::subresources::covers;
use crate::api::object::str_at;

/// The component its writes come from.
pub const COMPONENT: &str = "disruption-controller";
/// Passes running at once.
const WORKERS: usize = 2;

struct Controller {
    api: Api,
    budgets: Arc<Informer>,
    pods: Arc<Informer>,
    /// ReplicaSets, Deployments, StatefulSets, ReplicationControllers.
    owners: Vec<(&'static str, Arc<Informer>)>,
}

/// The budgets of the pod's namespace that select it (before or after the change).
fn budgets_of(budgets: &Informer, e: &Event) -> Vec<String> {
    let mut keys = Vec::new();
    for pod in [e.old.as_deref(), e.new.as_deref()].into_iter().flatten() {
        let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
        for pdb in budgets.list(Some(str_at(pod, "/metadata/namespace"))) {
            if covers(&pdb, labels) {
                keys.push(key_of(&pdb));
            }
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([budgets, pods]) = api.informers([BUDGETS, PODS]) else {
        return;
    };
    let owners: Vec<(&'static str, Arc<Informer>)> = [
        ("ReplicaSet", "apps", "replicasets"),
        ("Deployment", "apps", "deployments"),
        ("StatefulSet", "apps", "statefulsets"),
        ("ReplicationController", "", "replicationcontrollers"),
    ]
    .into_iter()
    .filter_map(|(kind, group, resource)| Some((kind, api.informer(group, resource).ok()?)))
    .collect();
    let queue = queue_of(&budgets);
    let (q, b) = (queue.clone(), budgets.clone());
    pods.subscribe(Arc::new(move |e: &Event| {
        for key in budgets_of(&b, e) {
            q.add(key);
        }
    }));
    // A workload's scale counts for budgets by maxUnavailable or percentage.
    for (_, inf) in &owners {
        let (q, b) = (queue.clone(), budgets.clone());
        inf.subscribe(Arc::new(move |e: &Event| {
            for pdb in b.list(Some(str_at(e.object(), "/metadata/namespace"))) {
                q.add(key_of(&pdb));
            }
        }));
    }
    let mut informers = vec![&budgets, &pods];
    informers.extend(owners.iter().map(|(_, inf)| inf));
    synced(&informers).await;
    let c = Arc::new(Controller {
        api: api.clone(),
        budgets: budgets.clone(),
        pods,
        owners,
    });
    // Pending evictions expire on the server's clock.
    work_with_clock(&api, budgets, queue, WORKERS, each_key(c)).await;
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let (ns, name) = split_key(key);
        let Some(pdb) = self.budgets.get(ns, name) else {
            return Ok(Next::Done);
        };
        let selected: Vec<Arc<Value>> = self
            .pods
            .list(Some(ns))
            .into_iter()
            .filter(|p| {
                covers(
                    &pdb,
                    p.pointer("/metadata/labels").and_then(Value::as_object),
                )
            })
            .collect();
        let now = self.api.clock.now();
        let counts = budget::counts(&pdb, &selected, &|p| self.scale_of(p), now);
        let stamp = self.api.clock.timestamp();
        let next = budget::status(&pdb, counts.as_ref().map_err(String::as_str), &stamp);
        if pdb.get("status") != Some(&next) {
            let mutate = |current: &Value| {
                let mut obj = current.clone();
                obj["status"] = next.clone();
                Mutation::Write(obj)
            };
            self.api
                .update_same(&self.budgets, &pdb, Subresource::Status, mutate)
                .await
                .map_err(|e| e.message)?;
        }
        Ok(match counts.ok().and_then(|c| c.recheck) {
            Some(at) => Next::After(self.api.clock.until(at) + Duration::from_millis(10)),
            None => Next::Done,
        })
    }
}

impl Controller {
    fn owner(&self, kind: &str, ns: &str, name: &str) -> Option<Arc<Value>> {
        let (_, inf) = self.owners.iter().find(|(k, _)| *k == kind)?;
        inf.get(ns, name)
    }

    /// The uid and replicas of the workload controlling `pod` (a ReplicaSet's
    /// Deployment when it has one).
    fn scale_of(&self, pod: &Value) -> Result<(String, i64), String> {
        let ns = str_at(pod, "/metadata/namespace");
        let name = str_at(pod, "/metadata/name");
        let Some(r) = owners::controller_ref(pod) else {
            return Err(format!("found no controller ref for pod {name:?}"));
        };
        let kind = r["kind"].as_str().unwrap_or("");
        let mut owner = self
            .owner(kind, ns, r["name"].as_str().unwrap_or(""))
            .filter(|o| o["metadata"]["uid"] == r["uid"])
            .ok_or_else(|| format!("found no controllers for pod {name:?}"))?;
        if kind == "ReplicaSet"
            && let Some(d) = owners::controller_ref(&owner).filter(|d| d["kind"] == "Deployment")
            && let Some(dep) = self.owner("Deployment", ns, d["name"].as_str().unwrap_or(""))
        {
            owner = dep;
        }
        let replicas = owner
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1);
        Ok((str_at(&owner, "/metadata/uid").to_string(), replicas))
    }
}
