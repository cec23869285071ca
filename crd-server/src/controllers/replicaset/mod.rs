//! The ReplicaSet controller, as kube-controller-manager's `replicaset`: each
//! ReplicaSet claims the active Pods its selector matches (adopting orphans, releasing
//! those it no longer selects), creates Pods from its template in slow-start batches
//! while it has too few, deletes the least useful while it has too many (unassigned,
//! pending, not ready first), and reports `replicas`, `fullyLabeledReplicas`,
//! `readyReplicas`, `availableReplicas` (ready for `minReadySeconds`) and a
//! `ReplicaFailure` condition when it cannot create or delete.

mod status;

use std::sync::Arc;

use serde_json::Value;

use super::cache::Informer;
use super::client::Mutation;
use super::workload::claiming;
use super::workload::owners::{self, Claim};
use super::workload::pods;
use super::workload::resources::{PODS, REPLICA_SETS};
use super::workload::{
    Api, Next, Reconciler, Wiring, create_pods, delete_pods, split_key, when_available,
};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};

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
    let Some([sets, pods]) = api.informers([REPLICA_SETS, PODS]) else {
        return;
    };
    let wiring = Wiring::new(&api, &sets, "ReplicaSet").owns(&pods, true);
    wiring.run(WORKERS, Controller { api, sets, pods }).await;
}

impl Reconciler for Controller {
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
                    if let Some(adopted) = claiming::adopt(&self.api, &self.pods, &rs, &pod).await?
                    {
                        mine.push(Arc::new(adopted));
                    }
                }
                Claim::Release => claiming::release(&self.api, &self.pods, &pod, &uid).await?,
                Claim::Ignore => {}
            }
        }
        let manage = if is_deleting(&rs) {
            Ok(())
        } else {
            self.manage(&rs, &mine).await
        };
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
        Ok(when_available(&self.api.clock, &mine, min_ready))
    }
}

impl Controller {
    /// `manageReplicas`: creates or deletes pods until the ReplicaSet has its
    /// replicas; the first error is the pass's.
    async fn manage(&self, rs: &Value, mine: &[Arc<Value>]) -> Result<(), String> {
        let want = rs
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1)
            .max(0) as usize;
        if mine.len() < want {
            let template = rs.pointer("/spec/template").cloned().unwrap_or_default();
            let (owner, name) = (owners::new_controller_ref(rs), str_at(rs, "/metadata/name"));
            let new = (0..(want - mine.len()).min(BURST))
                .map(|_| pods::from_template(&template, owner.clone(), name))
                .collect();
            create_pods(&self.api, &self.pods, rs, COMPONENT, new).await
        } else if mine.len() > want {
            let mut doomed = mine.to_vec();
            let related = self.pods.list(rs["metadata"]["namespace"].as_str());
            pods::deletion_order(&mut doomed, &related);
            doomed.truncate((mine.len() - want).min(BURST));
            delete_pods(&self.api, &self.pods, rs, COMPONENT, &doomed).await
        } else {
            Ok(())
        }
    }
}
