use super::*;

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
fn only_job_pods_complete() {
    let mut p = pod();
    assert!(!owned_by_job(&p));
    p["metadata"]["ownerReferences"] =
        json!([{"kind": "Job", "name": "j", "uid": "j", "controller": true}]);
    assert!(owned_by_job(&p));
}
