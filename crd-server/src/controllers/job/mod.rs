//! The Job controller, as kube-controller-manager's `job`: a Job's Pods are created
//! from its template up to `parallelism` until `completions` succeed (each completion
//! index once for an Indexed Job, with its annotation, label, hostname and
//! `JOB_COMPLETION_INDEX`), and its status counts them (`active`, `ready`,
//! `terminating`, `succeeded`, `failed`, `completedIndexes`). Enough successes give
//! `SuccessCriteriaMet` then, once no Pod runs, `Complete` (reason
//! `CompletionsReached`); more failures than `backoffLimit`, or a run longer than
//! `activeDeadlineSeconds` on the server's clock, give `FailureTarget` then `Failed`
//! (`BackoffLimitExceeded`, `DeadlineExceeded`), the remaining Pods deleted. A
//! suspended Job has its Pods deleted and `Suspended=True`. Successes and failures
//! are counted from the Pods that exist (no `job-tracking` finalizer): a Pod deleted
//! by hand before it was counted is not counted.

mod status;

use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use serde_json::{Value, json};

use super::cache::Informer;
use super::client::Mutation;
use super::clock::parse_time;
use super::workload::claiming;
use super::workload::owners::{self, Claim};
use super::workload::resources::{JOBS, PODS};
use super::workload::{Api, Next, Reconciler, Wiring, create_pods, delete_pods, live, pods};
use crate::api::kinds::Subresource;
use crate::api::object::str_at;
use status::{Counts, INDEX};

/// The component its events come from.
pub const COMPONENT: &str = "job-controller";
/// Passes running at once (`--concurrent-job-syncs`).
const WORKERS: usize = 5;

struct Controller {
    api: Api,
    jobs: Arc<Informer>,
    pods: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([jobs, pods]) = api.informers([JOBS, PODS]) else {
        return;
    };
    let wiring = Wiring::new(&api, &jobs, "Job").owns(&pods, false);
    let c = Controller { api, jobs, pods };
    // A moved clock may pass an active deadline.
    wiring.run_with_clock(WORKERS, c).await;
}

/// What ends a Job: its two conditions, reason and message.
struct Outcome {
    target: &'static str,
    last: &'static str,
    reason: &'static str,
    message: &'static str,
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let Some(job) = live(&self.jobs, key) else {
            return Ok(Next::Done);
        };
        if status::finished(&job) {
            return Ok(Next::Done);
        }
        let mine = self.claim(&job).await?;
        let counts = status::count(&job, &mine);
        let now = self.api.clock.now();
        let stamp = self.api.clock.timestamp();
        let suspended = job.pointer("/spec/suspend") == Some(&Value::Bool(true));
        let mut next = job.get("status").cloned().unwrap_or_else(|| json!({}));
        let mut conditions: Vec<Value> = next
            .get("conditions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut requeue = None;
        if suspended {
            self.delete_pods(&job, &counts.active).await?;
            set_condition(
                &mut conditions,
                "Suspended",
                "True",
                "JobSuspended",
                "Job suspended",
                &stamp,
            );
            if let Some(m) = next.as_object_mut() {
                m.remove("startTime");
            }
        } else {
            if conditions
                .iter()
                .any(|c| c["type"] == "Suspended" && c["status"] == "True")
            {
                set_condition(
                    &mut conditions,
                    "Suspended",
                    "False",
                    "JobResumed",
                    "Job resumed",
                    &stamp,
                );
            }
            if next.get("startTime").is_none_or(Value::is_null) {
                next["startTime"] = json!(stamp);
            }
            let started = next["startTime"]
                .as_str()
                .and_then(parse_time)
                .unwrap_or(now);
            let deadline = job
                .pointer("/spec/activeDeadlineSeconds")
                .and_then(Value::as_i64)
                .map(|s| started + TimeDelta::seconds(s));
            let outcome = self.outcome(
                &job,
                &counts,
                &conditions,
                deadline.is_some_and(|d| d <= now),
            );
            match outcome {
                Some(o) => {
                    self.delete_pods(&job, &counts.active).await?;
                    if !conditions.iter().any(|c| c["type"] == o.target) {
                        conditions.push(status::condition(o.target, o.reason, o.message, &stamp));
                    }
                    if counts.active.is_empty() && counts.terminating == 0 {
                        conditions.push(status::condition(o.last, o.reason, o.message, &stamp));
                        if o.last == "Complete" {
                            next["completionTime"] = json!(stamp);
                            self.api
                                .event(&job, "Normal", "Completed", "Job completed", COMPONENT)
                                .await;
                        } else {
                            self.api
                                .event(&job, "Warning", o.reason, o.message, COMPONENT)
                                .await;
                        }
                    }
                }
                None => {
                    self.create_pods(&job, status::to_create(&job, &counts))
                        .await?;
                    if let Some(d) = deadline {
                        requeue = Some(self.api.clock.until(d) + Duration::from_millis(10));
                    }
                }
            }
        }
        self.write_status(&job, next, conditions, &counts).await?;
        Ok(requeue.map_or(Next::Done, Next::After))
    }
}

impl Controller {
    /// What ends the Job now, if anything (a target already set stays).
    fn outcome(
        &self,
        job: &Value,
        c: &Counts,
        conditions: &[Value],
        past_deadline: bool,
    ) -> Option<Outcome> {
        let set = |kind: &str| {
            conditions
                .iter()
                .find(|x| x["type"] == kind && x["status"] == "True")
        };
        if let Some(t) = set("SuccessCriteriaMet") {
            let _ = t;
            return Some(success());
        }
        if let Some(t) = set("FailureTarget") {
            return Some(if t["reason"] == status::DEADLINE {
                failure(status::DEADLINE, status::DEADLINE_MESSAGE)
            } else {
                failure(status::BACKOFF_LIMIT, status::BACKOFF_MESSAGE)
            });
        }
        if status::complete(job, c) {
            Some(success())
        } else if c.failed > status::backoff_limit(job) {
            Some(failure(status::BACKOFF_LIMIT, status::BACKOFF_MESSAGE))
        } else if past_deadline {
            Some(failure(status::DEADLINE, status::DEADLINE_MESSAGE))
        } else {
            None
        }
    }

    /// The Job's pods: those it controls, and the orphans its selector matches adopted.
    async fn claim(&self, job: &Value) -> Result<Vec<Arc<Value>>, String> {
        let ns = str_at(job, "/metadata/namespace");
        let selector = job.pointer("/spec/selector").cloned().unwrap_or_default();
        let mut mine = Vec::new();
        for pod in self.pods.list(Some(ns)) {
            match owners::claim(job, &selector, &pod) {
                Claim::Keep => mine.push(pod),
                Claim::Adopt => {
                    if let Some(p) = claiming::adopt(&self.api, &self.pods, job, &pod).await? {
                        mine.push(Arc::new(p));
                    }
                }
                Claim::Release | Claim::Ignore => {}
            }
        }
        Ok(mine)
    }

    async fn create_pods(&self, job: &Value, wanted: Vec<Option<i64>>) -> Result<(), String> {
        let name = str_at(job, "/metadata/name");
        let template = job.pointer("/spec/template").cloned().unwrap_or_default();
        let owner = owners::new_controller_ref(job);
        let new = wanted
            .into_iter()
            .map(|index| match index {
                None => pods::from_template(&template, owner.clone(), name),
                Some(i) => indexed_pod(&template, owner.clone(), name, i),
            })
            .collect();
        create_pods(&self.api, &self.pods, job, COMPONENT, new).await
    }

    async fn delete_pods(&self, job: &Value, doomed: &[Arc<Value>]) -> Result<(), String> {
        delete_pods(&self.api, &self.pods, job, COMPONENT, doomed).await
    }

    async fn write_status(
        &self,
        job: &Value,
        mut next: Value,
        conditions: Vec<Value>,
        c: &Counts,
    ) -> Result<(), String> {
        let active = c.active.len() as i64;
        next["active"] = json!(active);
        next["ready"] = json!(c.ready);
        next["terminating"] = json!(c.terminating);
        // Counts never go down (a counted pod deleted by hand stays counted).
        let before = |f: &str| next.get(f).and_then(Value::as_i64).unwrap_or(0);
        let (succeeded, failed) = (
            c.succeeded.max(before("succeeded")),
            c.failed.max(before("failed")),
        );
        next["succeeded"] = json!(succeeded);
        next["failed"] = json!(failed);
        next["uncountedTerminatedPods"] = json!({});
        if status::indexed(job) {
            next["completedIndexes"] = json!(status::intervals(&c.succeeded_indexes));
        }
        if let Some(m) = next.as_object_mut() {
            for f in ["active", "succeeded", "failed"] {
                if m.get(f) == Some(&json!(0)) {
                    m.remove(f);
                }
            }
            if conditions.is_empty() {
                m.remove("conditions");
            } else {
                m.insert("conditions".into(), Value::Array(conditions));
            }
        }
        if job.get("status") == Some(&next) {
            return Ok(());
        }
        let mutate = |current: &Value| {
            let mut obj = current.clone();
            obj["status"] = next.clone();
            Mutation::Write(obj)
        };
        self.api
            .update_same(&self.jobs, job, Subresource::Status, mutate)
            .await
            .map(|_| ())
            .map_err(|e| e.message)
    }
}

fn success() -> Outcome {
    Outcome {
        target: "SuccessCriteriaMet",
        last: "Complete",
        reason: status::COMPLETIONS_REACHED,
        message: status::COMPLETIONS_MESSAGE,
    }
}

fn failure(reason: &'static str, message: &'static str) -> Outcome {
    Outcome {
        target: "FailureTarget",
        last: "Failed",
        reason,
        message,
    }
}

/// Sets a condition of `kind` (its transition time kept when the status stays).
fn set_condition(
    conds: &mut Vec<Value>,
    kind: &str,
    state: &str,
    reason: &str,
    message: &str,
    now: &str,
) {
    if let Some(c) = conds.iter_mut().find(|c| c["type"] == kind) {
        if c["status"] != state {
            *c = json!({"type": kind, "status": state, "lastProbeTime": now,
                        "lastTransitionTime": now, "reason": reason, "message": message});
        }
        return;
    }
    conds.push(json!({"type": kind, "status": state, "lastProbeTime": now,
                      "lastTransitionTime": now, "reason": reason, "message": message}));
}

/// A pod of an Indexed Job: named `<job>-<index>-…`, with the index as annotation,
/// label, `hostname` and `JOB_COMPLETION_INDEX` in every container.
fn indexed_pod(template: &Value, owner: Value, job: &str, index: i64) -> Value {
    let mut pod = pods::from_template(template, owner, &format!("{job}-{index}"));
    let i = index.to_string();
    let meta = crate::api::object::meta_mut(&mut pod);
    for field in ["annotations", "labels"] {
        let map = meta.entry(field).or_insert_with(|| json!({}));
        if map.is_object() {
            map[INDEX] = json!(i);
        }
    }
    if str_at(&pod, "/spec/hostname").is_empty() {
        pod["spec"]["hostname"] = json!(format!("{job}-{index}"));
    }
    let env = json!({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "fieldPath": format!("metadata.annotations['{INDEX}']")}}});
    for list in ["containers", "initContainers"] {
        if let Some(cs) = pod["spec"].get_mut(list).and_then(Value::as_array_mut) {
            for c in cs {
                let vars = c
                    .as_object_mut()
                    .map(|c| c.entry("env").or_insert_with(|| json!([])));
                if let Some(Value::Array(vars)) = vars
                    && !vars.iter().any(|v| v["name"] == "JOB_COMPLETION_INDEX")
                {
                    vars.push(env.clone());
                }
            }
        }
    }
    pod
}
