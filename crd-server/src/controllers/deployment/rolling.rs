//! `rolling.go` and `recreate.go`: a rolling update scales the new ReplicaSet up as far
//! as `maxSurge` lets it and the old ones down as far as `maxUnavailable` lets them
//! (unhealthy old replicas first); a `Recreate` Deployment scales every old ReplicaSet
//! to zero, waits until none of their pods runs, then scales the new one up.

use serde_json::Value;

use super::Controller;
use super::util;
use crate::api::object::str_at;
use crate::controllers::workload::{Next, owners, pods};

impl Controller {
    /// `rolloutRolling`.
    pub(super) async fn rollout_rolling(
        &self,
        d: &mut Value,
        sets: Vec<Value>,
    ) -> Result<Next, String> {
        let (new, old) = self.all_sets(d, &sets, true).await?;
        let Some(new) = new else {
            return Err("the new replica set could not be had".into());
        };
        let mut all = old.clone();
        all.push(new.clone());
        if self.reconcile_new(&all, &new, d).await? {
            return self.rollout_status(d, &old, Some(&new)).await;
        }
        let new = self.refresh(std::slice::from_ref(&new)).remove(0);
        let old = self.refresh(&old);
        let mut all = old.clone();
        all.push(new.clone());
        if self
            .reconcile_old(&all, &util::active(&old), &new, d)
            .await?
        {
            return self.rollout_status(d, &old, Some(&new)).await;
        }
        if util::complete(d, d.get("status").unwrap_or(&Value::Null)) {
            self.cleanup(&old, d).await?;
        }
        self.rollout_status(d, &old, Some(&new)).await
    }

    /// `syncRolloutStatus` over the ReplicaSets as they are after this pass's writes.
    async fn rollout_status(
        &self,
        d: &mut Value,
        old: &[Value],
        new: Option<&Value>,
    ) -> Result<Next, String> {
        let mut all = self.refresh(old);
        let new = new.map(|n| self.refresh(std::slice::from_ref(n)).remove(0));
        all.extend(new.clone());
        self.sync_rollout_status(&all, new.as_ref(), d).await
    }

    /// `reconcileNewReplicaSet`: whether the new ReplicaSet was scaled.
    async fn reconcile_new(&self, all: &[Value], new: &Value, d: &Value) -> Result<bool, String> {
        let want = util::replicas(d);
        let have = util::replicas(new);
        if have == want {
            return Ok(false);
        }
        let to = if have > want {
            want
        } else {
            util::new_rs_new_replicas(d, all, new)
        };
        Ok(self.scale_set(new, to, d).await?.1)
    }

    /// `reconcileOldReplicaSets`: whether any old ReplicaSet was scaled down.
    async fn reconcile_old(
        &self,
        all: &[Value],
        old: &[Value],
        new: &Value,
        d: &Value,
    ) -> Result<bool, String> {
        if util::spec_replicas(old) == 0 {
            return Ok(false);
        }
        let all_pods = util::spec_replicas(all);
        let min_available = util::replicas(d) - util::max_unavailable(d);
        let new_unavailable = util::replicas(new) - util::int(new, "/status/availableReplicas");
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return Ok(false);
        }
        let (old, cleaned) = self.cleanup_unhealthy(old, d, max_scaled_down).await?;
        let mut all = old.clone();
        all.push(new.clone());
        let scaled = self.scale_down_old(&all, &old, d).await?;
        Ok(cleaned + scaled > 0)
    }

    /// `cleanupUnhealthyReplicas`: old ReplicaSets lose their unavailable replicas first.
    async fn cleanup_unhealthy(
        &self,
        old: &[Value],
        d: &Value,
        max: i64,
    ) -> Result<(Vec<Value>, i64), String> {
        let mut old = old.to_vec();
        util::by_creation(&mut old);
        let mut total = 0;
        for rs in old.iter_mut() {
            if total >= max {
                break;
            }
            let (want, available) = (
                util::replicas(rs),
                util::int(rs, "/status/availableReplicas"),
            );
            if want == 0 || want == available {
                continue;
            }
            let down = (max - total).min(want - available);
            let (written, _) = self.scale_set(rs, want - down, d).await?;
            *rs = written;
            total += down;
        }
        Ok((old, total))
    }

    /// `scaleDownOldReplicaSetsForRollingUpdate`: oldest first, as far as the available
    /// replicas above `replicas - maxUnavailable` allow.
    async fn scale_down_old(&self, all: &[Value], old: &[Value], d: &Value) -> Result<i64, String> {
        let min_available = util::replicas(d) - util::max_unavailable(d);
        let available = util::sum(all, "/status/availableReplicas");
        if available <= min_available {
            return Ok(0);
        }
        let mut old = old.to_vec();
        util::by_creation(&mut old);
        let budget = available - min_available;
        let mut total = 0;
        for rs in &old {
            if total >= budget {
                break;
            }
            let want = util::replicas(rs);
            if want == 0 {
                continue;
            }
            let down = want.min(budget - total);
            self.scale_set(rs, want - down, d).await?;
            total += down;
        }
        Ok(total)
    }

    /// `rolloutRecreate`.
    pub(super) async fn rollout_recreate(
        &self,
        d: &mut Value,
        sets: Vec<Value>,
    ) -> Result<Next, String> {
        let (mut new, mut old) = self.all_sets(d, &sets, false).await?;
        let mut scaled = false;
        for rs in util::active(&old) {
            scaled |= self.scale_set(&rs, 0, d).await?.1;
        }
        if scaled || self.old_pods_running(new.as_ref(), &old) {
            return self.rollout_status(d, &old, new.as_ref()).await;
        }
        if new.is_none() {
            (new, old) = self.all_sets(d, &sets, true).await?;
        }
        if let Some(n) = &new {
            self.scale_set(n, util::replicas(d), d).await?;
        }
        if util::complete(d, d.get("status").unwrap_or(&Value::Null)) {
            self.cleanup(&old, d).await?;
        }
        self.rollout_status(d, &old, new.as_ref()).await
    }

    /// `oldPodsRunning`: an old ReplicaSet still has replicas, or a pod of one has not
    /// finished (terminating pods included).
    fn old_pods_running(&self, new: Option<&Value>, old: &[Value]) -> bool {
        if util::sum(old, "/status/replicas") > 0 {
            return true;
        }
        let new_uid = new.map(|n| str_at(n, "/metadata/uid")).unwrap_or("");
        let ns = old
            .first()
            .map(|rs| str_at(rs, "/metadata/namespace"))
            .unwrap_or("");
        self.pods.list(Some(ns)).iter().any(|p| {
            old.iter().any(|rs| {
                let uid = str_at(rs, "/metadata/uid");
                uid != new_uid && owners::controller_ref_to(p, uid)
            }) && !pods::is_terminal(p)
        })
    }
}
