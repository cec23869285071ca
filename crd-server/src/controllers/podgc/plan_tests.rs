use std::sync::Arc;

use serde_json::{Value, json};

use super::plan;

fn pod(name: &str, created: &str, phase: &str, node: &str) -> Arc<Value> {
    Arc::new(json!({
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
        "spec": {"nodeName": node},
        "status": {"phase": phase},
    }))
}

/// `pod` with `value` as the field `field` of the object at the JSON pointer `at`.
fn with(pod: Arc<Value>, at: &str, field: &str, value: Value) -> Arc<Value> {
    let mut pod = (*pod).clone();
    pod.pointer_mut(at).unwrap()[field] = value;
    Arc::new(pod)
}

fn names(pods: &[Arc<Value>]) -> Vec<&str> {
    pods.iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect()
}

#[test]
fn the_oldest_finished_pods_over_the_threshold_go_evicted_first() {
    let evicted = pod("evicted", "2026-01-03T00:00:00Z", "Failed", "n1");
    let all = vec![
        pod("new", "2026-01-04T00:00:00Z", "Succeeded", "n1"),
        pod("old", "2026-01-01T00:00:00Z", "Succeeded", "n1"),
        pod("running", "2025-01-01T00:00:00Z", "Running", "n1"),
        with(evicted, "/status", "reason", json!("Evicted")),
        pod("middle", "2026-01-02T00:00:00Z", "Failed", "n1"),
    ];
    let yes = |_: &str| true;
    assert_eq!(
        names(&plan(&all, &yes, 2).terminated),
        vec!["evicted", "old"]
    );
    assert!(plan(&all, &yes, 4).terminated.is_empty());
    // 0: no limit.
    assert!(plan(&all, &yes, 0).terminated.is_empty());
}

#[test]
fn orphans_and_unscheduled_terminating_pods_are_found() {
    let going = pod("going", "2026-01-01T00:00:00Z", "Pending", "");
    let all = vec![
        pod("bound", "2026-01-01T00:00:00Z", "Running", "n1"),
        pod("lost", "2026-01-01T00:00:00Z", "Running", "ghost"),
        pod("waiting", "2026-01-01T00:00:00Z", "Pending", ""),
        with(
            going,
            "/metadata",
            "deletionTimestamp",
            json!("2026-01-01T00:01:00Z"),
        ),
    ];
    let p = plan(&all, &|n: &str| n == "n1", 12500);
    assert_eq!(names(&p.orphans), vec!["lost"]);
    assert_eq!(names(&p.unscheduled_terminating), vec!["going"]);
    assert!(p.terminated.is_empty());
}
