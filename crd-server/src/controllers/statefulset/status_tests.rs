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

#[test]
fn a_rolling_update_completes_once_every_pod_is_updated_and_ready() {
    let mid = [pod("web-0", "web-a", true), pod("web-1", "web-b", true)];
    let s = compute(&set("RollingUpdate"), &mid, "web-a", "web-b", Utc::now());
    assert_eq!(s["replicas"], 2);
    assert_eq!(s["readyReplicas"], 2);
    assert_eq!(s["currentReplicas"], 1);
    assert_eq!(s["updatedReplicas"], 1);
    assert_eq!(s["currentRevision"], "web-a");
    let done = [pod("web-0", "web-b", true), pod("web-1", "web-b", true)];
    let s = compute(&set("RollingUpdate"), &done, "web-a", "web-b", Utc::now());
    assert_eq!(s["currentRevision"], "web-b");
    assert_eq!(s["currentReplicas"], 2);
    // OnDelete never promotes the update revision by itself.
    let s = compute(&set("OnDelete"), &done, "web-a", "web-b", Utc::now());
    assert_eq!(s["currentRevision"], "web-a");
    assert_eq!(s["currentReplicas"], Value::Null);
}

#[test]
fn unready_pods_are_counted_but_not_ready() {
    let pods = [pod("web-0", "web-a", true), pod("web-1", "web-a", false)];
    let s = compute(&set("RollingUpdate"), &pods, "web-a", "web-a", Utc::now());
    assert_eq!(s["replicas"], 2);
    assert_eq!(s["readyReplicas"], 1);
    assert_eq!(s["availableReplicas"], 1);
}
