//! `progress.go`: the `Progressing` condition during a rollout — `NewReplicaSetAvailable`
//! once complete, `ReplicaSetUpdated` while it moves, `ProgressDeadlineExceeded` when it
//! has not moved for `progressDeadlineSeconds` — the ReplicaSets' `ReplicaFailure`
//! brought up, and another pass at the deadline of a rollout that is not moving.

use std::time::Duration;

use serde_json::Value;

use super::Controller;
use super::sync::{set_status_conditions, status_conditions};
use super::util::{self, reason};
use crate::api::object::str_at;
use crate::controllers::workload::{Next, conditions};

impl Controller {
    /// `syncRolloutStatus`.
    pub(super) async fn sync_rollout_status(
        &self,
        all: &[Value],
        new: Option<&Value>,
        d: &mut Value,
    ) -> Result<Next, String> {
        let mut status = self.calculate_status(all, new, d);
        let mut conds = status_conditions(&status);
        if !util::has_progress_deadline(d) {
            conditions::remove(&mut conds, "Progressing");
        }
        let current_conds = status_conditions(d.get("status").unwrap_or(&Value::Null));
        let current = conditions::get(&current_conds, "Progressing").cloned();
        let complete_before = util::int(&status, "/replicas")
            == util::int(&status, "/updatedReplicas")
            && current
                .as_ref()
                .is_some_and(|c| c["reason"] == reason::NEW_RS_AVAILABLE);
        let subject = |what: &str| match new {
            Some(n) => format!("ReplicaSet {:?} {what}", str_at(n, "/metadata/name")),
            None => format!("Deployment {:?} {what}", str_at(d, "/metadata/name")),
        };
        let now = self.api.clock.timestamp();
        set_status_conditions(&mut status, conds.clone());
        if util::has_progress_deadline(d) && !complete_before {
            if util::complete(d, &status) {
                let msg = subject("has successfully progressed.");
                conditions::set(
                    &mut conds,
                    conditions::new("Progressing", "True", reason::NEW_RS_AVAILABLE, &msg, &now),
                );
            } else if util::progressing(d, &status) {
                let msg = subject("is progressing.");
                let mut cond = conditions::new(
                    "Progressing",
                    "True",
                    reason::REPLICA_SET_UPDATED,
                    &msg,
                    &now,
                );
                if let Some(c) = &current {
                    if c["status"] == "True" {
                        cond["lastTransitionTime"] = c["lastTransitionTime"].clone();
                    }
                    conditions::remove(&mut conds, "Progressing");
                }
                conditions::set(&mut conds, cond);
            } else if util::timed_out(d, &status, self.api.clock.now()) {
                let msg = subject("has timed out progressing.");
                conditions::set(
                    &mut conds,
                    conditions::new("Progressing", "False", reason::TIMED_OUT, &msg, &now),
                );
            }
        }
        match replica_failure(all, new) {
            Some(c) => conditions::set(&mut conds, c),
            None => conditions::remove(&mut conds, "ReplicaFailure"),
        }
        set_status_conditions(&mut status, conds);
        if d.get("status") == Some(&status) {
            return Ok(self.requeue_stuck(d, &status));
        }
        self.write_status(d, status).await?;
        Ok(Next::Done)
    }

    /// `requeueStuckDeployment`: a rollout that has not completed or timed out is
    /// looked at again when its deadline passes.
    fn requeue_stuck(&self, d: &Value, status: &Value) -> Next {
        if util::complete(d, status) {
            return Next::Done;
        }
        match util::deadline(d, d.get("status").unwrap_or(&Value::Null)) {
            Some(at) => {
                let after = self.api.clock.until(at);
                if after < Duration::from_secs(1) {
                    Next::After(Duration::from_millis(100))
                } else {
                    Next::After(after + Duration::from_secs(1))
                }
            }
            None => Next::Done,
        }
    }
}

/// `getReplicaFailures`: the new ReplicaSet's `ReplicaFailure` condition, else the
/// first of another's, as a Deployment condition.
fn replica_failure(all: &[Value], new: Option<&Value>) -> Option<Value> {
    let of = |rs: &Value| {
        conditions::of(rs)
            .into_iter()
            .find(|c| c["type"] == "ReplicaFailure")
            .map(|c| {
                serde_json::json!({
                    "type": "ReplicaFailure",
                    "status": c["status"],
                    "lastUpdateTime": c["lastTransitionTime"],
                    "lastTransitionTime": c["lastTransitionTime"],
                    "reason": c["reason"],
                    "message": c["message"],
                })
            })
    };
    new.and_then(of).or_else(|| all.iter().find_map(of))
}
