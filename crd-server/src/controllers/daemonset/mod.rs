//! The DaemonSet controller, as kube-controller-manager's `daemonset`
//! (`pkg/controller/daemon`): one Pod on every node that should run it
//! ([`placement::should_run`]: node selector, node affinity, taints against the
//! template's tolerations and those every daemon Pod gets), each Pod pinned to its node
//! by a required node affinity on `metadata.name` so that the scheduler binds it; Pods
//! on nodes that should not keep them deleted, as are failed ones and extras. Every
//! template is a ControllerRevision ([`history`]); a `RollingUpdate` replaces Pods
//! within `maxUnavailable` / `maxSurge` ([`rolling`]). Node changes (a node added,
//! relabelled, tainted) are seen at once. The status is what `kubectl rollout status
//! daemonset/NAME` reads.

mod placement;
mod rolling;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::cache::{Informer, key_of};
use super::workload::intstr::scaled;
use super::workload::resources::{DAEMON_SETS, NODES, PODS, REVISIONS};
use super::workload::{
    Api, Next, Reconciler, Wiring, claiming, create_pods, delete_pods, history, live, pods,
    when_available,
};
use crate::api::object::{is_deleting, str_at};
use placement::{REVISION, is_updated, new_pod, should_run, target_node};

/// The component its events come from.
pub const COMPONENT: &str = "daemonset-controller";
/// Passes running at once (`--concurrent-daemonset-syncs`).
const WORKERS: usize = 2;

struct Controller {
    api: Api,
    sets: Arc<Informer>,
    pods: Arc<Informer>,
    nodes: Arc<Informer>,
    revisions: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([sets, pods, nodes, revisions]) = api.informers([DAEMON_SETS, PODS, NODES, REVISIONS])
    else {
        return;
    };
    let wiring = Wiring::new(&api, &sets, "DaemonSet")
        .owns(&pods, true)
        .owns(&revisions, false)
        .reads(&nodes);
    // A node added, relabelled or tainted may change where every set runs.
    let (q, all) = (wiring.queue().clone(), sets.clone());
    nodes.subscribe(Arc::new(move |_| {
        for ds in all.list(None) {
            q.add(key_of(&ds));
        }
    }));
    let c = Controller {
        api,
        sets,
        pods,
        nodes,
        revisions,
    };
    wiring.run_with_clock(WORKERS, c).await;
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let Some(ds) = live(&self.sets, key) else {
            return Ok(Next::Done);
        };
        let ns = str_at(&ds, "/metadata/namespace");
        let mine = claiming::claim(&self.api, &self.pods, &ds, self.pods.list(Some(ns))).await?;
        let revs = history::controlled(&self.revisions, &ds);
        let (current, collisions) =
            history::ensure_template(&self.api, &self.revisions, &self.sets, &ds, &revs).await?;
        let hash = str_at(&current, &format!("/metadata/labels/{REVISION}")).to_string();
        let pass = self.manage(&ds, &mine, &hash).await;
        let mine = self.owned(&ds);
        let status = self.status(&ds, &mine, &hash);
        let observed = ds["metadata"]["generation"].clone();
        claiming::write_status(&self.api, &self.sets, &ds, |s| {
            claiming::set_fields(s, &status);
            s["observedGeneration"] = observed.clone();
            if collisions > 0 {
                s["collisionCount"] = json!(collisions);
            }
        })
        .await?;
        let revs = history::controlled(&self.revisions, &ds);
        let live: Vec<&str> = revs
            .iter()
            .filter(|r| {
                let h = str_at(r, &format!("/metadata/labels/{REVISION}"));
                h == hash || mine.iter().any(|p| is_updated(p, h))
            })
            .map(|r| str_at(r, "/metadata/name"))
            .collect();
        let limit = ds
            .pointer("/spec/revisionHistoryLimit")
            .and_then(Value::as_i64)
            .unwrap_or(10);
        history::truncate(&self.api, &self.revisions, &revs, &live, limit).await?;
        pass?;
        Ok(when_available(&self.api.clock, &mine, min_ready(&ds)))
    }
}

impl Controller {
    /// The set's Pods in the cache.
    fn owned(&self, ds: &Value) -> Vec<Arc<Value>> {
        let uid = str_at(ds, "/metadata/uid");
        self.pods
            .list(Some(str_at(ds, "/metadata/namespace")))
            .into_iter()
            .filter(|p| super::workload::owners::controller_ref_to(p, uid))
            .collect()
    }

    /// `getNodesToDaemonPods`: the set's Pods by the node they are for (oldest first).
    fn by_node(mine: &[Arc<Value>]) -> BTreeMap<String, Vec<Arc<Value>>> {
        let mut out: BTreeMap<String, Vec<Arc<Value>>> = BTreeMap::new();
        for p in mine {
            if pods::is_terminal(p) && is_deleting(p) {
                continue;
            }
            if let Some(node) = target_node(p) {
                out.entry(node.to_string()).or_default().push(p.clone());
            }
        }
        for list in out.values_mut() {
            list.sort_by(|a, b| {
                str_at(a, "/metadata/creationTimestamp")
                    .cmp(str_at(b, "/metadata/creationTimestamp"))
                    .then_with(|| str_at(a, "/metadata/name").cmp(str_at(b, "/metadata/name")))
            });
        }
        out
    }

    /// `manage` and `rollingUpdate`: the Pods to create and delete, node by node.
    async fn manage(&self, ds: &Value, mine: &[Arc<Value>], hash: &str) -> Result<(), String> {
        let on_node = Self::by_node(mine);
        let surge_allowed = self.max_counts(ds, 0).0 > 0;
        let (mut create_on, mut delete): (Vec<String>, Vec<Arc<Value>>) = (vec![], vec![]);
        let mut eligible = BTreeMap::new();
        let nodes = self.nodes.list(None);
        for node in &nodes {
            let node_name = str_at(node, "/metadata/name").to_string();
            let (run, keep) = should_run(ds, node);
            let here = on_node.get(&node_name).cloned().unwrap_or_default();
            if run {
                eligible.insert(node_name.clone(), here.clone());
            }
            if run && here.is_empty() {
                create_on.push(node_name);
                continue;
            }
            if !keep {
                delete.extend(here.into_iter().filter(|p| !is_deleting(p)));
                continue;
            }
            let (failed, running): (Vec<_>, Vec<_>) = here
                .into_iter()
                .filter(|p| !is_deleting(p))
                .partition(|p| pods::phase(p) == "Failed");
            delete.extend(failed);
            delete.extend(extras(
                &running,
                hash,
                surge_allowed,
                min_ready(ds),
                &self.api,
            ));
        }
        // Unscheduled Pods for nodes that are gone.
        for (node, list) in &on_node {
            if !nodes.iter().any(|n| str_at(n, "/metadata/name") == node) {
                delete.extend(
                    list.iter()
                        .filter(|p| str_at(p, "/spec/nodeName").is_empty() && !is_deleting(p))
                        .cloned(),
                );
            }
        }
        if str_at(ds, "/spec/updateStrategy/type") == "RollingUpdate" {
            let (surge, unavailable) = self.max_counts(ds, eligible.len() as i64);
            let plan = rolling::plan(
                &eligible,
                hash,
                surge,
                unavailable,
                min_ready(ds),
                self.api.clock.now(),
            );
            create_on.extend(plan.create_on);
            for p in plan.delete {
                if !delete
                    .iter()
                    .any(|d| d["metadata"]["uid"] == p["metadata"]["uid"])
                {
                    delete.push(p);
                }
            }
        }
        let deleted = delete_pods(&self.api, &self.pods, ds, COMPONENT, &delete).await;
        let new: Vec<Value> = create_on.iter().map(|n| new_pod(ds, n, hash)).collect();
        let created = create_pods(&self.api, &self.pods, ds, COMPONENT, new).await;
        deleted.and(created)
    }

    /// (`maxSurge`, `maxUnavailable`) of `desired` nodes, rounded up; both zero gives
    /// one unavailable.
    fn max_counts(&self, ds: &Value, desired: i64) -> (i64, i64) {
        let ru = ds.pointer("/spec/updateStrategy/rollingUpdate");
        let get = |f: &str| ru.and_then(|r| r.get(f));
        let surge = scaled(get("maxSurge"), desired, true, 0).unwrap_or(0);
        let unavailable = scaled(get("maxUnavailable"), desired, true, 1).unwrap_or(1);
        if surge == 0 && unavailable == 0 {
            (0, 1)
        } else {
            (surge, unavailable)
        }
    }

    /// `updateDaemonSetStatus`'s counts.
    fn status(&self, ds: &Value, mine: &[Arc<Value>], hash: &str) -> Value {
        let on_node = Self::by_node(mine);
        let now = self.api.clock.now();
        let (mut desired, mut current, mut mis, mut ready, mut available, mut updated) =
            (0i64, 0i64, 0i64, 0i64, 0i64, 0i64);
        for node in self.nodes.list(None) {
            let (run, _) = should_run(ds, &node);
            let here = on_node.get(str_at(&node, "/metadata/name"));
            let first = here.and_then(|l| l.first());
            match (run, first) {
                (true, None) => desired += 1,
                (true, Some(p)) => {
                    desired += 1;
                    current += 1;
                    if pods::is_ready(p) {
                        ready += 1;
                        if pods::is_available(p, min_ready(ds), now) {
                            available += 1;
                        }
                    }
                    if is_updated(p, hash) {
                        updated += 1;
                    }
                }
                (false, Some(_)) => mis += 1,
                (false, None) => {}
            }
        }
        let omit_zero = |n: i64| if n == 0 { Value::Null } else { json!(n) };
        json!({
            "desiredNumberScheduled": desired,
            "currentNumberScheduled": current,
            "numberMisscheduled": mis,
            "numberReady": ready,
            "updatedNumberScheduled": omit_zero(updated),
            "numberAvailable": omit_zero(available),
            "numberUnavailable": omit_zero(desired - available),
        })
    }
}

/// `podsShouldBeOnNode`'s extras among a node's running Pods (oldest first): without
/// surge all but the oldest; with it the oldest new and oldest old Pod stay, the old one
/// until it is not ready or the new one is available.
fn extras(
    running: &[Arc<Value>],
    hash: &str,
    surge: bool,
    min_ready: i64,
    api: &Api,
) -> Vec<Arc<Value>> {
    if running.len() <= 1 {
        return Vec::new();
    }
    if !surge {
        return running[1..].to_vec();
    }
    let (mut new, mut old, mut out) = (None, None, Vec::new());
    for p in running {
        let slot = if is_updated(p, hash) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_none() {
            *slot = Some(p.clone());
        } else {
            out.push(p.clone());
        }
    }
    if let (Some(new), Some(old)) = (new, old)
        && (!pods::is_ready(&old) || pods::is_available(&new, min_ready, api.clock.now()))
    {
        out.push(old);
    }
    out
}

fn min_ready(ds: &Value) -> i64 {
    ds.pointer("/spec/minReadySeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}
