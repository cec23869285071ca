use serde_json::json;

use super::*;

fn node(name: &str, labels: Value, allocatable: Value) -> Value {
    json!({"metadata": {"name": name, "labels": labels},
           "spec": {},
           "status": {"allocatable": allocatable,
                      "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn pod(spec: Value) -> Value {
    json!({"metadata": {"name": "p", "namespace": "default"}, "spec": spec})
}

#[test]
fn requests_sum_containers_and_take_the_largest_init_container() {
    let p = pod(json!({
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "100m"}}},
                       {"name": "b", "resources": {"requests": {"cpu": "200m", "memory": "1Gi"}}}],
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1"}}}],
    }));
    let r = requests(&p);
    assert_eq!(r["cpu"].canonical(), "1");
    assert_eq!(r["memory"].canonical(), "1Gi");
}

#[test]
fn filters_in_the_schedulers_order() {
    let n = node(
        "n1",
        json!({"disk": "ssd"}),
        json!({"cpu": "1", "memory": "1Gi", "pods": "2"}),
    );
    let none = Usage::default();
    let fits = |p: &Value, u: &Usage| filter(p, &n, u, &requests(p));
    assert!(fits(&pod(json!({"containers": []})), &none).is_empty());
    let big = pod(json!({"containers": [{"name": "c",
        "resources": {"requests": {"cpu": "2", "memory": "2Gi"}}}]}));
    assert_eq!(
        fits(&big, &none),
        ["Insufficient cpu", "Insufficient memory"]
    );
    let full = Usage {
        pods: 2,
        ..Usage::default()
    };
    assert_eq!(fits(&pod(json!({})), &full), ["Too many pods"]);
    let hdd = pod(json!({"nodeSelector": {"disk": "hdd"}}));
    assert_eq!(
        fits(&hdd, &none),
        ["node(s) didn't match Pod's node affinity/selector"]
    );
    let affinity = pod(json!({"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]}}}}));
    assert!(fits(&affinity, &none).is_empty());
    let mut tainted = n.clone();
    tainted["spec"]["taints"] =
        json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
    assert_eq!(
        filter(&pod(json!({})), &tainted, &none, &BTreeMap::new()),
        ["node(s) had untolerated taint {dedicated: gpu}"]
    );
    let tolerant = pod(json!({"tolerations": [{"key": "dedicated", "operator": "Exists"}]}));
    assert!(filter(&tolerant, &tainted, &none, &BTreeMap::new()).is_empty());
    let mut cordoned = n.clone();
    cordoned["spec"]["unschedulable"] = json!(true);
    assert_eq!(
        filter(&pod(json!({})), &cordoned, &none, &BTreeMap::new()),
        ["node(s) were unschedulable"]
    );
    let mut not_ready = n.clone();
    not_ready["status"]["conditions"][0]["status"] = json!("False");
    assert_eq!(
        filter(&pod(json!({})), &not_ready, &none, &BTreeMap::new()),
        ["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"]
    );
}

#[test]
fn fit_errors_read_as_kube_schedulers() {
    assert_eq!(fit_error(0, &[]), "no nodes available to schedule pods");
    let per_node = vec![
        vec!["Insufficient cpu".to_string()],
        vec!["node(s) didn't match Pod's node affinity/selector".to_string()],
        vec!["node(s) didn't match Pod's node affinity/selector".to_string()],
    ];
    assert_eq!(
        fit_error(3, &per_node),
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node \
         affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims \
         found for incoming pod, 2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn the_least_allocated_node_scores_highest() {
    let n = node(
        "n",
        json!({}),
        json!({"cpu": "4", "memory": "4Gi", "pods": "110"}),
    );
    let mut busy = Usage::default();
    busy.add(
        &pod(json!({"containers": [{"name": "c",
        "resources": {"requests": {"cpu": "2"}}}]})),
        true,
    );
    assert!(score(&n, &Usage::default()) > score(&n, &busy));
}
