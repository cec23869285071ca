//! The Deployment controller, as kube-controller-manager's `deployment`: each
//! Deployment claims the ReplicaSets its selector matches, creates the ReplicaSet of
//! its current template (named after the template's hash, labelled and selected by it,
//! with the next revision), rolls Pods over from the old ReplicaSets to the new one by
//! `maxSurge` and `maxUnavailable` (or all at once for `Recreate`), scales them
//! proportionally on a scaling event or while paused, keeps `revisionHistoryLimit` old
//! ReplicaSets for `kubectl rollout undo`, and reports its status with the `Available`
//! and `Progressing` conditions and upstream's reasons ([`progress`]), which
//! `kubectl rollout status` and `kubectl wait` read.

mod progress;
mod rolling;
mod sync;
pub mod util;

use std::sync::Arc;

use serde_json::Value;

use super::cache::{Event, Informer};
use super::client::Mutation;
use super::workload::claiming;
use super::workload::owners::{self, Claim};
use super::workload::resources::{DEPLOYMENTS, PODS, REPLICA_SETS};
use super::workload::{Api, Next, Reconciler, Wiring};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::api::selectors::label;

/// The component its events come from.
pub const COMPONENT: &str = "deployment-controller";
/// Passes running at once (`--concurrent-deployment-syncs`).
const WORKERS: usize = 5;

pub(crate) struct Controller {
    api: Api,
    deployments: Arc<Informer>,
    sets: Arc<Informer>,
    pods: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([deployments, sets, pods]) = api.informers([DEPLOYMENTS, REPLICA_SETS, PODS]) else {
        return;
    };
    let wiring = Wiring::new(&api, &deployments, "Deployment")
        .owns(&sets, true)
        .reads(&pods);
    let (q, rs) = (wiring.queue().clone(), sets.clone());
    pods.subscribe(Arc::new(move |e: &Event| {
        // A deleted pod lets a Recreate rollout go on.
        if e.new.is_none()
            && let Some(key) = owner_of_pod(&rs, e.object())
        {
            q.add(key);
        }
    }));
    let c = Controller {
        api,
        deployments,
        sets,
        pods,
    };
    // A moved clock may pass a progress deadline: every Deployment is looked at again.
    wiring.run_with_clock(WORKERS, c).await;
}

/// The Deployment of a pod's ReplicaSet.
fn owner_of_pod(sets: &Informer, pod: &Value) -> Option<String> {
    let r = owners::controller_ref(pod).filter(|r| r["kind"] == "ReplicaSet")?;
    let ns = str_at(pod, "/metadata/namespace");
    let rs = sets.get(ns, r["name"].as_str()?)?;
    let d = owners::controller_ref(&rs).filter(|r| r["kind"] == "Deployment")?;
    Some(format!("{ns}/{}", d["name"].as_str()?))
}

impl Reconciler for Controller {
    /// `syncDeployment`.
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let Some(d) = self.deployments.get_key(key) else {
            return Ok(Next::Done);
        };
        let mut d = (*d).clone();
        let selector = d.pointer("/spec/selector").cloned().unwrap_or_default();
        if label::is_empty(&selector) {
            self.api
                .event(
                    &d,
                    "Warning",
                    "SelectingAll",
                    "This deployment is selecting all pods. A non-empty selector is required.",
                    COMPONENT,
                )
                .await;
            if util::int(&d, "/status/observedGeneration") < util::int(&d, "/metadata/generation") {
                let mut status = d.get("status").cloned().unwrap_or_default();
                status["observedGeneration"] = d["metadata"]["generation"].clone();
                self.write_status(&mut d, status).await?;
            }
            return Ok(Next::Done);
        }
        let sets = self.claim_sets(&d, &selector).await?;
        if is_deleting(&d) {
            self.sync_status_only(&mut d, sets).await?;
            return Ok(Next::Done);
        }
        self.check_paused(&mut d).await?;
        if d.pointer("/spec/paused") == Some(&Value::Bool(true)) {
            self.sync_paused_or_scaled(&mut d, sets).await?;
            return Ok(Next::Done);
        }
        if self.is_scaling_event(&mut d, &sets).await? {
            self.sync_paused_or_scaled(&mut d, sets).await?;
            return Ok(Next::Done);
        }
        if util::is_rolling(&d) {
            self.rollout_rolling(&mut d, sets).await
        } else {
            self.rollout_recreate(&mut d, sets).await
        }
    }
}

impl Controller {
    /// `getReplicaSetsForDeployment`: the ReplicaSets the Deployment controls, after
    /// adopting the orphans it selects and releasing those it no longer does.
    async fn claim_sets(&self, d: &Value, selector: &Value) -> Result<Vec<Value>, String> {
        let ns = str_at(d, "/metadata/namespace");
        let uid = str_at(d, "/metadata/uid").to_string();
        let mut mine = Vec::new();
        for rs in self.sets.list(Some(ns)) {
            match owners::claim(d, selector, &rs) {
                Claim::Keep => mine.push((*rs).clone()),
                Claim::Adopt => {
                    if let Some(a) = claiming::adopt(&self.api, &self.sets, d, &rs).await? {
                        mine.push(a);
                    }
                }
                Claim::Release => claiming::release(&self.api, &self.sets, &rs, &uid).await?,
                Claim::Ignore => {}
            }
        }
        Ok(mine)
    }

    /// Writes `status` (and the revision annotation `d` carries) through the status
    /// subresource; `d` becomes what was written.
    async fn write_status(&self, d: &mut Value, status: Value) -> Result<(), String> {
        let (ns, name) = (
            str_at(d, "/metadata/namespace").to_string(),
            str_at(d, "/metadata/name").to_string(),
        );
        let uid = d["metadata"]["uid"].clone();
        let revision = util::annotation(d, util::REVISION).map(str::to_string);
        let mutate = |current: &Value| {
            if current["metadata"]["uid"] != uid {
                return Mutation::Keep;
            }
            let mut next = current.clone();
            next["status"] = status.clone();
            if let Some(r) = &revision {
                let meta = crate::api::object::meta_mut(&mut next);
                let a = meta
                    .entry("annotations")
                    .or_insert_with(|| serde_json::json!({}));
                if a.is_object() {
                    a[util::REVISION] = Value::String(r.clone());
                }
            }
            Mutation::Write(next)
        };
        let written = self
            .api
            .update(&self.deployments, &ns, &name, Subresource::Status, mutate)
            .await
            .map_err(|e| e.message)?;
        if let Some(w) = written {
            *d = w;
        }
        Ok(())
    }
}
