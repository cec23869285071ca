//! The StatefulSet controller, as kube-controller-manager's `statefulset`
//! (`stateful_set_control.go`): a set's Pods are `SET-0` … `SET-(N-1)`, each with its
//! claims made from the `volumeClaimTemplates` first. With `OrderedReady` (the
//! default) one Pod is created at a time, each waiting for the one before to be Running
//! and Ready, and Pods beyond the replicas are deleted from the highest ordinal down,
//! one at a time; with `Parallel` all at once. Every distinct template is a
//! ControllerRevision ([`history`]); a `RollingUpdate` replaces the Pods not at the
//! update revision from the highest ordinal down to `partition`, one healthy Pod at a
//! time; `OnDelete` leaves that to the user. The status counts the Pods per revision so
//! that `kubectl rollout status statefulset/NAME` reads it as upstream's.

mod identity;
mod ordering;
#[cfg(test)]
mod ordering_tests;
mod status;
#[cfg(test)]
mod status_tests;

use std::sync::Arc;

use serde_json::{Value, json};

use super::cache::Informer;
use super::client::Mutation;
use super::workload::resources::{CLAIMS, PODS, REVISIONS, STATEFUL_SETS};
use super::workload::{Api, Next, Reconciler, Wiring, history, live, pods, when_available};
use super::workload::{claiming, owners};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, list_at, str_at};
use crate::api::request::DeleteOptions;
use crate::api::status::ApiError;
use identity::{new_pod, ordinal};
use ordering::Step;

/// The component its events come from.
pub const COMPONENT: &str = "statefulset-controller";
/// Passes running at once (`--concurrent-statefulset-syncs`).
const WORKERS: usize = 5;

struct Controller {
    api: Api,
    sets: Arc<Informer>,
    pods: Arc<Informer>,
    revisions: Arc<Informer>,
    claims: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([sets, pods, revisions, claims]) =
        api.informers([STATEFUL_SETS, PODS, REVISIONS, CLAIMS])
    else {
        return;
    };
    let wiring = Wiring::new(&api, &sets, "StatefulSet")
        .owns(&pods, true)
        .owns(&revisions, false)
        .reads(&claims);
    let c = Controller {
        api,
        sets,
        pods,
        revisions,
        claims,
    };
    // A moved clock may make a Pod available (`minReadySeconds`).
    wiring.run_with_clock(WORKERS, c).await;
}

/// A change to a member Pod: its verb, and the event reasons of its success and failure.
type PodAction = (&'static str, &'static str, &'static str);
const CREATE: PodAction = ("create", "SuccessfulCreate", "FailedCreate");
const DELETE: PodAction = ("delete", "SuccessfulDelete", "FailedDelete");

/// The revisions a pass works with: the set as its current and as its update revision.
struct Revisions {
    current: Value,
    current_name: String,
    update: Value,
    update_name: String,
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let Some(set) = live(&self.sets, key) else {
            return Ok(Next::Done);
        };
        let mine = self.claim(&set).await?;
        let revs = history::controlled(&self.revisions, &set);
        let (update, collisions) =
            history::ensure_template(&self.api, &self.revisions, &self.sets, &set, &revs).await?;
        let update_name = str_at(&update, "/metadata/name").to_string();
        let current_name = str_at(&set, "/status/currentRevision");
        let current = revs
            .iter()
            .find(|r| str_at(r, "/metadata/name") == current_name)
            .map(|r| (**r).clone())
            .unwrap_or_else(|| update.clone());
        let r = Revisions {
            current_name: str_at(&current, "/metadata/name").to_string(),
            current: history::apply(&set, &current),
            update: history::apply(&set, &update),
            update_name,
        };
        let pass = self.update_pods(&set, &r, &mine).await;
        let now = self.api.clock.now();
        let mine = self.members(&set);
        let next = status::compute(&set, &mine, &r.current_name, &r.update_name, now);
        let observed = set["metadata"]["generation"].clone();
        self.write_status(&set, |s| {
            claiming::set_fields(s, &next);
            s["observedGeneration"] = observed.clone();
            s["collisionCount"] = json!(collisions);
        })
        .await?;
        let mut live: Vec<&str> = mine.iter().map(|p| identity::revision_of(p)).collect();
        live.extend([r.current_name.as_str(), r.update_name.as_str()]);
        let revs = history::controlled(&self.revisions, &set);
        let limit = set
            .pointer("/spec/revisionHistoryLimit")
            .and_then(Value::as_i64)
            .unwrap_or(10);
        history::truncate(&self.api, &self.revisions, &revs, &live, limit).await?;
        pass?;
        Ok(when_available(
            &self.api.clock,
            &mine,
            min_ready_seconds(&set),
        ))
    }
}

impl Controller {
    /// The set's Pods in the cache (controlled by it and named as its members).
    fn members(&self, set: &Value) -> Vec<Arc<Value>> {
        let (uid, name) = (str_at(set, "/metadata/uid"), str_at(set, "/metadata/name"));
        self.pods
            .list(Some(str_at(set, "/metadata/namespace")))
            .into_iter()
            .filter(|p| owners::controller_ref_to(p, uid) && ordinal(name, p).is_some())
            .collect()
    }

    /// Claims the Pods the selector matches that are members of the set by name
    /// (`isMemberOf`).
    async fn claim(&self, set: &Value) -> Result<Vec<Arc<Value>>, String> {
        let name = str_at(set, "/metadata/name");
        let candidates = self
            .pods
            .list(Some(str_at(set, "/metadata/namespace")))
            .into_iter()
            .filter(|p| ordinal(name, p).is_some())
            .collect();
        claiming::claim(&self.api, &self.pods, set, candidates).await
    }

    /// `updateStatefulSet`: creates, replaces and deletes Pods in the order the pod
    /// management policy and the update strategy ask for ([`ordering`]).
    async fn update_pods(
        &self,
        set: &Value,
        r: &Revisions,
        mine: &[Arc<Value>],
    ) -> Result<(), String> {
        let min_ready = min_ready_seconds(set);
        let now = self.api.clock.now();
        let healthy = |p: &Value| {
            identity::running_and_ready(p)
                && !is_deleting(p)
                && pods::is_available(p, min_ready, now)
        };
        let params = ordering::Params {
            set_name: str_at(set, "/metadata/name"),
            start: identity::start(set),
            replicas: identity::replicas(set),
            monotonic: str_at(set, "/spec/podManagementPolicy") != "Parallel",
            rolling: str_at(set, "/spec/updateStrategy/type") != "OnDelete",
            partition: set
                .pointer("/spec/updateStrategy/rollingUpdate/partition")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            update_revision: &r.update_name,
        };
        for step in ordering::plan(&params, mine, &healthy) {
            match step {
                Step::Create {
                    ordinal,
                    from_current,
                } => {
                    let (tpl, rev) = if from_current {
                        (&r.current, &r.current_name)
                    } else {
                        (&r.update, &r.update_name)
                    };
                    self.create_claims(set, ordinal).await?;
                    self.create_pod(set, new_pod(set, tpl, rev, ordinal))
                        .await?;
                }
                Step::Replace(pod) | Step::Update(pod) => self.delete_pod(set, &pod).await?,
                Step::Condemn { ordinal, pod } => {
                    self.release_claims(set, &pod, ordinal).await?;
                    self.delete_pod(set, &pod).await?;
                }
            }
        }
        Ok(())
    }

    /// Creates the Pod's missing claims (`createPersistentVolumeClaims`).
    async fn create_claims(&self, set: &Value, ord: i64) -> Result<(), String> {
        let ns = str_at(set, "/metadata/namespace");
        let pod_name = format!("{}-{ord}", str_at(set, "/metadata/name"));
        for claim in identity::claims(set, ord) {
            let claim_name = str_at(&claim, "/metadata/name").to_string();
            if self.claims.get(ns, &claim_name).is_some() {
                continue;
            }
            let what = format!(
                "Claim {claim_name} Pod {pod_name} in StatefulSet {}",
                str_at(set, "/metadata/name")
            );
            match self.api.create(&self.claims, ns, claim).await {
                Ok(_) => {
                    let msg = format!("create {what} success");
                    self.api
                        .event(set, "Normal", "SuccessfulCreate", &msg, COMPONENT)
                        .await;
                }
                Err(e) if e.reason == "AlreadyExists" => {}
                Err(e) => {
                    let msg = format!("create {what} failed error: {}", e.message);
                    self.api
                        .event(set, "Warning", "FailedCreate", &msg, COMPONENT)
                        .await;
                    return Err(e.message);
                }
            }
        }
        Ok(())
    }

    /// `whenScaled: Delete`: a condemned Pod's claims become the Pod's (and no longer
    /// the set's), so that the garbage collector deletes them with it.
    async fn release_claims(&self, set: &Value, pod: &Value, ord: i64) -> Result<(), String> {
        if str_at(set, "/spec/persistentVolumeClaimRetentionPolicy/whenScaled") != "Delete" {
            return Ok(());
        }
        let ns = str_at(set, "/metadata/namespace");
        let mut owner = owners::new_controller_ref(pod);
        owner["controller"] = json!(false);
        let set_uid = set["metadata"]["uid"].clone();
        for claim in identity::claims(set, ord) {
            let uid = owner["uid"].clone();
            self.api
                .update(
                    &self.claims,
                    ns,
                    str_at(&claim, "/metadata/name"),
                    Subresource::Main,
                    |current| {
                        let refs = list_at(current, "/metadata/ownerReferences");
                        // The Pod's instead of the set's (`updateClaimOwnerRefForSetAndPod`).
                        let mut next: Vec<Value> = refs
                            .iter()
                            .filter(|r| r["uid"] != set_uid)
                            .cloned()
                            .collect();
                        if !next.iter().any(|r| r["uid"] == uid) {
                            next.push(owner.clone());
                        }
                        if next == refs {
                            return Mutation::Keep;
                        }
                        let mut c = current.clone();
                        c["metadata"]["ownerReferences"] = Value::Array(next);
                        Mutation::Write(c)
                    },
                )
                .await
                .map_err(|e| e.message)?;
        }
        Ok(())
    }

    async fn create_pod(&self, set: &Value, pod: Value) -> Result<(), String> {
        let what = format!(
            "Pod {} in StatefulSet {}",
            str_at(&pod, "/metadata/name"),
            str_at(set, "/metadata/name")
        );
        let created = self
            .api
            .create(&self.pods, str_at(set, "/metadata/namespace"), pod)
            .await
            .map(|_| ());
        if let Err(e) = &created
            && e.message.contains("because it is being terminated")
        {
            return Ok(());
        }
        self.record(set, CREATE, &what, created).await
    }

    async fn delete_pod(&self, set: &Value, pod: &Value) -> Result<(), String> {
        let what = format!(
            "Pod {} in StatefulSet {}",
            str_at(pod, "/metadata/name"),
            str_at(set, "/metadata/name")
        );
        let deleted = self
            .api
            .delete(&self.pods, pod, DeleteOptions::default())
            .await;
        self.record(set, DELETE, &what, deleted).await
    }

    /// `recordPodEvent`: the event of `action` on the Pod `what`, its error the pass's.
    async fn record(
        &self,
        set: &Value,
        (verb, succeeded, failed): PodAction,
        what: &str,
        result: Result<(), ApiError>,
    ) -> Result<(), String> {
        match result {
            Ok(()) => {
                let msg = format!("{verb} {what} successful");
                self.api
                    .event(set, "Normal", succeeded, &msg, COMPONENT)
                    .await;
                Ok(())
            }
            Err(e) => {
                let msg = format!("{verb} {what} failed error: {}", e.message);
                self.api
                    .event(set, "Warning", failed, &msg, COMPONENT)
                    .await;
                Err(e.message)
            }
        }
    }

    async fn write_status(&self, set: &Value, edit: impl Fn(&mut Value)) -> Result<(), String> {
        claiming::write_status(&self.api, &self.sets, set, edit).await
    }
}

fn min_ready_seconds(set: &Value) -> i64 {
    set.pointer("/spec/minReadySeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}
