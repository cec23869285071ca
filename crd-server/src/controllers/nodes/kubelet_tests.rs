use super::*;
use crate::stages::StageSet;
use crate::stages::template::fake_host::FakeHost;

/// The default stage `pod` is at, and the status it writes at `now`.
fn default_stage(pod: &Value, now: &str) -> (String, Value) {
    let stage = Lifecycle::new(&StageSet::default())
        .choose(pod)
        .expect("a default stage matches");
    let template = stage.next.status_template.as_ref().expect("a status");
    let text = render(
        template,
        pod,
        &FakeHost {
            now: now.into(),
            pod_ip: "10.244.0.2",
            qos_class: qos_class(pod).into(),
        },
    )
    .unwrap();
    let rendered = crd_runtime::parse_documents("t", &text).unwrap().remove(0);
    (stage.name.clone(), merge_status(&pod["status"], &rendered))
}

fn running_status(pod: &Value, _host: &str, _ip: &str, now: &str) -> Value {
    let (name, status) = default_stage(pod, now);
    assert_eq!(name, "pod-ready");
    status
}

fn succeeded_status(pod: &Value, now: &str) -> Value {
    let (name, status) = default_stage(pod, now);
    assert_eq!(name, "pod-complete");
    status
}

fn pod() -> Value {
    json!({
        "metadata": {"name": "web-1", "namespace": "default", "uid": "u1"},
        "spec": {"nodeName": "kwok-node-0",
                 "initContainers": [{"name": "setup", "image": "busybox"}],
                 "containers": [{"name": "nginx", "image": "nginx"}]},
        "status": {"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "t0"}]},
    })
}

#[test]
fn pod_ready_runs_every_container_and_keeps_pod_scheduled() {
    let s = running_status(&pod(), "172.18.0.2", "10.244.0.2", "t1");
    assert_eq!(s["phase"], "Running");
    assert_eq!(s["podIP"], "10.244.0.2");
    assert_eq!(s["podIPs"], json!([{"ip": "10.244.0.2"}]));
    assert_eq!(s["hostIP"], "172.18.0.2");
    let types: Vec<&str> = s["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "PodScheduled",
            "PodReadyToStartContainers",
            "Initialized",
            "Ready",
            "ContainersReady"
        ]
    );
    assert_eq!(s["containerStatuses"][0]["ready"], true);
    assert!(s["containerStatuses"][0]["state"]["running"].is_object());
    assert_eq!(
        s["initContainerStatuses"][0]["state"]["terminated"]["reason"],
        "Completed"
    );
    assert_eq!(s["qosClass"], "BestEffort");
    assert_eq!(s["startTime"], "t1");
}

#[test]
fn pod_complete_succeeds_with_exit_code_zero() {
    let mut p = pod();
    p["status"] = running_status(&p, "h", "i", "t1");
    p["metadata"]["ownerReferences"] =
        json!([{"kind": "Job", "name": "j", "uid": "j", "controller": true}]);
    let s = succeeded_status(&p, "t2");
    assert_eq!(s["phase"], "Succeeded");
    let ready = s["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Ready")
        .unwrap();
    assert_eq!(ready["status"], "False");
    assert_eq!(ready["reason"], "PodCompleted");
    let t = &s["containerStatuses"][0]["state"]["terminated"];
    assert_eq!(t["exitCode"], 0);
    assert_eq!(t["startedAt"], "t1");
}

#[test]
fn qos_classes() {
    let with =
        |resources: Value| json!({"spec": {"containers": [{"name": "c", "resources": resources}]}});
    assert_eq!(qos_class(&with(json!({}))), "BestEffort");
    assert_eq!(
        qos_class(&with(json!({"limits": {"cpu": "1", "memory": "1Gi"}}))),
        "Guaranteed"
    );
    assert_eq!(
        qos_class(&with(json!({"requests": {"cpu": "1"}}))),
        "Burstable"
    );
}

#[test]
fn only_job_pods_complete_and_deleted_pods_are_removed() {
    let lifecycle = Lifecycle::new(&StageSet::default());
    let mut p = pod();
    p["status"]["phase"] = json!("Running");
    assert!(
        lifecycle.choose(&p).is_none(),
        "a running Pod of no Job stays"
    );
    p["metadata"]["ownerReferences"] =
        json!([{"kind": "Job", "name": "j", "uid": "j", "controller": true}]);
    assert_eq!(lifecycle.choose(&p).unwrap().name, "pod-complete");
    p["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
    p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    let stage = lifecycle.choose(&p).unwrap();
    assert_eq!(stage.name, "pod-delete");
    assert!(stage.next.delete);
    // Once deleted with no grace period left, only its finalizers hold it.
    p["metadata"]["deletionGracePeriodSeconds"] = json!(0);
    assert!(lifecycle.choose(&p).is_none());
}
