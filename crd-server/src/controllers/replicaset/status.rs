//! A ReplicaSet's status (`calculateStatus`, `updateReplicaSetStatus`): the counts of
//! its active pods, fully labeled, ready and available, and the `ReplicaFailure`
//! condition while creating or deleting fails.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::api::selectors::label;
use crate::controllers::clock::Clock;
use crate::controllers::workload::{conditions, pods};

/// The status for `mine` (the pods the ReplicaSet owns) after a pass that failed with
/// `error`, if it did. Zero counts are left out, as the API's `omitempty` does.
pub fn calculate(rs: &Value, mine: &[Arc<Value>], error: Option<&String>, clock: &Clock) -> Value {
    let template_labels = rs
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object);
    let min_ready = rs
        .pointer("/spec/minReadySeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let now = clock.now();
    let (mut labeled, mut ready, mut available) = (0i64, 0i64, 0i64);
    for p in mine {
        let labels = p.pointer("/metadata/labels").and_then(Value::as_object);
        if fully_labeled(template_labels, labels) {
            labeled += 1;
        }
        if pods::is_ready(p) {
            ready += 1;
            if pods::is_available(p, min_ready, now) {
                available += 1;
            }
        }
    }
    let mut conds = conditions::of(rs);
    let failing = conditions::get(&conds, "ReplicaFailure").is_some();
    match error {
        Some(message) if !failing => {
            let want = rs
                .pointer("/spec/replicas")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            let reason = if (mine.len() as i64) < want {
                "FailedCreate"
            } else {
                "FailedDelete"
            };
            let ts = clock.timestamp();
            conditions::set(
                &mut conds,
                json!({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": ts,
                       "reason": reason, "message": message}),
            );
        }
        None if failing => conditions::remove(&mut conds, "ReplicaFailure"),
        _ => {}
    }
    let mut status = Map::new();
    status.insert("replicas".into(), json!(mine.len()));
    for (field, n) in [
        ("fullyLabeledReplicas", labeled),
        ("readyReplicas", ready),
        ("availableReplicas", available),
    ] {
        if n != 0 {
            status.insert(field.into(), json!(n));
        }
    }
    if let Some(g) = rs.pointer("/status/observedGeneration") {
        status.insert("observedGeneration".into(), g.clone());
    }
    if !conds.is_empty() {
        status.insert("conditions".into(), Value::Array(conds));
    }
    Value::Object(status)
}

/// Whether every label of the template is on the pod.
fn fully_labeled(
    template: Option<&Map<String, Value>>,
    labels: Option<&Map<String, Value>>,
) -> bool {
    let selector = json!({"matchLabels": template.cloned().unwrap_or_default()});
    label::matches(&selector, labels)
}

/// Whether the status must be written: a count or a condition changed, or the
/// generation is not observed yet.
pub fn changed(rs: &Value, next: &Value) -> bool {
    let current = rs.get("status").cloned().unwrap_or_else(|| json!({}));
    let observed = rs.pointer("/status/observedGeneration") == rs.pointer("/metadata/generation");
    let count = |v: &Value, f: &str| v.get(f).and_then(Value::as_i64).unwrap_or(0);
    !observed
        || [
            "replicas",
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
        ]
        .iter()
        .any(|f| count(&current, f) != count(next, f))
        || current.get("conditions") != next.get("conditions")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_failure_condition() {
        let rs = json!({"metadata": {"generation": 2},
            "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "web"}}}},
            "status": {"replicas": 0, "observedGeneration": 1}});
        let ready = Arc::new(json!({"metadata": {"labels": {"app": "web"}},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True",
                "lastTransitionTime": "2024-01-01T00:00:00Z"}]}}));
        let unlabeled =
            Arc::new(json!({"metadata": {"labels": {}}, "status": {"phase": "Pending"}}));
        let clock = Clock::new();
        let s = calculate(&rs, &[ready, unlabeled], Some(&"quota".to_string()), &clock);
        assert_eq!(s["replicas"], 2);
        assert_eq!(s["fullyLabeledReplicas"], 1);
        assert_eq!(s["readyReplicas"], 1);
        assert_eq!(s["availableReplicas"], 1);
        assert_eq!(s["conditions"][0]["reason"], "FailedCreate");
        assert_eq!(s["conditions"][0]["message"], "quota");
        assert!(changed(&rs, &s));
        let none = calculate(&rs, &[], None, &clock);
        assert_eq!(none, json!({"replicas": 0, "observedGeneration": 1}));
    }
}
