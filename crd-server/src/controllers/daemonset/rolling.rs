//! A DaemonSet's rolling update, as upstream's `daemon/update.go` `rollingUpdate`:
//! without surge, old Pods are deleted (their replacement then created by the manage
//! pass) while fewer than `maxUnavailable` nodes lack an available Pod — an old Pod
//! that is not available anyway goes at once; with `maxSurge`, a new Pod is created
//! beside the old one on up to `maxSurge` nodes and the old one deleted once the new is
//! available.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::placement::is_updated;
use crate::api::object::is_deleting;
use crate::controllers::workload::pods;

/// What one pass of the rolling update does.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    /// Old Pods to delete.
    pub delete: Vec<Arc<Value>>,
    /// Nodes to create a new Pod on (surge).
    pub create_on: Vec<String>,
}

/// A node's Pod at the update revision and its old one.
type NewAndOld = (Option<Arc<Value>>, Option<Arc<Value>>);

/// The node's new and old Pod; `None` when it has more than one of either (the manage
/// pass deletes the extra ones first).
fn updated_and_old(pods: &[Arc<Value>], hash: &str) -> Option<NewAndOld> {
    let (mut new, mut old) = (None, None);
    for p in pods
        .iter()
        .filter(|p| !is_deleting(p) && pods::is_active(p))
    {
        let slot = if is_updated(p, hash) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(p.clone());
    }
    Some((new, old))
}

/// The pass's plan for the nodes that should run a Pod (`per_node`: their daemon Pods).
pub fn plan(
    per_node: &BTreeMap<String, Vec<Arc<Value>>>,
    hash: &str,
    max_surge: i64,
    max_unavailable: i64,
    min_ready: i64,
    now: DateTime<Utc>,
) -> Plan {
    let available = |p: &Value| pods::is_available(p, min_ready, now);
    let mut out = Plan::default();
    if max_surge == 0 {
        let mut unavailable = 0;
        let mut candidates = Vec::new();
        for pods in per_node.values() {
            let Some((new, old)) = updated_and_old(pods, hash) else {
                unavailable += 1;
                continue;
            };
            match (new, old) {
                // The manage pass creates or deletes there: unavailable meanwhile.
                (None, None) | (Some(_), Some(_)) => unavailable += 1,
                (Some(new), None) => {
                    if !available(&new) {
                        unavailable += 1;
                    }
                }
                (None, Some(old)) => {
                    if !available(&old) {
                        out.delete.push(old);
                    } else if unavailable < max_unavailable {
                        candidates.push(old);
                    }
                }
            }
        }
        let room = (max_unavailable - unavailable).max(0) as usize;
        out.delete.extend(candidates.into_iter().take(room));
        return out;
    }
    let mut surging = 0;
    let mut wanting = Vec::new();
    for (node, pods) in per_node {
        let Some((new, old)) = updated_and_old(pods, hash) else {
            continue;
        };
        match (new, old) {
            (_, None) => {}
            (None, Some(old)) => {
                if !available(&old) {
                    out.create_on.push(node.clone());
                } else {
                    wanting.push(node.clone());
                }
            }
            (Some(new), Some(old)) => {
                if available(&new) {
                    out.delete.push(old);
                } else {
                    surging += 1;
                }
            }
        }
    }
    let room = (max_surge - surging).max(0) as usize;
    out.create_on.extend(wanting.into_iter().take(room));
    out
}
