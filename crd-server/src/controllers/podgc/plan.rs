//! What one pass of the pod garbage collector deletes, read from the Pods and nodes it
//! sees (the decisions of `gcTerminated`, `gcOrphaned` and `gcUnscheduledTerminating`).

use std::sync::Arc;

use serde_json::Value;

use crate::api::object::{is_deleting, str_at};
use crate::controllers::workload::pods;

/// The Pods a pass deals with.
#[derive(Default)]
pub struct Plan {
    /// Finished Pods over the threshold, in the order they go.
    pub terminated: Vec<Arc<Value>>,
    /// Pods bound to a node that does not exist (quarantined before they go).
    pub orphans: Vec<Arc<Value>>,
    /// Pods being deleted that no node was ever given.
    pub unscheduled_terminating: Vec<Arc<Value>>,
}

/// Evicted Pods first (`status.reason: Evicted`), then the oldest, then by name.
fn order(a: &Arc<Value>, b: &Arc<Value>) -> std::cmp::Ordering {
    let evicted = |p: &Value| str_at(p, "/status/reason") != "Evicted";
    let key = |p: &Arc<Value>| {
        (
            evicted(p),
            str_at(p, "/metadata/creationTimestamp").to_string(),
            str_at(p, "/metadata/namespace").to_string(),
            str_at(p, "/metadata/name").to_string(),
        )
    };
    key(a).cmp(&key(b))
}

/// The plan for `all` Pods, nodes known by `present`, keeping at most `threshold`
/// finished Pods (0: no limit).
pub fn plan(all: &[Arc<Value>], present: &dyn Fn(&str) -> bool, threshold: usize) -> Plan {
    let mut p = Plan::default();
    let mut terminated: Vec<Arc<Value>> = Vec::new();
    for pod in all {
        let node = str_at(pod, "/spec/nodeName");
        if pods::is_terminal(pod) {
            terminated.push(pod.clone());
        }
        if node.is_empty() {
            if is_deleting(pod) {
                p.unscheduled_terminating.push(pod.clone());
            }
        } else if !present(node) {
            p.orphans.push(pod.clone());
        }
    }
    if threshold > 0 && terminated.len() > threshold {
        terminated.sort_by(order);
        terminated.truncate(terminated.len() - threshold);
        p.terminated = terminated;
    }
    p
}
