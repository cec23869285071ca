use std::sync::Arc;

use chrono::Utc;
use serde_json::{Value, json};

use super::status::compute;

fn pod(name: &str, rev: &str, ready: bool) -> Arc<Value> {
    Arc::new(json!({
        "metadata": {"name": name, "labels": {"controller-revision-hash": rev}},
        "status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": if ready {"True"} else {"False"}}]},
    }))
}

fn set(strategy: &str) -> Value {
    json!({"spec": {"replicas": 2, "updateStrategy": {"type": strategy}}})
}

/// The status of a set of `strategy` over `pods` at the revisions `current` and `update`.
fn status(strategy: &str, pods: &[Arc<Value>], current: &str, update: &str) -> Value {
    compute(&set(strategy), pods, current, update, Utc::now())
}

/// Asserts each field of `expected` (an object) in `status`.
fn assert_fields(status: &Value, expected: Value) {
    for (field, value) in expected.as_object().unwrap() {
        assert_eq!(&status[field], value, "{field}");
    }
}

#[test]
fn a_rolling_update_completes_once_every_pod_is_updated_and_ready() {
    let mid = [pod("web-0", "web-a", true), pod("web-1", "web-b", true)];
    assert_fields(
        &status("RollingUpdate", &mid, "web-a", "web-b"),
        json!({"replicas": 2, "readyReplicas": 2, "currentReplicas": 1, "updatedReplicas": 1,
               "currentRevision": "web-a"}),
    );
    let done = [pod("web-0", "web-b", true), pod("web-1", "web-b", true)];
    assert_fields(
        &status("RollingUpdate", &done, "web-a", "web-b"),
        json!({"currentRevision": "web-b", "currentReplicas": 2}),
    );
    // OnDelete never promotes the update revision by itself.
    assert_fields(
        &status("OnDelete", &done, "web-a", "web-b"),
        json!({"currentRevision": "web-a", "currentReplicas": null}),
    );
}

#[test]
fn unready_pods_are_counted_but_not_ready() {
    let pods = [pod("web-0", "web-a", true), pod("web-1", "web-a", false)];
    assert_fields(
        &status("RollingUpdate", &pods, "web-a", "web-a"),
        json!({"replicas": 2, "readyReplicas": 1, "availableReplicas": 1}),
    );
}
