use super::*;

fn deployment(replicas: i64, surge: Value, unavailable: Value) -> Value {
    json!({
        "metadata": {"name": "web", "generation": 1, "annotations": {
            "kubernetes.io/change-cause": "first", REVISION: "3"}},
        "spec": {"replicas": replicas, "strategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}},
            "progressDeadlineSeconds": 600,
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "c", "image": "nginx"}]}}},
    })
}

fn rs(name: &str, replicas: i64, created: &str) -> Value {
    json!({"metadata": {"name": name, "uid": name, "creationTimestamp": created},
           "spec": {"replicas": replicas}})
}

#[test]
fn fenceposts_round_surge_up_and_unavailable_down() {
    let d = deployment(10, json!("25%"), json!("25%"));
    assert_eq!(fenceposts(&d, 10), (3, 2));
    assert_eq!(max_surge(&d), 3);
    assert_eq!(max_unavailable(&d), 2);
    // Both rounding to zero: one may be unavailable.
    let d = deployment(1, json!("0%"), json!("25%"));
    assert_eq!(fenceposts(&d, 1), (0, 1));
    let mut recreate = deployment(3, json!(1), json!(1));
    recreate["spec"]["strategy"] = json!({"type": "Recreate"});
    assert_eq!((max_surge(&recreate), max_unavailable(&recreate)), (0, 0));
}

#[test]
fn the_new_replica_set_grows_within_the_surge() {
    let d = deployment(4, json!(1), json!(0));
    let old = rs("old", 4, "2024-01-01T00:00:00Z");
    let new = rs("new", 0, "2024-01-02T00:00:00Z");
    assert_eq!(
        new_rs_new_replicas(&d, &[old.clone(), new.clone()], &new),
        1
    );
    let old = rs("old", 3, "2024-01-01T00:00:00Z");
    let new = rs("new", 2, "2024-01-02T00:00:00Z");
    assert_eq!(new_rs_new_replicas(&d, &[old, new.clone()], &new), 2);
}

#[test]
fn templates_compare_without_the_hash_label() {
    let d = deployment(1, json!(1), json!(0));
    let mut t = d["spec"]["template"].clone();
    t["metadata"]["labels"][HASH_LABEL] = json!("abc");
    t["metadata"]["annotations"] = json!({});
    assert!(equal_ignore_hash(&t, &d["spec"]["template"]));
    t["spec"]["containers"][0]["image"] = json!("nginx:2");
    assert!(!equal_ignore_hash(&t, &d["spec"]["template"]));
    let mut set = rs("web-abc", 1, "2024-01-01T00:00:00Z");
    set["spec"]["template"] = d["spec"]["template"].clone();
    assert!(find_new(&d, &[rs("x", 1, "2023-01-01T00:00:00Z"), set]).is_some());
}

#[test]
fn hashes_are_stable_safe_and_change_with_collisions() {
    let t = json!({"spec": {"b": 1, "a": 2}});
    let same = json!({"spec": {"a": 2, "b": 1}});
    assert_eq!(template_hash(&t, None), template_hash(&same, None));
    assert_ne!(template_hash(&t, None), template_hash(&t, Some(1)));
    let h = template_hash(&t, None);
    assert!(
        h.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)),
        "{h}"
    );
}

#[test]
fn new_replica_sets_get_annotations_and_a_returning_one_its_history() {
    let d = deployment(3, json!(1), json!(0));
    let mut new = rs("new", 0, "t");
    assert!(set_new_annotations(&d, &mut new, 4, false));
    assert_eq!(annotation(&new, REVISION), Some("4"));
    assert_eq!(
        annotation(&new, "kubernetes.io/change-cause"),
        Some("first")
    );
    assert_eq!(annotation(&new, DESIRED_REPLICAS), Some("3"));
    assert_eq!(annotation(&new, MAX_REPLICAS), Some("4"));
    // Rolled back to: its old revision goes to the history.
    let mut back = rs("back", 1, "t");
    back["metadata"]["annotations"] = json!({REVISION: "1"});
    assert!(set_new_annotations(&d, &mut back, 5, true));
    assert_eq!(annotation(&back, REVISION), Some("5"));
    assert_eq!(annotation(&back, REVISION_HISTORY), Some("1"));
    assert!(set_new_annotations(&d, &mut back, 7, true));
    assert_eq!(annotation(&back, REVISION_HISTORY), Some("1,5"));
    assert!(!set_new_annotations(&d, &mut back, 7, true), "nothing new");
}

#[test]
fn completeness_progress_and_deadline() {
    let mut d = deployment(2, json!(1), json!(0));
    let done = json!({"replicas": 2, "updatedReplicas": 2, "availableReplicas": 2,
                      "observedGeneration": 1});
    assert!(complete(&d, &done));
    assert!(!complete(
        &d,
        &json!({"replicas": 3, "updatedReplicas": 2,
                                  "availableReplicas": 2, "observedGeneration": 1})
    ));
    d["status"] = json!({"replicas": 2, "updatedReplicas": 1, "readyReplicas": 1});
    assert!(progressing(
        &d,
        &json!({"replicas": 2, "updatedReplicas": 2})
    ));
    assert!(!progressing(
        &d,
        &json!({"replicas": 2, "updatedReplicas": 1, "readyReplicas": 1})
    ));
    let status = json!({"conditions": [{"type": "Progressing", "status": "True",
        "reason": reason::REPLICA_SET_UPDATED, "lastUpdateTime": "2024-01-01T00:00:00Z"}]});
    let at = deadline(&d, &status).unwrap();
    assert_eq!(at.to_rfc3339(), "2024-01-01T00:10:00+00:00");
    assert!(timed_out(&d, &status, at + TimeDelta::seconds(1)));
    assert!(!timed_out(&d, &status, at - TimeDelta::seconds(1)));
}

#[test]
fn proportions_follow_the_max_replicas_annotation() {
    let d = deployment(20, json!(0), json!(1));
    let mut a = rs("a", 5, "t");
    a["metadata"]["annotations"] = json!({MAX_REPLICAS: "10"});
    // 5 of 10 → 10 of 20: five more, within what is left to add.
    assert_eq!(proportion(&a, &d, 10, 0), 5);
    assert_eq!(proportion(&a, &d, 10, 8), 2);
    assert_eq!(proportion(&rs("zero", 0, "t"), &d, 10, 0), 0);
    assert!(!is_saturated(&d, None));
}
