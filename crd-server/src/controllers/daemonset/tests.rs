use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::Utc;
use serde_json::{Value, json};

use super::placement::{add_tolerations, new_pod, should_run, target_node};
use super::rolling::plan;

fn ds(spec: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
           "metadata": {"name": "agent", "namespace": "default", "uid": "u1"},
           "spec": {"template": {"metadata": {"labels": {"app": "agent"}}, "spec": spec}}})
}

fn node(name: &str, labels: Value, taints: Value) -> Value {
    json!({"metadata": {"name": name, "labels": labels}, "spec": {"taints": taints}})
}

#[test]
fn daemon_pods_tolerate_what_upstream_adds_and_are_pinned_to_their_node() {
    let mut spec = json!({"hostNetwork": true, "tolerations": [
        {"key": "node.kubernetes.io/unschedulable", "operator": "Equal", "value": "x",
         "effect": "NoSchedule"}]});
    add_tolerations(&mut spec);
    let keys: Vec<(&str, &str)> = spec["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["key"].as_str().unwrap(), t["effect"].as_str().unwrap()))
        .collect();
    assert_eq!(keys.len(), 7, "{keys:?}");
    assert!(keys.contains(&("node.kubernetes.io/not-ready", "NoExecute")));
    assert!(keys.contains(&("node.kubernetes.io/network-unavailable", "NoSchedule")));
    let pod = new_pod(&ds(json!({"containers": []})), "n1", "h1");
    assert_eq!(pod["metadata"]["generateName"], "agent-");
    assert_eq!(pod["metadata"]["labels"]["controller-revision-hash"], "h1");
    assert_eq!(target_node(&pod), Some("n1"));
    let terms = &pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"];
    assert_eq!(terms[0]["matchFields"][0]["key"], "metadata.name");
}

#[test]
fn nodes_run_daemon_pods_by_selector_affinity_and_taints() {
    let plain = node("a", json!({"disk": "ssd"}), json!([]));
    let hdd = node("b", json!({"disk": "hdd"}), json!([]));
    let any = ds(json!({}));
    assert_eq!(should_run(&any, &plain), (true, true));
    let ssd = ds(json!({"nodeSelector": {"disk": "ssd"}}));
    assert_eq!(should_run(&ssd, &plain), (true, true));
    assert_eq!(should_run(&ssd, &hdd), (false, false));
    // A NoSchedule taint: not placed, but a Pod already there stays.
    let tainted = node(
        "c",
        json!({}),
        json!([{"key": "dedicated", "effect": "NoSchedule"}]),
    );
    assert_eq!(should_run(&any, &tainted), (false, true));
    let evicting = node(
        "d",
        json!({}),
        json!([{"key": "dedicated", "effect": "NoExecute"}]),
    );
    assert_eq!(should_run(&any, &evicting), (false, false));
    let tolerant = ds(json!({"tolerations": [{"key": "dedicated", "operator": "Exists"}]}));
    assert_eq!(should_run(&tolerant, &evicting), (true, true));
    // The taints the controller tolerates itself.
    let cordoned = node(
        "e",
        json!({}),
        json!([
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]),
    );
    assert_eq!(should_run(&any, &cordoned), (true, true));
}

fn pod(name: &str, hash: &str, ready: bool) -> Arc<Value> {
    Arc::new(json!({"metadata": {"name": name, "uid": name,
        "labels": {"controller-revision-hash": hash}},
        "status": {"phase": "Running", "conditions": [
            {"type": "Ready", "status": if ready {"True"} else {"False"}}]}}))
}

#[test]
fn a_rolling_update_keeps_within_max_unavailable_and_max_surge() {
    let mut nodes = BTreeMap::new();
    nodes.insert("n1".to_string(), vec![pod("p1", "old", true)]);
    nodes.insert("n2".to_string(), vec![pod("p2", "old", true)]);
    nodes.insert("n3".to_string(), vec![pod("p3", "old", false)]);
    let now = Utc::now();
    // maxUnavailable 1: the unavailable old Pod goes at once, plus one available one.
    let p = plan(&nodes, "new", 0, 1, 0, now);
    let names: Vec<&str> = p
        .delete
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["p3", "p1"]);
    // A node without an available Pod uses the budget up.
    nodes.insert("n4".to_string(), vec![pod("p4", "new", false)]);
    let p = plan(&nodes, "new", 0, 1, 0, now);
    assert_eq!(p.delete.len(), 1);
    // maxSurge 1: a new Pod beside one old one; the old goes once the new is available.
    nodes.remove("n4");
    nodes.remove("n3");
    let p = plan(&nodes, "new", 1, 0, 0, now);
    assert_eq!(p.create_on, ["n1"]);
    assert!(p.delete.is_empty());
    nodes.get_mut("n1").unwrap().push(pod("p1b", "new", true));
    let p = plan(&nodes, "new", 1, 0, 0, now);
    assert_eq!(p.delete.len(), 1);
    assert_eq!(p.delete[0]["metadata"]["name"], "p1");
    assert_eq!(p.create_on, ["n2"]);
}
