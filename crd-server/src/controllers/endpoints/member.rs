//! What one Pod contributes to a Service's endpoints (`pkg/controller/util/endpoint`,
//! `podutil.FindPort`): whether it is listed at all, its address of a family, its
//! readiness, and the port each Service port's `targetPort` names on it.

use serde_json::{Value, json};

use crate::api::object::{is_deleting, str_at};
use crate::controllers::workload::pods;

/// `ShouldPodBeInEndpoints`: not finished, has an IP, and — unless
/// `include_terminating` — not being deleted.
pub fn listed(pod: &Value, include_terminating: bool) -> bool {
    if pods::is_terminal(pod) || ip(pod, None).is_none() {
        return false;
    }
    include_terminating || !is_deleting(pod)
}

/// The pod's IP of `family` (`IPv4`, `IPv6`; `None`: its primary IP).
pub fn ip<'a>(pod: &'a Value, family: Option<&str>) -> Option<&'a str> {
    let mut ips: Vec<&str> = pod
        .pointer("/status/podIPs")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|i| i["ip"].as_str()).collect())
        .unwrap_or_default();
    if ips.is_empty() {
        ips.extend(Some(str_at(pod, "/status/podIP")).filter(|s| !s.is_empty()));
    }
    match family {
        None => ips.first().copied(),
        Some(f) => ips.into_iter().find(|i| (f == "IPv6") == i.contains(':')),
    }
}

/// The address families of the Service (`spec.ipFamilies`, IPv4 when unset).
pub fn families(svc: &Value) -> Vec<String> {
    let listed: Vec<String> = svc
        .pointer("/spec/ipFamilies")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        vec!["IPv4".into()]
    } else {
        listed
    }
}

/// `FindPort`: the number a Service port's `targetPort` stands for on the pod — a
/// number as it is, a name as the pod's container port of that name and protocol.
pub fn find_port(pod: &Value, svc_port: &Value) -> Option<i64> {
    let protocol = svc_port["protocol"].as_str().unwrap_or("TCP");
    match svc_port.get("targetPort").unwrap_or(&svc_port["port"]) {
        Value::Number(n) => n.as_i64(),
        Value::String(name) => pod
            .pointer("/spec/containers")
            .and_then(Value::as_array)?
            .iter()
            .filter_map(|c| c["ports"].as_array())
            .flatten()
            .find(|p| {
                p["name"].as_str() == Some(name)
                    && p["protocol"].as_str().unwrap_or("TCP") == protocol
            })
            .and_then(|p| p["containerPort"].as_i64()),
        _ => None,
    }
}

/// The endpoint ports the Service's ports resolve to on the pod (those that resolve),
/// in the Service's order: `{name, port, protocol, appProtocol}`.
pub fn ports(svc: &Value, pod: &Value) -> Vec<Value> {
    let Some(svc_ports) = svc.pointer("/spec/ports").and_then(Value::as_array) else {
        return Vec::new();
    };
    svc_ports
        .iter()
        .filter_map(|sp| {
            let port = find_port(pod, sp)?;
            let mut p = json!({
                "name": sp["name"].as_str().unwrap_or(""),
                "port": port,
                "protocol": sp["protocol"].as_str().unwrap_or("TCP"),
            });
            if let Some(app) = sp.get("appProtocol") {
                p["appProtocol"] = app.clone();
            }
            Some(p)
        })
        .collect()
}

/// The pod's reference (`targetRef`).
pub fn target_ref(pod: &Value) -> Value {
    json!({
        "kind": "Pod",
        "namespace": str_at(pod, "/metadata/namespace"),
        "name": str_at(pod, "/metadata/name"),
        "uid": str_at(pod, "/metadata/uid"),
    })
}

/// The pod's hostname as the Service publishes it: set only when the pod names the
/// Service as its subdomain.
pub fn hostname<'a>(svc: &Value, pod: &'a Value) -> Option<&'a str> {
    let host = str_at(pod, "/spec/hostname");
    (!host.is_empty() && str_at(pod, "/spec/subdomain") == str_at(svc, "/metadata/name"))
        .then_some(host)
}

/// Sets on `entry` (an Endpoints address or an EndpointSlice endpoint) what both say of
/// `pod`: its `targetRef`, its `hostname` when it has one for `svc`, and its `nodeName`
/// once it is bound; that node's name.
pub fn describe<'a>(entry: &mut Value, svc: &Value, pod: &'a Value) -> Option<&'a str> {
    entry["targetRef"] = target_ref(pod);
    if let Some(h) = hostname(svc, pod) {
        entry["hostname"] = json!(h);
    }
    let node = str_at(pod, "/spec/nodeName");
    if node.is_empty() {
        return None;
    }
    entry["nodeName"] = json!(node);
    Some(node)
}

/// Whether the Service publishes its Pods before they are ready.
pub fn publish_not_ready(svc: &Value) -> bool {
    svc.pointer("/spec/publishNotReadyAddresses") == Some(&Value::Bool(true))
}

/// Whether the Service has no cluster IP (headless).
pub fn headless(svc: &Value) -> bool {
    str_at(svc, "/spec/clusterIP") == "None"
}

/// The labels the published objects carry: the Service's, with
/// `service.kubernetes.io/headless` exactly when it is headless.
pub fn labels(svc: &Value) -> serde_json::Map<String, Value> {
    let mut labels = svc
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    labels.remove(HEADLESS);
    if headless(svc) {
        labels.insert(HEADLESS.into(), json!(""));
    }
    labels
}

/// The label of a headless Service's endpoints.
pub const HEADLESS: &str = "service.kubernetes.io/headless";
