//! What a Job's Pods say about it (`pkg/controller/job`): which indexes succeeded,
//! which Pods to create next, and the conditions and counts of its status.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::object::{is_deleting, str_at};
use crate::controllers::workload::pods;

/// `batch.kubernetes.io/job-completion-index`.
pub const INDEX: &str = "batch.kubernetes.io/job-completion-index";

/// The reasons and messages upstream gives its terminal conditions.
pub const COMPLETIONS_REACHED: &str = "CompletionsReached";
pub const COMPLETIONS_MESSAGE: &str = "Reached expected number of succeeded pods";
pub const BACKOFF_LIMIT: &str = "BackoffLimitExceeded";
pub const BACKOFF_MESSAGE: &str = "Job has reached the specified backoff limit";
pub const DEADLINE: &str = "DeadlineExceeded";
pub const DEADLINE_MESSAGE: &str = "Job was active longer than specified deadline";

fn int(obj: &Value, pointer: &str) -> Option<i64> {
    obj.pointer(pointer).and_then(Value::as_i64)
}

/// Whether the Job runs Indexed.
pub fn indexed(job: &Value) -> bool {
    str_at(job, "/spec/completionMode") == "Indexed"
}

/// `spec.completions` (`None`: any one success completes a NonIndexed Job).
pub fn completions(job: &Value) -> Option<i64> {
    int(job, "/spec/completions")
}

/// `spec.parallelism` (1 when absent).
pub fn parallelism(job: &Value) -> i64 {
    int(job, "/spec/parallelism").unwrap_or(1).max(0)
}

/// `spec.backoffLimit` (6 when absent).
pub fn backoff_limit(job: &Value) -> i64 {
    int(job, "/spec/backoffLimit").unwrap_or(6)
}

/// The completion index of a pod of an Indexed Job.
pub fn index_of(pod: &Value) -> Option<i64> {
    pod.pointer("/metadata/annotations")
        .and_then(|a| a.get(INDEX))
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

/// The pods of a Job by state.
#[derive(Default)]
pub struct Counts {
    pub active: Vec<Arc<Value>>,
    pub ready: i64,
    pub terminating: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub succeeded_indexes: BTreeSet<i64>,
}

/// Counts `mine` (the pods the Job controls).
pub fn count(job: &Value, mine: &[Arc<Value>]) -> Counts {
    let mut c = Counts::default();
    let total = completions(job).unwrap_or(1);
    for p in mine {
        match pods::phase(p) {
            "Succeeded" => {
                c.succeeded += 1;
                if let Some(i) = index_of(p).filter(|i| (0..total).contains(i)) {
                    c.succeeded_indexes.insert(i);
                }
            }
            "Failed" => c.failed += 1,
            _ if is_deleting(p) => c.terminating += 1,
            _ => {
                if pods::is_ready(p) {
                    c.ready += 1;
                }
                c.active.push(p.clone());
            }
        }
    }
    if indexed(job) {
        c.succeeded = c.succeeded_indexes.len() as i64;
    }
    c
}

/// Whether the Job's successes complete it.
pub fn complete(job: &Value, c: &Counts) -> bool {
    match completions(job) {
        Some(n) => c.succeeded >= n,
        None => c.succeeded > 0 && c.active.is_empty(),
    }
}

/// The indexes (Indexed) or how many pods (NonIndexed: `None` each) to create now.
pub fn to_create(job: &Value, c: &Counts) -> Vec<Option<i64>> {
    let active = c.active.len() as i64;
    if indexed(job) {
        let total = completions(job).unwrap_or(0);
        let running: BTreeSet<i64> = c.active.iter().filter_map(|p| index_of(p)).collect();
        let room = (parallelism(job) - active).max(0) as usize;
        return (0..total)
            .filter(|i| !c.succeeded_indexes.contains(i) && !running.contains(i))
            .take(room)
            .map(Some)
            .collect();
    }
    let want = match completions(job) {
        Some(n) => parallelism(job).min(n - c.succeeded),
        // Without completions, once one pod succeeded no other starts.
        None if c.succeeded > 0 => 0,
        None => parallelism(job),
    };
    vec![None; (want - active).max(0) as usize]
}

/// `1,3-5`: the succeeded indexes as upstream writes `completedIndexes`.
pub fn intervals(indexes: &BTreeSet<i64>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(i64, i64)> = None;
    for &i in indexes {
        run = match run {
            Some((a, b)) if i == b + 1 => Some((a, i)),
            Some((a, b)) => {
                out.push(if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                });
                Some((i, i))
            }
            None => Some((i, i)),
        };
    }
    if let Some((a, b)) = run {
        out.push(if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        });
    }
    out.join(",")
}

/// A Job condition as the Job controller writes it.
pub fn condition(kind: &str, reason: &str, message: &str, now: &str) -> Value {
    json!({"type": kind, "status": "True", "lastProbeTime": now, "lastTransitionTime": now,
           "reason": reason, "message": message})
}

/// Whether the Job has a condition of `kind` set to `True`.
pub fn has_condition(job: &Value, kind: &str) -> bool {
    job.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == kind && c["status"] == "True")
}

/// Whether the Job is finished (`Complete` or `Failed`).
pub fn finished(job: &Value) -> bool {
    has_condition(job, "Complete") || has_condition(job, "Failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(phase: &str, index: Option<i64>) -> Arc<Value> {
        let mut p = json!({"metadata": {"name": "p"}, "status": {"phase": phase}});
        if let Some(i) = index {
            p["metadata"]["annotations"] = json!({INDEX: i.to_string()});
        }
        Arc::new(p)
    }

    #[test]
    fn non_indexed_jobs_run_parallelism_pods_until_completions() {
        let job = json!({"spec": {"completions": 3, "parallelism": 2}});
        let c = count(&job, &[pod("Succeeded", None), pod("Running", None)]);
        assert_eq!((c.succeeded, c.active.len()), (1, 1));
        assert_eq!(to_create(&job, &c).len(), 1);
        let c = count(
            &job,
            &[
                pod("Succeeded", None),
                pod("Succeeded", None),
                pod("Running", None),
            ],
        );
        assert_eq!(to_create(&job, &c).len(), 0, "one more is running");
        assert!(!complete(&job, &c));
        let done = count(
            &job,
            &[
                pod("Succeeded", None),
                pod("Succeeded", None),
                pod("Succeeded", None),
            ],
        );
        assert!(complete(&job, &done));
        let single = json!({"spec": {}});
        assert_eq!(to_create(&single, &count(&single, &[])).len(), 1);
        let c = count(&single, &[pod("Succeeded", None)]);
        assert!(complete(&single, &c));
        assert!(to_create(&single, &c).is_empty());
    }

    #[test]
    fn indexed_jobs_fill_the_lowest_missing_indexes() {
        let job =
            json!({"spec": {"completions": 5, "parallelism": 2, "completionMode": "Indexed"}});
        let c = count(&job, &[pod("Succeeded", Some(0)), pod("Running", Some(2))]);
        assert_eq!(to_create(&job, &c), [Some(1)]);
        let mut s = BTreeSet::from([0, 1, 2, 4, 6, 7]);
        assert_eq!(intervals(&s), "0-2,4,6-7");
        s.clear();
        assert_eq!(intervals(&s), "");
    }
}
