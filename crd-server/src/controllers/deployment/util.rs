//! `pkg/controller/deployment/util` over JSON objects: revisions and the annotations
//! a new ReplicaSet gets, the pod-template hash, `maxSurge`/`maxUnavailable` resolved,
//! the new and old ReplicaSets of a Deployment, the counts summed over them, and the
//! complete / progressing / timed-out tests of a rollout.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Map, Value, json};

use crate::api::object::{meta_mut, str_at};
use crate::controllers::clock::parse_time;
use crate::controllers::workload::{conditions, intstr};

/// `deployment.kubernetes.io/revision`.
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// `deployment.kubernetes.io/revision-history`.
pub const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
/// `deployment.kubernetes.io/desired-replicas`.
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
/// `deployment.kubernetes.io/max-replicas`.
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// The label that tells one ReplicaSet's pods from another's.
pub const HASH_LABEL: &str = "pod-template-hash";
/// The longest `revision-history` annotation kept (`--deployment-controller-...`).
const MAX_HISTORY_CHARS: usize = 2000;

/// Annotations a Deployment does not pass to its ReplicaSets.
const SKIPPED: [&str; 7] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    REVISION_HISTORY,
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deployment.kubernetes.io/error-selector-overlapping-with",
    "deployment.kubernetes.io/selector-updated-at",
];

/// The reasons of the conditions, as upstream names them.
pub mod reason {
    pub const REPLICA_SET_UPDATED: &str = "ReplicaSetUpdated";
    pub const FAILED_RS_CREATE: &str = "ReplicaSetCreateError";
    pub const NEW_REPLICA_SET: &str = "NewReplicaSetCreated";
    pub const FOUND_NEW_RS: &str = "FoundNewReplicaSet";
    pub const NEW_RS_AVAILABLE: &str = "NewReplicaSetAvailable";
    pub const TIMED_OUT: &str = "ProgressDeadlineExceeded";
    pub const PAUSED: &str = "DeploymentPaused";
    pub const RESUMED: &str = "DeploymentResumed";
    pub const MINIMUM_AVAILABLE: &str = "MinimumReplicasAvailable";
    pub const MINIMUM_UNAVAILABLE: &str = "MinimumReplicasUnavailable";
}

/// An integer field (0 when absent).
pub fn int(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// `spec.replicas` (1 when absent, as defaulted).
pub fn replicas(obj: &Value) -> i64 {
    obj.pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1)
}

/// An annotation.
pub fn annotation<'a>(obj: &'a Value, key: &str) -> Option<&'a str> {
    obj.pointer("/metadata/annotations")
        .and_then(Value::as_object)?
        .get(key)?
        .as_str()
}

fn set_annotation(obj: &mut Value, key: &str, value: &str) {
    let meta = meta_mut(obj);
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if !annotations.is_object() {
        *annotations = json!({});
    }
    annotations[key] = json!(value);
}

/// A ReplicaSet's revision (0 when absent or not a number).
pub fn revision(rs: &Value) -> i64 {
    annotation(rs, REVISION)
        .and_then(|r| r.parse().ok())
        .unwrap_or(0)
}

/// `MaxRevision`.
pub fn max_revision(sets: &[Value]) -> i64 {
    sets.iter().map(revision).max().unwrap_or(0)
}

/// Whether the strategy is `RollingUpdate`.
pub fn is_rolling(d: &Value) -> bool {
    str_at(d, "/spec/strategy/type") != "Recreate"
}

/// `ResolveFenceposts`: `(maxSurge, maxUnavailable)` for `desired` replicas.
pub fn fenceposts(d: &Value, desired: i64) -> (i64, i64) {
    let ru = d.pointer("/spec/strategy/rollingUpdate");
    let get = |f: &str| ru.and_then(|r| r.get(f));
    let surge = intstr::scaled(get("maxSurge"), desired, true, 0).unwrap_or(0);
    let mut unavailable = intstr::scaled(get("maxUnavailable"), desired, false, 0).unwrap_or(0);
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    (surge, unavailable)
}

/// `MaxSurge`.
pub fn max_surge(d: &Value) -> i64 {
    if !is_rolling(d) {
        return 0;
    }
    fenceposts(d, replicas(d)).0
}

/// `MaxUnavailable`.
pub fn max_unavailable(d: &Value) -> i64 {
    let desired = replicas(d);
    if !is_rolling(d) || desired == 0 {
        return 0;
    }
    fenceposts(d, desired).1.min(desired)
}

/// A template without the hash label and without empty values, for comparing.
fn comparable(template: &Value) -> Value {
    fn prune(v: &Value) -> Option<Value> {
        match v {
            Value::Null => None,
            Value::Object(m) => {
                let kept: Map<String, Value> = m
                    .iter()
                    .filter_map(|(k, v)| prune(v).map(|v| (k.clone(), v)))
                    .collect();
                (!kept.is_empty()).then_some(Value::Object(kept))
            }
            Value::Array(a) => (!a.is_empty())
                .then(|| Value::Array(a.iter().map(|v| prune(v).unwrap_or(Value::Null)).collect())),
            other => Some(other.clone()),
        }
    }
    let mut t = template.clone();
    if let Some(labels) = t
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.remove(HASH_LABEL);
    }
    if let Some(meta) = t.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("creationTimestamp");
    }
    prune(&t).unwrap_or(Value::Null)
}

/// `EqualIgnoreHash`.
pub fn equal_ignore_hash(a: &Value, b: &Value) -> bool {
    comparable(a) == comparable(b)
}

/// Sorts by creation time, then name (`ReplicaSetsByCreationTimestamp`).
pub fn by_creation(sets: &mut [Value]) {
    sets.sort_by(|a, b| {
        let t = |v: &Value| str_at(v, "/metadata/creationTimestamp").to_string();
        t(a).cmp(&t(b))
            .then_with(|| str_at(a, "/metadata/name").cmp(str_at(b, "/metadata/name")))
    });
}

/// `FindNewReplicaSet`: the oldest ReplicaSet whose template is the Deployment's.
pub fn find_new(d: &Value, sets: &[Value]) -> Option<Value> {
    let mut sorted = sets.to_vec();
    by_creation(&mut sorted);
    let template = d.pointer("/spec/template").unwrap_or(&Value::Null);
    sorted.into_iter().find(|rs| {
        equal_ignore_hash(
            rs.pointer("/spec/template").unwrap_or(&Value::Null),
            template,
        )
    })
}

/// Sums a field over ReplicaSets.
pub fn sum(sets: &[Value], pointer: &str) -> i64 {
    sets.iter().map(|rs| int(rs, pointer)).sum()
}

/// `GetReplicaCountForReplicaSets` (the specs').
pub fn spec_replicas(sets: &[Value]) -> i64 {
    sets.iter().map(replicas).sum()
}

/// `FilterActiveReplicaSets`: those with replicas wanted.
pub fn active(sets: &[Value]) -> Vec<Value> {
    sets.iter().filter(|rs| replicas(rs) > 0).cloned().collect()
}

/// `ComputeHash`: FNV-1a over the template (keys in order) and the collision count,
/// written with the API's safe alphabet.
pub fn template_hash(template: &Value, collisions: Option<i64>) -> String {
    fn canonical(v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push(b'{');
                for k in keys {
                    out.extend_from_slice(k.as_bytes());
                    out.push(b':');
                    canonical(&m[k], out);
                    out.push(b',');
                }
                out.push(b'}');
            }
            Value::Array(a) => {
                out.push(b'[');
                for v in a {
                    canonical(v, out);
                    out.push(b',');
                }
                out.push(b']');
            }
            other => out.extend_from_slice(other.to_string().as_bytes()),
        }
    }
    let mut bytes = Vec::new();
    canonical(template, &mut bytes);
    if let Some(c) = collisions {
        bytes.extend_from_slice(&(c as u32).to_le_bytes());
    }
    let mut hash: u32 = 0x811c_9dc5;
    for b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    safe_encode(&hash.to_string())
}

/// `rand.SafeEncodeString`: each character mapped into the alphabet without vowels.
fn safe_encode(s: &str) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    s.bytes()
        .map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char)
        .collect()
}

/// `copyDeploymentAnnotationsToReplicaSet`; whether anything changed.
fn copy_annotations(d: &Value, rs: &mut Value) -> bool {
    let mut changed = false;
    if let Some(from) = d
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
    {
        for (k, v) in from {
            if SKIPPED.contains(&k.as_str()) || annotation(rs, k) == v.as_str() {
                continue;
            }
            set_annotation(rs, k, v.as_str().unwrap_or(""));
            changed = true;
        }
    }
    changed
}

/// `SetReplicasAnnotations`; whether anything changed.
pub fn set_replicas_annotations(rs: &mut Value, desired: i64, max: i64) -> bool {
    let mut changed = false;
    for (key, value) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        let value = value.to_string();
        if annotation(rs, key) != Some(value.as_str()) {
            set_annotation(rs, key, &value);
            changed = true;
        }
    }
    changed
}

/// `SetNewReplicaSetAnnotations`: the Deployment's annotations, the new revision (and
/// the old one kept in the history when a ReplicaSet comes back), and for a ReplicaSet
/// about to be created its replica annotations. Whether anything changed.
pub fn set_new_annotations(d: &Value, rs: &mut Value, new_revision: i64, exists: bool) -> bool {
    let mut changed = copy_annotations(d, rs);
    let old = annotation(rs, REVISION).map(str::to_string);
    let old_int = match old.as_deref() {
        None | Some("") => 0,
        Some(o) => match o.parse::<i64>() {
            Ok(n) => n,
            Err(_) => return false,
        },
    };
    if old_int < new_revision {
        set_annotation(rs, REVISION, &new_revision.to_string());
        changed = true;
        if let Some(old) = old.filter(|o| !o.is_empty()) {
            let history = annotation(rs, REVISION_HISTORY).unwrap_or("").to_string();
            let next = if history.is_empty() {
                old
            } else {
                let mut parts: Vec<&str> = history.split(',').collect();
                let mut total = history.len() + old.len() + 1;
                while total > MAX_HISTORY_CHARS && !parts.is_empty() {
                    total -= parts[0].len() + 1;
                    parts.remove(0);
                }
                parts.push(&old);
                parts.join(",")
            };
            set_annotation(rs, REVISION_HISTORY, &next);
        }
    }
    if !exists && set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d)) {
        changed = true;
    }
    changed
}

/// `HasProgressDeadline`.
pub fn has_progress_deadline(d: &Value) -> bool {
    d.pointer("/spec/progressDeadlineSeconds")
        .and_then(Value::as_i64)
        .is_some_and(|s| s != i64::from(i32::MAX))
}

/// `DeploymentComplete`.
pub fn complete(d: &Value, status: &Value) -> bool {
    let want = replicas(d);
    int(status, "/updatedReplicas") == want
        && int(status, "/replicas") == want
        && int(status, "/availableReplicas") == want
        && int(status, "/observedGeneration") >= int(d, "/metadata/generation")
}

/// `DeploymentProgressing`: more updated, ready or available replicas, or fewer old
/// ones, than the status the Deployment has.
pub fn progressing(d: &Value, status: &Value) -> bool {
    let old = d.get("status").cloned().unwrap_or_default();
    let old_old = int(&old, "/replicas") - int(&old, "/updatedReplicas");
    let new_old = int(status, "/replicas") - int(status, "/updatedReplicas");
    int(status, "/updatedReplicas") > int(&old, "/updatedReplicas")
        || new_old < old_old
        || int(status, "/readyReplicas") > int(&old, "/readyReplicas")
        || int(status, "/availableReplicas") > int(&old, "/availableReplicas")
}

/// The conditions of a Deployment's `status`.
pub fn status_conditions(status: &Value) -> Vec<Value> {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// When the rollout of `d` times out (the Progressing condition's last update plus the
/// deadline), if it can.
pub fn deadline(d: &Value, status: &Value) -> Option<DateTime<Utc>> {
    if !has_progress_deadline(d) {
        return None;
    }
    let conds = status_conditions(status);
    let c = conditions::get(&conds, "Progressing")?;
    if c["reason"] == reason::NEW_RS_AVAILABLE || c["reason"] == reason::TIMED_OUT {
        return None;
    }
    let from = c["lastUpdateTime"].as_str().and_then(parse_time)?;
    Some(from + TimeDelta::seconds(int(d, "/spec/progressDeadlineSeconds")))
}

/// `DeploymentTimedOut`.
pub fn timed_out(d: &Value, status: &Value, now: DateTime<Utc>) -> bool {
    if !has_progress_deadline(d) {
        return false;
    }
    let conds = status_conditions(status);
    match conditions::get(&conds, "Progressing") {
        None => false,
        Some(c) if c["reason"] == reason::NEW_RS_AVAILABLE => false,
        Some(c) if c["reason"] == reason::TIMED_OUT => true,
        Some(_) => deadline(d, status).is_some_and(|at| at < now),
    }
}

/// `NewRSNewReplicas`: the replicas the new ReplicaSet may have now.
pub fn new_rs_new_replicas(d: &Value, all: &[Value], new_rs: &Value) -> i64 {
    if !is_rolling(d) {
        return replicas(d);
    }
    let current = spec_replicas(all);
    let max_total = replicas(d) + max_surge(d);
    if current >= max_total {
        return replicas(new_rs);
    }
    let up = (max_total - current).min(replicas(d) - replicas(new_rs));
    replicas(new_rs) + up
}

/// `IsSaturated`.
pub fn is_saturated(d: &Value, rs: Option<&Value>) -> bool {
    let Some(rs) = rs else { return false };
    let Some(desired) = annotation(rs, DESIRED_REPLICAS).and_then(|v| v.parse::<i64>().ok()) else {
        return false;
    };
    let want = replicas(d);
    replicas(rs) == want && desired == want && int(rs, "/status/availableReplicas") == want
}

/// `GetProportion`: the share of a scaling event that goes to `rs`.
pub fn proportion(rs: &Value, d: &Value, to_add: i64, added: i64) -> i64 {
    if replicas(rs) == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = fraction(rs, d);
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}

fn fraction(rs: &Value, d: &Value) -> i64 {
    if replicas(d) == 0 {
        return -replicas(rs);
    }
    let deployment_replicas = replicas(d) + max_surge(d);
    let annotated = annotation(rs, MAX_REPLICAS)
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or_else(|| int(d, "/status/replicas"));
    if annotated == 0 {
        return 0;
    }
    let size = (replicas(rs) * deployment_replicas) as f64 / annotated as f64;
    size.round() as i64 - replicas(rs)
}

#[cfg(test)]
#[path = "util_tests.rs"]
mod tests;
