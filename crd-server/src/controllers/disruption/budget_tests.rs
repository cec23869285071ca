use std::sync::Arc;

use chrono::{TimeZone, Utc};
use serde_json::{Value, json};

use super::budget::{counts, status};

fn pod(name: &str, ready: bool) -> Arc<Value> {
    Arc::new(json!({
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": if ready {"True"} else {"False"}}
        ]},
    }))
}

fn pdb(spec: Value) -> Value {
    json!({"metadata": {"name": "web", "generation": 3}, "spec": spec})
}

#[test]
fn min_available_counts_the_ready_pods_not_yet_evicted() {
    let now = Utc.with_ymd_and_hms(2026, 1, 1, 0, 1, 0).unwrap();
    let mut budget = pdb(json!({"minAvailable": 2}));
    budget["status"] =
        json!({"disruptedPods": {"c": "2026-01-01T00:00:30Z", "gone": "2026-01-01T00:00:30Z"}});
    let pods = [
        pod("a", true),
        pod("b", true),
        pod("c", true),
        pod("d", false),
    ];
    let no_scale = |_: &Value| Err("unused".to_string());
    let c = counts(&budget, &pods, &no_scale, now).unwrap();
    assert_eq!(
        (c.expected, c.desired_healthy, c.current_healthy),
        (4, 2, 2)
    );
    assert_eq!(c.disruptions_allowed, 0);
    // `c` was evicted 30 s ago: it stays recorded (its pod is not going yet) for 2 min.
    assert_eq!(c.disrupted.keys().collect::<Vec<_>>(), ["c"]);
    assert_eq!(
        c.recheck,
        Some(Utc.with_ymd_and_hms(2026, 1, 1, 0, 2, 30).unwrap())
    );
    let s = status(&budget, Ok(&c), "2026-01-01T00:01:00Z");
    assert_eq!(s["observedGeneration"], 3);
    assert_eq!(s["conditions"][0]["reason"], "InsufficientPods");
    assert_eq!(s["conditions"][0]["status"], "False");
}

#[test]
fn max_unavailable_reads_the_controllers_scale() {
    let now = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let budget = pdb(json!({"maxUnavailable": "50%"}));
    let pods = [pod("a", true), pod("b", true), pod("c", true)];
    let scale = |_: &Value| Ok(("deployment-uid".to_string(), 4));
    let c = counts(&budget, &pods, &scale, now).unwrap();
    // 4 expected, 50% of 4 (rounded up) may be unavailable: 2 must be healthy.
    assert_eq!(
        (
            c.expected,
            c.desired_healthy,
            c.current_healthy,
            c.disruptions_allowed
        ),
        (4, 2, 3, 1)
    );
    let s = status(&budget, Ok(&c), "t");
    assert_eq!(s["conditions"][0]["reason"], "SufficientPods");
    // Pods without a controller: the fail-safe status.
    let orphan = |p: &Value| {
        Err(format!(
            "found no controller ref for pod {:?}",
            p["metadata"]["name"].as_str().unwrap()
        ))
    };
    let e = counts(&budget, &pods, &orphan, now).unwrap_err();
    let s = status(&budget, Err(&e), "t");
    assert_eq!(s["disruptionsAllowed"], 0);
    assert_eq!(s["conditions"][0]["reason"], "SyncFailed");
    assert_eq!(
        s["conditions"][0]["message"],
        "found no controller ref for pod \"a\""
    );
}
