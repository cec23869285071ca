//! Where a DaemonSet's Pods go, as upstream's `pkg/controller/daemon` and
//! `daemon/util`: the Pod for one node (the template with the tolerations every daemon
//! Pod gets and a required node affinity on the node's name, which the scheduler
//! binds by), whether a node should run it (`NodeShouldRunDaemonPod`) and which node a
//! Pod is for (`GetTargetNodeName`).

use serde_json::{Value, json};

use crate::api::object::str_at;
use crate::controllers::scheduler::fit::{affinity_matches, tolerates};
use crate::controllers::workload::{object_at, owners, pods};

/// The label holding the template hash a daemon Pod was made from.
pub const REVISION: &str = "controller-revision-hash";

/// `AddOrUpdateDaemonPodTolerations`: daemon Pods stay on nodes that are not ready or
/// unreachable, and are placed on nodes under pressure or unschedulable.
pub fn add_tolerations(spec: &mut Value) {
    let mut wanted = vec![
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if spec.get("hostNetwork") == Some(&Value::Bool(true)) {
        wanted.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let mut list: Vec<Value> = spec
        .get("tolerations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (key, effect) in wanted {
        let t = json!({"key": key, "operator": "Exists", "effect": effect});
        // `AddOrUpdateTolerationInPodSpec`: one of the same key and effect is replaced.
        list.retain(|o| !(str_at(o, "/key") == key && str_at(o, "/effect") == effect));
        list.push(t);
    }
    spec["tolerations"] = Value::Array(list);
}

/// `ReplaceDaemonSetPodNodeNameNodeAffinity`: the required node affinity names only
/// `node` (by the field `metadata.name`).
pub fn pin_to_node(spec: &mut Value, node: &str) {
    let affinity = object_at(spec, &["affinity", "nodeAffinity"]);
    affinity["requiredDuringSchedulingIgnoredDuringExecution"] = json!({
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}]}]
    });
}

/// The daemon Pod for `node`: from the template, with the revision `hash` label, the
/// daemon tolerations and the node affinity.
pub fn new_pod(ds: &Value, node: &str, hash: &str) -> Value {
    let template = ds.pointer("/spec/template").cloned().unwrap_or_default();
    let name = str_at(ds, "/metadata/name");
    let mut pod = pods::from_template(&template, owners::new_controller_ref(ds), name);
    object_at(&mut pod, &["metadata", "labels"])[REVISION] = json!(hash);
    add_tolerations(&mut pod["spec"]);
    pin_to_node(&mut pod["spec"], node);
    pod
}

/// `NodeShouldRunDaemonPod`: (should run, should continue running) — the template's
/// `nodeName`, node selector and affinity fit the node, and its taints are tolerated
/// (all of NoSchedule and NoExecute to run, NoExecute ones to keep running).
pub fn should_run(ds: &Value, node: &Value) -> (bool, bool) {
    let node_name = str_at(node, "/metadata/name");
    let wanted = str_at(ds, "/spec/template/spec/nodeName");
    if !wanted.is_empty() && wanted != node_name {
        return (false, false);
    }
    let mut pod = json!({"spec": ds.pointer("/spec/template/spec").cloned().unwrap_or_default()});
    add_tolerations(&mut pod["spec"]);
    if !affinity_matches(&pod, node) {
        return (false, false);
    }
    let tolerations: Vec<Value> = pod["spec"]["tolerations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let taints: Vec<Value> = node
        .pointer("/spec/taints")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let untolerated = |effects: &[&str]| {
        taints
            .iter()
            .any(|t| effects.contains(&str_at(t, "/effect")) && !tolerates(&tolerations, t))
    };
    (
        !untolerated(&["NoSchedule", "NoExecute"]),
        !untolerated(&["NoExecute"]),
    )
}

/// `GetTargetNodeName`: the Pod's node, or the one its node affinity names.
pub fn target_node(pod: &Value) -> Option<&str> {
    let bound = str_at(pod, "/spec/nodeName");
    if !bound.is_empty() {
        return Some(bound);
    }
    pod.pointer("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")?
        .as_array()?
        .iter()
        .flat_map(|t| t.get("matchFields").and_then(Value::as_array).into_iter().flatten())
        .find(|f| f["key"] == "metadata.name" && f["operator"] == "In")
        .and_then(|f| f["values"].get(0))
        .and_then(Value::as_str)
}

/// Whether the Pod was made from the revision `hash`.
pub fn is_updated(pod: &Value, hash: &str) -> bool {
    pod.pointer("/metadata/labels")
        .and_then(|l| l.get(REVISION))
        .and_then(Value::as_str)
        == Some(hash)
}
