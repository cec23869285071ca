//! Pods as `pkg/api/v1/pod` and `pkg/controller` read them: active, ready, available
//! after `minReadySeconds`, made from a template for an owner, and the order in which a
//! controller deletes the ones it has too many of (`ActivePodsWithRanks`).

use std::cmp::Ordering;
use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Map, Value, json};

use crate::api::object::{is_deleting, str_at};
use crate::controllers::clock::parse_time;

/// `status.phase`.
pub fn phase(pod: &Value) -> &str {
    str_at(pod, "/status/phase")
}

/// `IsPodActive`: not finished and not being deleted.
pub fn is_active(pod: &Value) -> bool {
    !matches!(phase(pod), "Succeeded" | "Failed") && !is_deleting(pod)
}

/// `IsPodTerminal`: Succeeded or Failed.
pub fn is_terminal(pod: &Value) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// The pod's condition of `kind`.
pub fn condition<'a>(pod: &'a Value, kind: &str) -> Option<&'a Value> {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c["type"] == kind)
}

/// `IsPodReady`: the `Ready` condition is `True`.
pub fn is_ready(pod: &Value) -> bool {
    condition(pod, "Ready").is_some_and(|c| c["status"] == "True")
}

/// When the pod became ready (`None` when it is not ready).
pub fn ready_since(pod: &Value) -> Option<DateTime<Utc>> {
    condition(pod, "Ready")
        .filter(|c| c["status"] == "True")
        .and_then(|c| c["lastTransitionTime"].as_str())
        .and_then(parse_time)
}

/// `IsPodAvailable`: ready for at least `min_ready_seconds` at `now`.
pub fn is_available(pod: &Value, min_ready_seconds: i64, now: DateTime<Utc>) -> bool {
    if !is_ready(pod) {
        return false;
    }
    if min_ready_seconds <= 0 {
        return true;
    }
    ready_since(pod).is_some_and(|t| t + TimeDelta::seconds(min_ready_seconds) <= now)
}

/// When a ready pod becomes available (`None`: it is not ready, or already is).
pub fn available_at(
    pod: &Value,
    min_ready_seconds: i64,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    if min_ready_seconds <= 0 {
        return None;
    }
    let at = ready_since(pod)? + TimeDelta::seconds(min_ready_seconds);
    (at > now).then_some(at)
}

/// `GetPodFromTemplate`: a pod for `owner` from its pod template — the template's
/// labels, annotations, finalizers and spec, named `<prefix>-<random>`, controlled by
/// the owner.
pub fn from_template(template: &Value, owner_ref: Value, prefix: &str) -> Value {
    let meta = |f: &str| template.pointer(&format!("/metadata/{f}")).cloned();
    let mut metadata = Map::new();
    metadata.insert("generateName".into(), json!(format!("{prefix}-")));
    for f in ["labels", "annotations", "finalizers"] {
        if let Some(v) = meta(f).filter(|v| !v.is_null()) {
            metadata.insert(f.into(), v);
        }
    }
    metadata.insert("ownerReferences".into(), json!([owner_ref]));
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
    })
}

/// The total restarts of the pod's containers.
fn restarts(pod: &Value) -> i64 {
    pod.pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c["restartCount"].as_i64())
        .sum()
}

fn phase_rank(pod: &Value) -> u8 {
    match phase(pod) {
        "Pending" | "" => 0,
        "Unknown" => 1,
        _ => 2,
    }
}

/// `ActivePodsWithRanks`' order: the pods to delete first come first — unassigned
/// before assigned, pending before running, not ready before ready, those sharing a
/// node with more related pods first, ready for less time first, more restarts first,
/// newer first.
pub fn deletion_order(pods: &mut [std::sync::Arc<Value>], related: &[std::sync::Arc<Value>]) {
    let mut per_node: HashMap<&str, usize> = HashMap::new();
    for p in related {
        let node = str_at(p, "/spec/nodeName");
        if !node.is_empty() && is_active(p) {
            *per_node.entry(node).or_default() += 1;
        }
    }
    let rank = |p: &Value| -> usize {
        let node = str_at(p, "/spec/nodeName");
        if node.is_empty() {
            0
        } else {
            per_node.get(node).copied().unwrap_or(0)
        }
    };
    let ranks: HashMap<String, usize> = pods
        .iter()
        .map(|p| (str_at(p, "/metadata/uid").to_string(), rank(p)))
        .collect();
    pods.sort_by(|a, b| {
        let assigned = |p: &Value| !str_at(p, "/spec/nodeName").is_empty();
        let r = |p: &Value| ranks.get(str_at(p, "/metadata/uid")).copied().unwrap_or(0);
        assigned(a)
            .cmp(&assigned(b))
            .then(phase_rank(a).cmp(&phase_rank(b)))
            .then(is_ready(a).cmp(&is_ready(b)))
            .then(r(b).cmp(&r(a)))
            .then_with(|| match (ready_since(a), ready_since(b)) {
                (Some(x), Some(y)) => y.cmp(&x),
                _ => Ordering::Equal,
            })
            .then(restarts(b).cmp(&restarts(a)))
            .then_with(|| {
                let created = |p: &Value| str_at(p, "/metadata/creationTimestamp").to_string();
                created(b).cmp(&created(a))
            })
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn pod(name: &str, node: &str, phase: &str, ready: bool) -> Arc<Value> {
        Arc::new(json!({
            "metadata": {"name": name, "uid": name, "creationTimestamp": "2024-01-01T00:00:00Z"},
            "spec": {"nodeName": node},
            "status": {"phase": phase, "conditions": [
                {"type": "Ready", "status": if ready {"True"} else {"False"},
                 "lastTransitionTime": "2024-01-01T00:00:10Z"}]},
        }))
    }

    #[test]
    fn availability_waits_for_min_ready_seconds() {
        let p = pod("a", "n", "Running", true);
        let t = |s: &str| parse_time(s).unwrap();
        assert!(is_available(&p, 0, t("2024-01-01T00:00:10Z")));
        assert!(!is_available(&p, 30, t("2024-01-01T00:00:20Z")));
        assert!(is_available(&p, 30, t("2024-01-01T00:00:40Z")));
        assert_eq!(
            available_at(&p, 30, t("2024-01-01T00:00:20Z")),
            Some(t("2024-01-01T00:00:40Z"))
        );
        assert!(!is_available(
            &pod("b", "n", "Running", false),
            0,
            Utc::now()
        ));
    }

    #[test]
    fn unassigned_pending_and_unready_pods_go_first() {
        let mut pods = vec![
            pod("running-ready", "n1", "Running", true),
            pod("unassigned", "", "Pending", false),
            pod("running-unready", "n1", "Running", false),
            pod("pending", "n1", "Pending", false),
        ];
        let related = pods.clone();
        deletion_order(&mut pods, &related);
        let names: Vec<&str> = pods.iter().map(|p| str_at(p, "/metadata/name")).collect();
        assert_eq!(
            names,
            ["unassigned", "pending", "running-unready", "running-ready"]
        );
    }

    #[test]
    fn a_pod_from_a_template_is_controlled_by_its_owner() {
        let template = json!({"metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
        let owner = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1",
                           "uid": "u1", "controller": true, "blockOwnerDeletion": true});
        let p = from_template(&template, owner, "web-1");
        assert_eq!(p["metadata"]["generateName"], "web-1-");
        assert_eq!(p["metadata"]["labels"]["app"], "web");
        assert_eq!(p["metadata"]["ownerReferences"][0]["uid"], "u1");
        assert!(is_active(&p));
    }
}
