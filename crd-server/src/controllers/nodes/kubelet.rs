//! The simulated kubelet: kwok's default (`fast`) pod stages for the Pods bound to a
//! simulated node — `pod-ready` (Running and Ready, with container statuses, a Pod IP
//! from the node's `podCIDR` and the node's IP as host IP), `pod-complete` (the Pods
//! of a Job succeed once running) and `pod-delete` (a Pod being deleted is removed
//! once its containers are stopped: the kubelet's final delete with a grace period of
//! zero, so a Pod's finalizers still hold it).

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use super::cidr::Cidr;
use super::{internal_ip, is_simulated};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::api::request::DeleteOptions;
use crate::controllers::cache::{Event, Informer, key_of};
use crate::controllers::client::Mutation;
use crate::controllers::queue::Queue;
use crate::controllers::workload::owners::controller_ref;
use crate::controllers::workload::{Api, MAX_RETRY, Next, split_key, work};

/// Where kwok takes Pod IPs from when the node has no `podCIDR` (its `--cidr`).
const FALLBACK_CIDR: &str = "10.0.0.0/24";
/// Passes running at once.
const WORKERS: usize = 8;

/// The Pod IPs handed out, per node.
#[derive(Default)]
struct Addresses {
    by_node: HashMap<String, BTreeSet<u128>>,
    by_pod: HashMap<String, (String, u128)>,
}

struct Kubelet {
    api: Api,
    nodes: Arc<Informer>,
    pods: Arc<Informer>,
    addresses: Mutex<Addresses>,
}

/// Runs the kubelet of every simulated node until aborted.
pub async fn run(api: Api, nodes: Arc<Informer>, pods: Arc<Informer>) {
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let c = Arc::new(Kubelet {
        api,
        nodes: nodes.clone(),
        pods: pods.clone(),
        addresses: Mutex::new(Addresses::default()),
    });
    // Weak: the informer outlives this task in the cache, and a strong reference from its
    // handler back to the kubelet (and so to the cache and the store) would keep the
    // store open after the server stops.
    let (q, k) = (queue.clone(), Arc::downgrade(&c));
    pods.subscribe(Arc::new(move |e: &Event| match e.new.as_deref() {
        Some(p) if !str_at(p, "/spec/nodeName").is_empty() => q.add(e.key.clone()),
        Some(_) => {}
        None => {
            if let Some(k) = k.upgrade() {
                k.release(e.object());
            }
        }
    }));
    // Pods bound before their node was simulated (or ready) start with it.
    let (q, p) = (queue.clone(), pods.clone());
    nodes.subscribe(Arc::new(move |e: &Event| {
        let became = e.new.as_deref().is_some_and(is_simulated)
            && e.old
                .as_deref()
                .is_none_or(|o| !is_simulated(o) || internal_ip(o).is_none());
        if became {
            let name = str_at(e.object(), "/metadata/name");
            for pod in p.list(None) {
                if str_at(&pod, "/spec/nodeName") == name {
                    q.add(key_of(&pod));
                }
            }
        }
    }));
    pods.synced().await;
    nodes.synced().await;
    for pod in pods.list(None) {
        c.remember(&pod);
    }
    work(queue, WORKERS, move |key: String| {
        let c = c.clone();
        async move { c.sync(&key).await }
    })
    .await;
}

/// Whether a Job controls the pod (kwok's `pod-complete` selector).
fn owned_by_job(pod: &Value) -> bool {
    controller_ref(pod).is_some_and(|r| r["kind"] == "Job")
}

impl Kubelet {
    fn lock(&self) -> std::sync::MutexGuard<'_, Addresses> {
        self.addresses.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn node_range(node: &Value) -> Cidr {
        Cidr::parse(str_at(node, "/spec/podCIDR"))
            .or_else(|_| Cidr::parse(FALLBACK_CIDR))
            .expect("the fallback CIDR parses")
    }

    /// Records the IP a pod already has (at start, or after a restart).
    fn remember(&self, pod: &Value) {
        let (node_name, ip) = (str_at(pod, "/spec/nodeName"), str_at(pod, "/status/podIP"));
        let Some(node) = self.nodes.get("", node_name) else {
            return;
        };
        let (Ok(ip), true) = (ip.parse::<IpAddr>(), is_simulated(&node)) else {
            return;
        };
        if let Some(offset) = Self::node_range(&node).offset_of(&ip) {
            let mut a = self.lock();
            a.by_node
                .entry(node_name.to_string())
                .or_default()
                .insert(offset);
            a.by_pod.insert(
                str_at(pod, "/metadata/uid").to_string(),
                (node_name.to_string(), offset),
            );
        }
    }

    /// Frees a deleted pod's IP.
    fn release(&self, pod: &Value) {
        let mut a = self.lock();
        if let Some((node, offset)) = a.by_pod.remove(str_at(pod, "/metadata/uid"))
            && let Some(used) = a.by_node.get_mut(&node)
        {
            used.remove(&offset);
        }
    }

    /// The pod's IP: the one it was given, or the lowest free one of its node's range
    /// after the gateway's; `None` when the range is full.
    fn assign(&self, pod: &Value, node: &Value) -> Option<String> {
        let uid = str_at(pod, "/metadata/uid").to_string();
        let node_name = str_at(node, "/metadata/name").to_string();
        let range = Self::node_range(node);
        let mut a = self.lock();
        if let Some((n, offset)) = a.by_pod.get(&uid)
            && *n == node_name
        {
            return range.address(*offset).map(|ip| ip.to_string());
        }
        let used = a.by_node.entry(node_name.clone()).or_default();
        let last = range.size().saturating_sub(1).min(1 << 24);
        let offset = (2..last).find(|o| !used.contains(o))?;
        used.insert(offset);
        a.by_pod.insert(uid, (node_name, offset));
        range.address(offset).map(|ip| ip.to_string())
    }

    async fn sync(&self, key: &str) -> Result<Next, String> {
        let (ns, name) = split_key(key);
        let Some(pod) = self.pods.get(ns, name) else {
            return Ok(Next::Done);
        };
        let Some(node) = self.nodes.get("", str_at(&pod, "/spec/nodeName")) else {
            return Ok(Next::Done);
        };
        if !is_simulated(&node) {
            return Ok(Next::Done);
        }
        if is_deleting(&pod) {
            return self.stop(&pod).await;
        }
        let phase = str_at(&pod, "/status/phase");
        if matches!(phase, "Succeeded" | "Failed") {
            return Ok(Next::Done);
        }
        let Some(host_ip) = internal_ip(&node).map(str::to_string) else {
            // The node's status is not in place yet: its update brings the pod back.
            return Ok(Next::Done);
        };
        if pod.pointer("/status/podIP").is_none() || phase != "Running" {
            let pod_ip = if pod.pointer("/spec/hostNetwork") == Some(&Value::Bool(true)) {
                host_ip.clone()
            } else {
                match self.assign(&pod, &node) {
                    Some(ip) => ip,
                    None => {
                        return Err(format!(
                            "no free IP in the range of node {}",
                            str_at(&node, "/metadata/name")
                        ));
                    }
                }
            };
            let now = self.api.clock.timestamp();
            return self
                .write_status(&pod, |current| {
                    running_status(current, &host_ip, &pod_ip, &now)
                })
                .await;
        }
        if owned_by_job(&pod) {
            let now = self.api.clock.timestamp();
            return self
                .write_status(&pod, |current| succeeded_status(current, &now))
                .await;
        }
        Ok(Next::Done)
    }

    async fn write_status(
        &self,
        pod: &Value,
        status: impl Fn(&Value) -> Value,
    ) -> Result<Next, String> {
        let uid = pod["metadata"]["uid"].clone();
        let (ns, name) = (
            str_at(pod, "/metadata/namespace"),
            str_at(pod, "/metadata/name"),
        );
        let mutate = |current: &Value| {
            if current["metadata"]["uid"] != uid || is_deleting(current) {
                return Mutation::Keep;
            }
            let mut next = current.clone();
            next["status"] = status(current);
            Mutation::Write(next)
        };
        self.api
            .update(&self.pods, ns, name, Subresource::Status, mutate)
            .await
            .map_err(|e| e.message)?;
        Ok(Next::Done)
    }

    /// The kubelet's end of a graceful deletion: the containers are stopped, the pod
    /// deleted with no grace period left.
    async fn stop(&self, pod: &Value) -> Result<Next, String> {
        if pod.pointer("/metadata/deletionGracePeriodSeconds") == Some(&json!(0)) {
            // Only its finalizers hold it now.
            return Ok(Next::Done);
        }
        let options = DeleteOptions {
            grace_period_seconds: Some(0),
            ..DeleteOptions::default()
        };
        self.api
            .delete(&self.pods, pod, options)
            .await
            .map_err(|e| e.message)?;
        Ok(Next::Done)
    }
}

/// A condition of kwok's stages.
fn condition(kind: &str, status: &str, now: &str) -> Value {
    json!({"type": kind, "status": status, "lastProbeTime": null, "lastTransitionTime": now})
}

/// The conditions of `current` with `next` put in place (others, such as
/// `PodScheduled`, kept).
fn merge_conditions(current: &Value, next: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = current
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| !next.iter().any(|n| n["type"] == c["type"]))
        .cloned()
        .collect();
    out.extend(next);
    out
}

fn names_and_images(pod: &Value, field: &str) -> Vec<(String, String)> {
    pod.pointer(&format!("/spec/{field}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            (
                str_at(c, "/name").to_string(),
                str_at(c, "/image").to_string(),
            )
        })
        .collect()
}

/// kwok's `pod-ready`: Running, every container running and ready, init containers
/// completed.
pub fn running_status(pod: &Value, host_ip: &str, pod_ip: &str, now: &str) -> Value {
    let uid = str_at(pod, "/metadata/uid");
    let mut conditions = vec![
        condition("PodReadyToStartContainers", "True", now),
        condition("Initialized", "True", now),
        condition("Ready", "True", now),
        condition("ContainersReady", "True", now),
    ];
    for gate in pod
        .pointer("/spec/readinessGates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(kind) = gate["conditionType"].as_str() {
            conditions.push(condition(kind, "True", now));
        }
    }
    let containers: Vec<Value> = names_and_images(pod, "containers")
        .into_iter()
        .map(|(name, image)| {
            json!({"name": name, "image": image, "imageID": "",
                   "containerID": format!("kwok://{uid}-{name}"),
                   "ready": true, "started": true, "restartCount": 0,
                   "state": {"running": {"startedAt": now}}})
        })
        .collect();
    let init: Vec<Value> = names_and_images(pod, "initContainers")
        .into_iter()
        .map(|(name, image)| {
            json!({"name": name, "image": image, "imageID": "",
                   "containerID": format!("kwok://{uid}-{name}"),
                   "ready": true, "restartCount": 0,
                   "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                            "startedAt": now, "finishedAt": now}}})
        })
        .collect();
    let mut status = pod
        .get("status")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(Map::new);
    status.insert("phase".into(), json!("Running"));
    status.insert(
        "conditions".into(),
        json!(merge_conditions(pod, conditions)),
    );
    status.insert("containerStatuses".into(), json!(containers));
    if !init.is_empty() {
        status.insert("initContainerStatuses".into(), json!(init));
    }
    status.insert("hostIP".into(), json!(host_ip));
    status.insert("hostIPs".into(), json!([{"ip": host_ip}]));
    status.insert("podIP".into(), json!(pod_ip));
    status.insert("podIPs".into(), json!([{"ip": pod_ip}]));
    status.insert("qosClass".into(), json!(qos_class(pod)));
    status.entry("startTime").or_insert_with(|| json!(now));
    Value::Object(status)
}

/// kwok's `pod-complete`: Succeeded, every container terminated with exit code 0.
pub fn succeeded_status(pod: &Value, now: &str) -> Value {
    let started = str_at(pod, "/status/startTime").to_string();
    let containers: Vec<Value> = names_and_images(pod, "containers")
        .into_iter()
        .map(|(name, image)| {
            json!({"name": name, "image": image, "imageID": "",
                   "containerID": format!("kwok://{}-{name}", str_at(pod, "/metadata/uid")),
                   "ready": false, "started": false, "restartCount": 0,
                   "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                            "startedAt": started, "finishedAt": now}}})
        })
        .collect();
    let completed = |kind: &str| {
        json!({"type": kind, "status": "False", "reason": "PodCompleted",
               "lastProbeTime": null, "lastTransitionTime": now})
    };
    let conditions = vec![
        condition("PodReadyToStartContainers", "False", now),
        completed("Ready"),
        completed("ContainersReady"),
    ];
    let mut status = pod
        .get("status")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(Map::new);
    status.insert("phase".into(), json!("Succeeded"));
    status.insert(
        "conditions".into(),
        json!(merge_conditions(pod, conditions)),
    );
    status.insert("containerStatuses".into(), json!(containers));
    Value::Object(status)
}

/// `GetPodQOS`: Guaranteed when every container's requests equal its limits for cpu
/// and memory, BestEffort when none has any, Burstable otherwise.
fn qos_class(pod: &Value) -> &'static str {
    let containers: Vec<&Value> = ["containers", "initContainers"]
        .iter()
        .filter_map(|f| pod.pointer(&format!("/spec/{f}")).and_then(Value::as_array))
        .flatten()
        .collect();
    let resources = |c: &Value, kind: &str| {
        c.pointer(&format!("/resources/{kind}"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let any = containers.iter().any(|c| {
        ["requests", "limits"].iter().any(|k| {
            let r = resources(c, k);
            r.contains_key("cpu") || r.contains_key("memory")
        })
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        let (req, lim) = (resources(c, "requests"), resources(c, "limits"));
        ["cpu", "memory"]
            .iter()
            .all(|r| lim.contains_key(*r) && req.get(*r).is_none_or(|v| Some(v) == lim.get(*r)))
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
#[path = "kubelet_tests.rs"]
mod tests;
