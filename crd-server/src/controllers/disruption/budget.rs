//! A PodDisruptionBudget's status from the Pods it selects (`getExpectedPodCount`,
//! `countHealthyPods`, `buildDisruptedPodMap`): how many Pods are expected, how many
//! must stay healthy, how many are, how many may be disrupted now, and the evictions
//! not yet seen through (`disruptedPods`, dropped once their Pod is going or after two
//! minutes).

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Map, Value, json};

use crate::api::object::{is_deleting, str_at};
use crate::controllers::clock::parse_time;
use crate::controllers::workload::{intstr, pods};

/// How long an eviction stays in `disruptedPods` without its Pod going (`DeletionTimeout`).
pub const DELETION_TIMEOUT: TimeDelta = TimeDelta::minutes(2);

/// The numbers of a budget's status.
#[derive(Debug, PartialEq)]
pub struct Counts {
    pub expected: i64,
    pub desired_healthy: i64,
    pub current_healthy: i64,
    pub disruptions_allowed: i64,
    /// Evictions still pending, by pod name (RFC 3339 times).
    pub disrupted: Map<String, Value>,
    /// When the oldest pending eviction expires.
    pub recheck: Option<DateTime<Utc>>,
}

/// `controller scale`: the replicas of the workload controlling a pod, by its uid.
pub type ScaleOf<'a> = &'a dyn Fn(&Value) -> Result<(String, i64), String>;

/// The expected count and the desired healthy count of the budget.
fn expected_and_desired(
    pdb: &Value,
    selected: &[Arc<Value>],
    scale_of: ScaleOf<'_>,
) -> Result<(i64, i64), String> {
    let spec = &pdb["spec"];
    let by_controllers = || -> Result<i64, String> {
        let mut scales: BTreeMap<String, i64> = BTreeMap::new();
        for pod in selected {
            let (uid, replicas) = scale_of(pod)?;
            scales.insert(uid, replicas);
        }
        Ok(scales.values().sum())
    };
    if let Some(max) = spec.get("maxUnavailable").filter(|v| !v.is_null()) {
        let expected = by_controllers()?;
        let max = intstr::scaled(Some(max), expected, true, 0)?;
        return Ok((expected, (expected - max).max(0)));
    }
    match spec.get("minAvailable") {
        Some(Value::String(_)) => {
            let expected = by_controllers()?;
            let min = intstr::scaled(spec.get("minAvailable"), expected, true, 0)?;
            Ok((expected, min))
        }
        Some(Value::Number(n)) => Ok((selected.len() as i64, n.as_i64().unwrap_or(0))),
        _ => Ok((selected.len() as i64, 0)),
    }
}

/// The counts of `pdb` over the pods it `selected`, at `now`.
pub fn counts(
    pdb: &Value,
    selected: &[Arc<Value>],
    scale_of: ScaleOf<'_>,
    now: DateTime<Utc>,
) -> Result<Counts, String> {
    let (expected, desired_healthy) = expected_and_desired(pdb, selected, scale_of)?;
    let previous = pdb
        .pointer("/status/disruptedPods")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut disrupted = Map::new();
    let mut recheck: Option<DateTime<Utc>> = None;
    for pod in selected.iter().filter(|p| !is_deleting(p)) {
        let name = str_at(pod, "/metadata/name");
        let Some(at) = previous
            .get(name)
            .and_then(Value::as_str)
            .and_then(parse_time)
        else {
            continue;
        };
        let expires = at + DELETION_TIMEOUT;
        if expires > now {
            disrupted.insert(name.to_string(), previous[name].clone());
            recheck = Some(recheck.map_or(expires, |r| r.min(expires)));
        }
    }
    let current_healthy = selected
        .iter()
        .filter(|p| {
            !is_deleting(p)
                && !disrupted.contains_key(str_at(p, "/metadata/name"))
                && pods::is_ready(p)
        })
        .count() as i64;
    Ok(Counts {
        expected,
        desired_healthy,
        current_healthy,
        disruptions_allowed: (current_healthy - desired_healthy).max(0),
        disrupted,
        recheck,
    })
}

/// The status to write: from `counts`, or on `Err` the fail-safe one (no disruption
/// allowed, `SyncFailed`); the `DisruptionAllowed` condition keeps its transition time
/// while its status holds.
pub fn status(pdb: &Value, counts: Result<&Counts, &str>, now: &str) -> Value {
    let generation = pdb
        .pointer("/metadata/generation")
        .cloned()
        .unwrap_or(json!(0));
    let old = &pdb["status"];
    let (mut status, cond_status, reason, message) = match counts {
        Ok(c) => {
            let s = json!({
                "disruptionsAllowed": c.disruptions_allowed,
                "currentHealthy": c.current_healthy,
                "desiredHealthy": c.desired_healthy,
                "expectedPods": c.expected,
            });
            let (st, reason) = if c.disruptions_allowed > 0 {
                ("True", "SufficientPods")
            } else {
                ("False", "InsufficientPods")
            };
            let mut s = s;
            if !c.disrupted.is_empty() {
                s["disruptedPods"] = Value::Object(c.disrupted.clone());
            }
            (s, st, reason, String::new())
        }
        Err(e) => {
            let mut s = json!({
                "disruptionsAllowed": 0,
                "currentHealthy": old["currentHealthy"].as_i64().unwrap_or(0),
                "desiredHealthy": old["desiredHealthy"].as_i64().unwrap_or(0),
                "expectedPods": old["expectedPods"].as_i64().unwrap_or(0),
            });
            if let Some(d) = old.get("disruptedPods") {
                s["disruptedPods"] = d.clone();
            }
            (s, "False", "SyncFailed", e.to_string())
        }
    };
    let previous = old["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "DisruptionAllowed"));
    let since = match previous {
        Some(p) if p["status"] == cond_status => p["lastTransitionTime"].clone(),
        _ => json!(now),
    };
    status["observedGeneration"] = generation.clone();
    status["conditions"] = json!([{
        "type": "DisruptionAllowed",
        "status": cond_status,
        "reason": reason,
        "message": message,
        "observedGeneration": generation,
        "lastTransitionTime": since,
    }]);
    status
}
