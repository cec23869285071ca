//! A StatefulSet's status, as upstream's `computeReplicaStatus` and
//! `completeRollingUpdate`: Pods counted once created, ready when Running and Ready,
//! available after `minReadySeconds`, current or updated by the revision they were made
//! from; once every Pod is updated and ready the update revision becomes the current one.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::identity::{created, revision_of, running_and_ready};
use crate::api::object::{is_deleting, str_at};
use crate::controllers::workload::pods;

/// The status fields the pass sets (`null`: the field is left out, as upstream's
/// `omitempty` zero values).
pub fn compute(
    set: &Value,
    members: &[Arc<Value>],
    current: &str,
    update: &str,
    now: DateTime<Utc>,
) -> Value {
    let min_ready = set
        .pointer("/spec/minReadySeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let (mut replicas, mut ready, mut available, mut cur, mut upd) = (0i64, 0i64, 0i64, 0i64, 0i64);
    for p in members {
        if created(p) {
            replicas += 1;
        }
        if running_and_ready(p) {
            ready += 1;
            if pods::is_available(p, min_ready, now) {
                available += 1;
            }
        }
        if created(p) && !is_deleting(p) {
            if revision_of(p) == current {
                cur += 1;
            }
            if revision_of(p) == update {
                upd += 1;
            }
        }
    }
    let mut current = current.to_string();
    if str_at(set, "/spec/updateStrategy/type") != "OnDelete"
        && upd == replicas
        && ready == replicas
    {
        cur = upd;
        current = update.to_string();
    }
    let omit_zero = |n: i64| if n == 0 { Value::Null } else { json!(n) };
    let mut out = Map::new();
    out.insert("replicas".into(), json!(replicas));
    out.insert("readyReplicas".into(), omit_zero(ready));
    out.insert("availableReplicas".into(), json!(available));
    out.insert("currentReplicas".into(), omit_zero(cur));
    out.insert("updatedReplicas".into(), omit_zero(upd));
    out.insert("currentRevision".into(), json!(current));
    out.insert("updateRevision".into(), json!(update));
    Value::Object(out)
}
