//! `sync.go`: the new ReplicaSet found or created (with its revision, annotations and
//! name from the template's hash), proportional scaling on a scaling event or while
//! paused, the old ReplicaSets beyond `revisionHistoryLimit` deleted, and the status
//! computed from the ReplicaSets.

use serde_json::{Map, Value, json};

use super::util::{self, reason};
use super::{COMPONENT, Controller};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::api::request::DeleteOptions;
use crate::controllers::client::Mutation;
use crate::controllers::workload::owners::new_controller_ref;
use crate::controllers::workload::{conditions, object_at};

pub(super) use super::util::status_conditions;

pub(super) fn set_status_conditions(status: &mut Value, conds: Vec<Value>) {
    if !status.is_object() {
        *status = json!({});
    }
    if conds.is_empty() {
        if let Some(m) = status.as_object_mut() {
            m.remove("conditions");
        }
    } else {
        status["conditions"] = Value::Array(conds);
    }
}

/// Sets one condition of `d`'s status (`SetDeploymentCondition`).
pub(super) fn set_condition(d: &mut Value, cond: Value) {
    let mut status = d.get("status").cloned().unwrap_or_else(|| json!({}));
    let mut conds = status_conditions(&status);
    conditions::set(&mut conds, cond);
    set_status_conditions(&mut status, conds);
    d["status"] = status;
}

impl Controller {
    /// The ReplicaSets as the cache holds them now (after this pass's writes).
    pub(super) fn refresh(&self, sets: &[Value]) -> Vec<Value> {
        sets.iter()
            .map(|rs| {
                self.sets
                    .get(
                        str_at(rs, "/metadata/namespace"),
                        str_at(rs, "/metadata/name"),
                    )
                    .filter(|c| c["metadata"]["uid"] == rs["metadata"]["uid"])
                    .map(|c| (*c).clone())
                    .unwrap_or_else(|| rs.clone())
            })
            .collect()
    }

    /// `getAllReplicaSetsAndSyncRevision`: the new ReplicaSet (created when `create`
    /// and missing) and every old one.
    pub(super) async fn all_sets(
        &self,
        d: &mut Value,
        sets: &[Value],
        create: bool,
    ) -> Result<(Option<Value>, Vec<Value>), String> {
        let found = util::find_new(d, sets);
        let old: Vec<Value> = sets
            .iter()
            .filter(|rs| {
                found
                    .as_ref()
                    .is_none_or(|n| n["metadata"]["uid"] != rs["metadata"]["uid"])
            })
            .cloned()
            .collect();
        let new = self.new_set(d, found, &old, create).await?;
        Ok((new, old))
    }

    /// `getNewReplicaSet`.
    async fn new_set(
        &self,
        d: &mut Value,
        existing: Option<Value>,
        old: &[Value],
        create: bool,
    ) -> Result<Option<Value>, String> {
        let ns = str_at(d, "/metadata/namespace").to_string();
        let new_revision = util::max_revision(old) + 1;
        let min_ready = d.pointer("/spec/minReadySeconds").cloned();
        if let Some(existing) = existing {
            let mut copy = existing.clone();
            let annotated = util::set_new_annotations(d, &mut copy, new_revision, true);
            if annotated || copy.pointer("/spec/minReadySeconds") != min_ready.as_ref() {
                let uid = existing["metadata"]["uid"].clone();
                let dd = d.clone();
                let min_ready = min_ready.clone();
                let mutate = |current: &Value| {
                    if current["metadata"]["uid"] != uid {
                        return Mutation::Keep;
                    }
                    let mut next = current.clone();
                    util::set_new_annotations(&dd, &mut next, new_revision, true);
                    match &min_ready {
                        Some(m) => next["spec"]["minReadySeconds"] = m.clone(),
                        None => {
                            if let Some(spec) = next.get_mut("spec").and_then(Value::as_object_mut)
                            {
                                spec.remove("minReadySeconds");
                            }
                        }
                    }
                    Mutation::Write(next)
                };
                let name = str_at(&existing, "/metadata/name").to_string();
                let written = self
                    .api
                    .update(&self.sets, &ns, &name, Subresource::Main, mutate)
                    .await
                    .map_err(|e| e.message)?;
                return Ok(written);
            }
            let rev = util::annotation(&copy, util::REVISION)
                .unwrap_or("")
                .to_string();
            let mut needs_update = set_revision(d, &rev);
            let conds = status_conditions(d.get("status").unwrap_or(&Value::Null));
            if util::has_progress_deadline(d) && conditions::get(&conds, "Progressing").is_none() {
                self.new_set_progressing(d, reason::FOUND_NEW_RS, "Found", &copy);
                needs_update = true;
            }
            self.write_status_if(d, needs_update).await?;
            return Ok(Some(copy));
        }
        if !create {
            return Ok(None);
        }
        let collisions = d.pointer("/status/collisionCount").and_then(Value::as_i64);
        let template = d.pointer("/spec/template").cloned().unwrap_or_default();
        let hash = util::template_hash(&template, collisions);
        let mut rs_template = template.clone();
        object_at(&mut rs_template, &["metadata", "labels"])[util::HASH_LABEL] = json!(hash);
        let mut selector = d.pointer("/spec/selector").cloned().unwrap_or_default();
        object_at(&mut selector, &["matchLabels"])[util::HASH_LABEL] = json!(hash);
        let name = format!("{}-{hash}", str_at(d, "/metadata/name"));
        let mut spec = Map::new();
        spec.insert("replicas".into(), json!(0));
        if let Some(m) = &min_ready {
            spec.insert("minReadySeconds".into(), m.clone());
        }
        spec.insert("selector".into(), selector);
        spec.insert("template".into(), rs_template.clone());
        let mut new_rs = json!({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": name,
                "namespace": ns,
                "ownerReferences": [new_controller_ref(d)],
                "labels": rs_template["metadata"]["labels"],
            },
            "spec": spec,
        });
        let mut all = old.to_vec();
        all.push(new_rs.clone());
        let replicas = util::new_rs_new_replicas(d, &all, &new_rs);
        new_rs["spec"]["replicas"] = json!(replicas);
        util::set_new_annotations(d, &mut new_rs, new_revision, false);
        let (created, already) = match self.api.create(&self.sets, &ns, new_rs).await {
            Ok(c) => (c, false),
            Err(e) if e.code == http::StatusCode::CONFLICT && e.reason == "AlreadyExists" => {
                let current = self
                    .api
                    .client
                    .get(self.sets.resource(), Some(&ns), &name)
                    .await
                    .map_err(|e| e.message)?;
                let ours = current.as_ref().is_some_and(|rs| {
                    crate::controllers::workload::owners::controller_ref_to(
                        rs,
                        str_at(d, "/metadata/uid"),
                    ) && util::equal_ignore_hash(
                        &template,
                        rs.pointer("/spec/template").unwrap_or(&Value::Null),
                    )
                });
                match current {
                    Some(rs) if ours => {
                        self.sets.wrote(&rs);
                        (rs, true)
                    }
                    _ => {
                        // A hash collision: the next pass names it with another hash.
                        let mut status = d.get("status").cloned().unwrap_or_else(|| json!({}));
                        status["collisionCount"] = json!(collisions.unwrap_or(0) + 1);
                        self.write_status(d, status).await?;
                        return Err(e.message);
                    }
                }
            }
            Err(e) if e.message.contains("because it is being terminated") => {
                return Err(e.message);
            }
            Err(e) => {
                let msg = format!("Failed to create new replica set {name:?}: {}", e.message);
                if util::has_progress_deadline(d) {
                    let now = self.api.clock.timestamp();
                    set_condition(
                        d,
                        conditions::new(
                            "Progressing",
                            "False",
                            reason::FAILED_RS_CREATE,
                            &msg,
                            &now,
                        ),
                    );
                    let status = d.get("status").cloned().unwrap_or_default();
                    let _ = self.write_status(d, status).await;
                }
                self.api
                    .event(d, "Warning", reason::FAILED_RS_CREATE, &msg, COMPONENT)
                    .await;
                return Err(e.message);
            }
        };
        if !already && replicas > 0 {
            let msg = format!(
                "Scaled up replica set {} from 0 to {replicas}",
                str_at(&created, "/metadata/name")
            );
            self.api
                .event(d, "Normal", "ScalingReplicaSet", &msg, COMPONENT)
                .await;
        }
        let mut needs_update = set_revision(d, &new_revision.to_string());
        if !already && util::has_progress_deadline(d) {
            self.new_set_progressing(d, reason::NEW_REPLICA_SET, "Created", &created);
            needs_update = true;
        }
        self.write_status_if(d, needs_update).await?;
        Ok(Some(created))
    }

    /// `Progressing=True` on `d` with `reason`, for its new ReplicaSet `rs` (`how`:
    /// "Found" or "Created").
    fn new_set_progressing(&self, d: &mut Value, reason: &str, how: &str, rs: &Value) {
        let msg = format!("{how} new replica set {:?}", str_at(rs, "/metadata/name"));
        let now = self.api.clock.timestamp();
        set_condition(
            d,
            conditions::new("Progressing", "True", reason, &msg, &now),
        );
    }

    /// Writes the status `d` carries when `changed`.
    async fn write_status_if(&self, d: &mut Value, changed: bool) -> Result<(), String> {
        if changed {
            let status = d.get("status").cloned().unwrap_or_default();
            self.write_status(d, status).await?;
        }
        Ok(())
    }

    /// `scaleReplicaSetAndRecordEvent` / `scaleReplicaSet`: the ReplicaSet at `to`
    /// replicas with the Deployment's replica annotations; the ReplicaSet now and
    /// whether its size changed.
    pub(super) async fn scale_set(
        &self,
        rs: &Value,
        to: i64,
        d: &Value,
    ) -> Result<(Value, bool), String> {
        let from = util::replicas(rs);
        let (desired, max) = (util::replicas(d), util::replicas(d) + util::max_surge(d));
        let mut probe = rs.clone();
        let annotations = util::set_replicas_annotations(&mut probe, desired, max);
        if from == to && !annotations {
            return Ok((rs.clone(), false));
        }
        let mutate = |current: &Value| {
            let mut next = current.clone();
            next["spec"]["replicas"] = json!(to);
            util::set_replicas_annotations(&mut next, desired, max);
            Mutation::Write(next)
        };
        let written = self
            .api
            .update_same(&self.sets, rs, Subresource::Main, mutate)
            .await
            .map_err(|e| e.message)?;
        let Some(written) = written else {
            return Ok((rs.clone(), false));
        };
        if from != to {
            let op = if from < to { "up" } else { "down" };
            let name = str_at(rs, "/metadata/name");
            let msg = format!("Scaled {op} replica set {name} from {from} to {to}");
            self.api
                .event(d, "Normal", "ScalingReplicaSet", &msg, COMPONENT)
                .await;
        }
        Ok((written, from != to))
    }

    /// `scale`: the replicas of a scaling event (or of a paused Deployment) shared out
    /// among the active ReplicaSets in proportion to their size.
    pub(super) async fn scale(
        &self,
        d: &Value,
        new: Option<&Value>,
        old: &[Value],
    ) -> Result<(), String> {
        if let Some(target) = active_or_latest(new, old) {
            if util::replicas(&target) != util::replicas(d) {
                self.scale_set(&target, util::replicas(d), d).await?;
            }
            return Ok(());
        }
        if util::is_saturated(d, new) {
            for rs in util::active(old) {
                self.scale_set(&rs, 0, d).await?;
            }
            return Ok(());
        }
        if !util::is_rolling(d) {
            return Ok(());
        }
        let mut all = old.to_vec();
        all.extend(new.cloned());
        let mut all = util::active(&all);
        let allowed = if util::replicas(d) > 0 {
            util::replicas(d) + util::max_surge(d)
        } else {
            0
        };
        let to_add = allowed - util::spec_replicas(&all);
        // Larger first; among equals newer first when growing, older first when
        // shrinking.
        all.sort_by(|a, b| {
            let t = |v: &Value| str_at(v, "/metadata/creationTimestamp").to_string();
            let by_age = if to_add > 0 {
                t(b).cmp(&t(a))
            } else {
                t(a).cmp(&t(b))
            };
            util::replicas(b).cmp(&util::replicas(a)).then(by_age)
        });
        let mut added = 0;
        let mut sizes: Vec<i64> = Vec::with_capacity(all.len());
        for rs in &all {
            if to_add != 0 {
                let p = util::proportion(rs, d, to_add, added);
                sizes.push(util::replicas(rs) + p);
                added += p;
            } else {
                sizes.push(util::replicas(rs));
            }
        }
        for (i, rs) in all.iter().enumerate() {
            if i == 0 && to_add != 0 {
                sizes[0] = (sizes[0] + to_add - added).max(0);
            }
            self.scale_set(rs, sizes[i], d).await?;
        }
        Ok(())
    }

    /// `cleanupDeployment`: deletes the oldest idle ReplicaSets beyond
    /// `revisionHistoryLimit`.
    pub(super) async fn cleanup(&self, old: &[Value], d: &Value) -> Result<(), String> {
        let Some(limit) = d
            .pointer("/spec/revisionHistoryLimit")
            .and_then(Value::as_i64)
            .filter(|l| *l != i64::from(i32::MAX))
        else {
            return Ok(());
        };
        let mut cleanable: Vec<Value> = old.iter().filter(|rs| !is_deleting(rs)).cloned().collect();
        let diff = cleanable.len() as i64 - limit;
        if diff <= 0 {
            return Ok(());
        }
        cleanable.sort_by(|a, b| {
            util::revision(a).cmp(&util::revision(b)).then_with(|| {
                str_at(a, "/metadata/creationTimestamp")
                    .cmp(str_at(b, "/metadata/creationTimestamp"))
            })
        });
        for rs in cleanable.iter().take(diff as usize) {
            let busy = util::int(rs, "/status/replicas") != 0
                || util::replicas(rs) != 0
                || util::int(rs, "/metadata/generation")
                    > util::int(rs, "/status/observedGeneration");
            if busy {
                continue;
            }
            self.api
                .delete(&self.sets, rs, DeleteOptions::default())
                .await
                .map_err(|e| e.message)?;
        }
        Ok(())
    }

    /// `calculateStatus`.
    pub(super) fn calculate_status(&self, all: &[Value], new: Option<&Value>, d: &Value) -> Value {
        let available = util::sum(all, "/status/availableReplicas");
        let total = util::spec_replicas(all);
        let unavailable = (total - available).max(0);
        let mut status = Map::new();
        let put = |m: &mut Map<String, Value>, k: &str, v: i64| {
            if v != 0 {
                m.insert(k.into(), json!(v));
            }
        };
        put(
            &mut status,
            "observedGeneration",
            util::int(d, "/metadata/generation"),
        );
        put(&mut status, "replicas", util::sum(all, "/status/replicas"));
        put(
            &mut status,
            "updatedReplicas",
            new.map(|n| util::int(n, "/status/replicas")).unwrap_or(0),
        );
        put(
            &mut status,
            "readyReplicas",
            util::sum(all, "/status/readyReplicas"),
        );
        put(&mut status, "availableReplicas", available);
        put(&mut status, "unavailableReplicas", unavailable);
        if let Some(c) = d.pointer("/status/collisionCount") {
            status.insert("collisionCount".into(), c.clone());
        }
        let mut status = Value::Object(status);
        let mut conds = status_conditions(d.get("status").unwrap_or(&Value::Null));
        let now = self.api.clock.timestamp();
        let cond = if available >= util::replicas(d) - util::max_unavailable(d) {
            conditions::new(
                "Available",
                "True",
                reason::MINIMUM_AVAILABLE,
                "Deployment has minimum availability.",
                &now,
            )
        } else {
            conditions::new(
                "Available",
                "False",
                reason::MINIMUM_UNAVAILABLE,
                "Deployment does not have minimum availability.",
                &now,
            )
        };
        conditions::set(&mut conds, cond);
        set_status_conditions(&mut status, conds);
        status
    }

    /// `syncDeploymentStatus`: writes the status if it changed.
    pub(super) async fn sync_status(
        &self,
        all: &[Value],
        new: Option<&Value>,
        d: &mut Value,
    ) -> Result<(), String> {
        let status = self.calculate_status(all, new, d);
        if d.get("status") != Some(&status) {
            self.write_status(d, status).await?;
        }
        Ok(())
    }

    /// `syncStatusOnly`: a Deployment being deleted only reports.
    pub(super) async fn sync_status_only(
        &self,
        d: &mut Value,
        sets: Vec<Value>,
    ) -> Result<(), String> {
        let (new, mut all) = self.all_sets(d, &sets, false).await?;
        all.extend(new.clone());
        self.sync_status(&all, new.as_ref(), d).await
    }

    /// `sync`: a paused Deployment or a scaling event — scale, clean up (paused), report.
    pub(super) async fn sync_paused_or_scaled(
        &self,
        d: &mut Value,
        sets: Vec<Value>,
    ) -> Result<(), String> {
        let (new, old) = self.all_sets(d, &sets, false).await?;
        self.scale(d, new.as_ref(), &old).await?;
        let old = self.refresh(&old);
        let new = new.map(|n| self.refresh(std::slice::from_ref(&n)).remove(0));
        if d.pointer("/spec/paused") == Some(&Value::Bool(true)) {
            self.cleanup(&old, d).await?;
        }
        let mut all = old;
        all.extend(new.clone());
        self.sync_status(&all, new.as_ref(), d).await
    }

    /// `isScalingEvent`: an active ReplicaSet was sized for other replicas than the
    /// Deployment's.
    pub(super) async fn is_scaling_event(
        &self,
        d: &mut Value,
        sets: &[Value],
    ) -> Result<bool, String> {
        let (new, mut all) = self.all_sets(d, sets, false).await?;
        all.extend(new);
        Ok(util::active(&all).iter().any(|rs| {
            util::annotation(rs, util::DESIRED_REPLICAS)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|desired| desired != util::replicas(d))
        }))
    }

    /// `checkPausedConditions`: the Progressing condition says the Deployment is
    /// paused or resumed (so time paused does not count against its deadline).
    pub(super) async fn check_paused(&self, d: &mut Value) -> Result<(), String> {
        if !util::has_progress_deadline(d) {
            return Ok(());
        }
        let conds = status_conditions(d.get("status").unwrap_or(&Value::Null));
        let cond = conditions::get(&conds, "Progressing");
        if cond.is_some_and(|c| c["reason"] == reason::TIMED_OUT) {
            return Ok(());
        }
        let paused_cond = cond.is_some_and(|c| c["reason"] == reason::PAUSED);
        let paused = d.pointer("/spec/paused") == Some(&Value::Bool(true));
        let now = self.api.clock.timestamp();
        let cond = if paused && !paused_cond {
            conditions::new(
                "Progressing",
                "Unknown",
                reason::PAUSED,
                "Deployment is paused",
                &now,
            )
        } else if !paused && paused_cond {
            conditions::new(
                "Progressing",
                "Unknown",
                reason::RESUMED,
                "Deployment is resumed",
                &now,
            )
        } else {
            return Ok(());
        };
        set_condition(d, cond);
        let status = d.get("status").cloned().unwrap_or_default();
        self.write_status(d, status).await
    }
}

/// `SetDeploymentRevision`; whether it changed.
fn set_revision(d: &mut Value, revision: &str) -> bool {
    if util::annotation(d, util::REVISION) == Some(revision) {
        return false;
    }
    let meta = crate::api::object::meta_mut(d);
    let a = meta.entry("annotations").or_insert_with(|| json!({}));
    if !a.is_object() {
        *a = json!({});
    }
    a[util::REVISION] = json!(revision);
    true
}

/// `FindActiveOrLatest`: the only active ReplicaSet, or the newest when none is
/// active; `None` when several are.
fn active_or_latest(new: Option<&Value>, old: &[Value]) -> Option<Value> {
    if new.is_none() && old.is_empty() {
        return None;
    }
    let mut old = old.to_vec();
    util::by_creation(&mut old);
    old.reverse();
    let mut all = old.clone();
    all.extend(new.cloned());
    let active = util::active(&all);
    match active.len() {
        0 => new.cloned().or_else(|| old.first().cloned()),
        1 => active.into_iter().next(),
        _ => None,
    }
}
