use serde_json::json;

use super::*;

fn stage(delay: Value) -> Stage {
    Stage::parse(&json!({"metadata": {"name": "slow"}, "spec": {
        "resourceRef": {"kind": "Pod"}, "delay": delay, "next": {"delete": true}}}))
    .unwrap()
}

fn t(s: &str) -> DateTime<Utc> {
    parse_time(s).unwrap()
}

#[test]
fn delays_and_jitter() {
    let now = t("2024-01-01T00:00:00Z");
    let pod = json!({"metadata": {"uid": "u", "resourceVersion": "1",
        "deletionTimestamp": "2024-01-01T00:00:30Z",
        "annotations": {"delay": "2s"}}});
    let d = |v: Value| delay_of(stage(v).delay.as_ref().unwrap(), &pod, now).num_milliseconds();
    assert_eq!(d(json!({"durationMilliseconds": 1500})), 1500);
    assert_eq!(
        d(json!({"durationMilliseconds": 1500,
                        "durationFrom": {"expressionFrom": ".metadata.annotations.delay"}})),
        2000
    );
    let j = d(json!({"durationMilliseconds": 1000, "jitterDurationMilliseconds": 5000}));
    assert!((1000..5000).contains(&j), "{j}");
    // A jitter shorter than the delay wins, as kwok's.
    let j = d(json!({"durationMilliseconds": 9000,
                     "jitterDurationFrom": {"expressionFrom": ".metadata.deletionTimestamp"}}));
    assert!((9000..30_000).contains(&j), "{j}");
    assert_eq!(
        d(json!({"durationMilliseconds": 60000,
                        "jitterDurationFrom": {"expressionFrom": ".metadata.deletionTimestamp"}})),
        30_000
    );
}

#[test]
fn a_due_time_is_kept_until_the_stage_runs() {
    let lifecycle = Lifecycle::new(&StageSet::default());
    let s = stage(json!({"durationMilliseconds": 10000}));
    let pod = json!({"metadata": {"uid": "u"}});
    let now = t("2024-01-01T00:00:00Z");
    let due = lifecycle.due_at(&s, &pod, now);
    assert_eq!(due, t("2024-01-01T00:00:10Z"));
    // Seen again later: still due at the same time.
    assert_eq!(lifecycle.due_at(&s, &pod, t("2024-01-01T00:00:05Z")), due);
    lifecycle.done("u");
    assert_eq!(
        lifecycle.due_at(&s, &pod, t("2024-01-01T00:00:05Z")),
        t("2024-01-01T00:00:15Z")
    );
}

#[test]
fn statuses_merge_conditions_by_type() {
    let current = json!({"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]});
    let merged = merge_status(
        &current,
        &json!({"phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}]}),
    );
    assert_eq!(
        merged,
        json!({"phase": "Running", "conditions": [
        {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]})
    );
}
