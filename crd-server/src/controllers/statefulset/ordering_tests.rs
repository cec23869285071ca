use std::sync::Arc;

use serde_json::{Value, json};

use super::ordering::{Params, Step, plan};

fn pod(ord: i64, rev: &str, phase: &str, ready: bool) -> Arc<Value> {
    Arc::new(json!({
        "metadata": {"name": format!("web-{ord}"), "uid": format!("u{ord}"),
                     "labels": {"controller-revision-hash": rev}},
        "status": {"phase": phase, "conditions": [
            {"type": "Ready", "status": if ready {"True"} else {"False"}}]},
    }))
}

fn params(replicas: i64, monotonic: bool, rolling: bool, partition: i64) -> Params<'static> {
    Params {
        set_name: "web",
        start: 0,
        replicas,
        monotonic,
        rolling,
        partition,
        update_revision: "web-new",
    }
}

fn healthy(p: &Value) -> bool {
    p["status"]["phase"] == "Running" && p["status"]["conditions"][0]["status"] == "True"
}

/// The steps as `create N`, `replace N`, `condemn N`, `update N`.
fn names(steps: &[Step]) -> Vec<String> {
    let name = |p: &Value| p["metadata"]["name"].as_str().unwrap().to_string();
    steps
        .iter()
        .map(|s| match s {
            Step::Create {
                ordinal,
                from_current,
            } => {
                format!(
                    "create {ordinal}{}",
                    if *from_current { " (current)" } else { "" }
                )
            }
            Step::Replace(p) => format!("replace {}", name(p)),
            Step::Condemn { pod, .. } => format!("condemn {}", name(pod)),
            Step::Update(p) => format!("update {}", name(p)),
        })
        .collect()
}

#[test]
fn ordered_ready_creates_one_at_a_time_after_the_one_before_is_ready() {
    let p = params(3, true, true, 0);
    assert_eq!(names(&plan(&p, &[], &healthy)), ["create 0"]);
    let starting = [pod(0, "web-new", "Pending", false)];
    assert!(plan(&p, &starting, &healthy).is_empty());
    let ready = [pod(0, "web-new", "Running", true)];
    assert_eq!(names(&plan(&p, &ready, &healthy)), ["create 1"]);
    // Parallel: every missing Pod at once, ready or not.
    let p = params(3, false, true, 0);
    assert_eq!(
        names(&plan(&p, &starting, &healthy)),
        ["create 1", "create 2"]
    );
}

#[test]
fn scale_down_deletes_from_the_highest_ordinal_one_at_a_time() {
    let all: Vec<_> = (0..4).map(|i| pod(i, "web-new", "Running", true)).collect();
    let p = params(1, true, true, 0);
    assert_eq!(names(&plan(&p, &all, &healthy)), ["condemn web-3"]);
    let p = params(1, false, true, 0);
    assert_eq!(
        names(&plan(&p, &all, &healthy)),
        ["condemn web-3", "condemn web-2", "condemn web-1"]
    );
    // OrderedReady does not delete an unhealthy Pod while a lower one is unhealthy too.
    let mut some_sick = all.clone();
    some_sick[1] = pod(1, "web-new", "Running", false);
    some_sick[3] = pod(3, "web-new", "Running", false);
    assert!(plan(&params(1, true, true, 0), &some_sick, &healthy).is_empty());
    // A healthy one goes first, unhealthy lower ones or not.
    some_sick[3] = pod(3, "web-new", "Running", true);
    assert_eq!(
        names(&plan(&params(1, true, true, 0), &some_sick, &healthy)),
        ["condemn web-3"]
    );
}

#[test]
fn rolling_updates_go_down_to_the_partition_and_on_delete_waits() {
    let old: Vec<_> = (0..3).map(|i| pod(i, "web-old", "Running", true)).collect();
    assert_eq!(
        names(&plan(&params(3, true, true, 0), &old, &healthy)),
        ["update web-2"]
    );
    let mut mid = old.clone();
    mid[2] = pod(2, "web-new", "Running", true);
    assert_eq!(
        names(&plan(&params(3, true, true, 0), &mid, &healthy)),
        ["update web-1"]
    );
    // Partition 2: only web-2 is updated; web-1 and web-0 keep the old revision.
    assert!(plan(&params(3, true, true, 2), &mid, &healthy).is_empty());
    // A missing Pod below the partition comes back at the current revision.
    assert_eq!(
        names(&plan(&params(3, true, true, 2), &mid[1..], &healthy)),
        ["create 0 (current)"]
    );
    // OnDelete: nothing replaced by the controller.
    assert!(plan(&params(3, true, false, 0), &old, &healthy).is_empty());
    // A failed Pod is replaced first.
    let mut failed = old.clone();
    failed[0] = pod(0, "web-old", "Failed", false);
    assert_eq!(
        names(&plan(&params(3, true, true, 0), &failed, &healthy)),
        ["replace web-0"]
    );
}
