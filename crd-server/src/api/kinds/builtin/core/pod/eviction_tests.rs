use serde_json::json;

use super::eviction::{take, unhealthy_may_go};
use crate::api::status::assert_answer;

fn budget(allowed: i64, observed: i64) -> serde_json::Value {
    json!({
        "metadata": {"name": "web", "generation": 2},
        "spec": {"minAvailable": 2},
        "status": {"observedGeneration": observed, "disruptionsAllowed": allowed,
            "currentHealthy": 2, "desiredHealthy": 2},
    })
}

#[test]
fn a_disruption_is_taken_and_the_pod_recorded() {
    let mut pdb = budget(1, 2);
    let pod = json!({"metadata": {"name": "web-1"}});
    take(&mut pdb, &pod, "2026-01-01T00:00:00Z").unwrap();
    assert_eq!(pdb["status"]["disruptionsAllowed"], 0);
    assert_eq!(
        pdb["status"]["disruptedPods"]["web-1"],
        "2026-01-01T00:00:00Z"
    );
    // None left: 429 with the cause upstream gives.
    let e = take(&mut pdb, &json!({"metadata": {"name": "web-2"}}), "t").unwrap_err();
    assert_eq!(e.code, 429);
    assert_eq!(
        e.message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        e.details.unwrap()["causes"][0],
        json!({"reason": "DisruptionBudget", "message": "The disruption budget web needs 2 healthy pods and has 2 currently"})
    );
}

#[test]
fn a_budget_not_yet_processed_asks_to_retry() {
    let mut pdb = budget(1, 1);
    let e = take(&mut pdb, &json!({"metadata": {"name": "p"}}), "t").unwrap_err();
    let details = e.details.unwrap();
    assert_eq!(details["retryAfterSeconds"], 10);
    assert_eq!(
        details["causes"][0]["message"],
        "The disruption budget web is still being processed by the server."
    );
    let mut negative = budget(-1, 2);
    let e = take(&mut negative, &json!({"metadata": {"name": "p"}}), "t").unwrap_err();
    assert_answer(&e, 403, |m| {
        m.ends_with("pdb disruptions allowed is negative")
    });
}

#[test]
fn unready_pods_go_while_the_budget_is_healthy() {
    assert!(unhealthy_may_go(&budget(0, 2), false));
    assert!(!unhealthy_may_go(&budget(0, 2), true));
    let mut short = budget(0, 2);
    short["status"]["currentHealthy"] = json!(1);
    assert!(!unhealthy_may_go(&short, false));
    short["spec"]["unhealthyPodEvictionPolicy"] = json!("AlwaysAllow");
    assert!(unhealthy_may_go(&short, false));
}
