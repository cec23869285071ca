//! Simulated nodes, as kwok plays them for a cluster without machines: the
//! `--nodes` nodes created at start (`kwok-node-0`, …) and every Node created with
//! kwok's annotation `kwok.x-k8s.io/node: fake` get kwok's node status (capacity,
//! `Ready` and the pressure conditions, addresses, node info) and a Lease in
//! `kube-node-lease` renewed as a kubelet renews it; their Pods are run by the
//! simulated kubelet ([`kubelet`]) through kwok's Stages ([`lifecycle`]; the Stage
//! kind is served through kwok's CRD, [`stage_crd`]). The node IPAM controller ([`ipam`]) gives each
//! node a `podCIDR` out of `--cluster-cidr`.

pub mod cidr;
mod ipam;
mod kubelet;
mod lifecycle;
mod stage_crd;

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

pub use ipam::ipam;

use super::AbortOnDrop;
use super::cache::{Event, Informer};
use super::client::Mutation;
use super::queue::Queue;
use super::workload::resources::{LEASES, NODES, PODS};
use super::workload::{Api, MAX_RETRY, Next, Reconciler, each_key, synced, work};
use crate::api::kinds::Subresource;
use crate::api::object::str_at;

/// The component the simulated kubelets write as.
pub const COMPONENT: &str = "kwok-controller";
/// kwok's annotation of the nodes it simulates.
pub const KWOK_ANNOTATION: &str = "kwok.x-k8s.io/node";
/// The kubelet's Lease duration (`nodeLeaseDurationSeconds`).
const LEASE_SECONDS: i64 = 40;
/// How often the Leases are renewed (a quarter of their duration, as the kubelet).
const RENEW: Duration = Duration::from_secs(10);
/// The range the simulated nodes' InternalIPs come from (kind's node network).
const NODE_NETWORK: Ipv4Addr = Ipv4Addr::new(172, 18, 0, 0);

/// Whether `node` is one the simulated kubelet runs.
pub fn is_simulated(node: &Value) -> bool {
    node.pointer("/metadata/annotations")
        .and_then(|a| a.get(KWOK_ANNOTATION))
        .and_then(Value::as_str)
        == Some("fake")
}

/// Whether the node's `Ready` condition is `True`.
pub fn is_ready(node: &Value) -> bool {
    node.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// The node `--nodes` creates as number `index`, labelled as kwok's `create-node`.
fn new_node(index: u32) -> Value {
    let name = format!("kwok-node-{index}");
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/role": "agent",
                "node-role.kubernetes.io/agent": "",
                "type": "kwok",
            },
            "annotations": {
                KWOK_ANNOTATION: "fake",
                "node.alpha.kubernetes.io/ttl": "0",
            },
        },
        "spec": {},
    })
}

/// Runs the simulated nodes and their kubelet until aborted.
pub async fn kwok(api: Api) {
    let Some([nodes, leases, pods]) = api.informers([NODES, LEASES, PODS]) else {
        return;
    };
    // The cluster's making: its system namespace and nodes (kwokctl creates them as
    // the admin), then the Stage CRD (kwok's manifests), not the kwok controller's role.
    let bootstrap = api.as_bootstrap();
    ensure_lease_namespace(&bootstrap).await;
    for i in 0..api.workloads.nodes {
        // An existing node (a restart over a durable store) is kept as it is.
        let _ = bootstrap.create(&nodes, "", new_node(i)).await;
    }
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    nodes.subscribe(Arc::new(move |e: &Event| {
        if e.new.as_deref().is_some_and(is_simulated) {
            q.add(e.key.clone());
        }
    }));
    synced(&[&nodes, &leases]).await;
    let heartbeat = tokio::spawn(heartbeat(api.clone(), nodes.clone(), leases.clone()));
    let _stop_heartbeat = AbortOnDrop(heartbeat.abort_handle());
    let stages = stage_crd::install(&bootstrap).await;
    let kubelet = tokio::spawn(kubelet::run(api.clone(), nodes.clone(), pods, stages));
    let _stop_kubelet = AbortOnDrop(kubelet.abort_handle());
    let c = Arc::new(Nodes { api, nodes, leases });
    work(queue, 1, each_key(c)).await;
}

/// kube-apiserver's system namespaces controller creates `kube-node-lease`.
async fn ensure_lease_namespace(api: &Api) {
    if let Ok(namespaces) = api.informer("", "namespaces") {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "kube-node-lease"}});
        let _ = api.create(&namespaces, "", ns).await;
    }
}

/// Renews every simulated node's Lease each [`RENEW`].
async fn heartbeat(api: Api, nodes: Arc<Informer>, leases: Arc<Informer>) {
    loop {
        tokio::time::sleep(RENEW).await;
        for node in nodes.list(None).into_iter().filter(|n| is_simulated(n)) {
            let _ = renew_lease(&api, &leases, &node).await;
        }
    }
}

/// Creates or renews the node's Lease in `kube-node-lease`.
async fn renew_lease(api: &Api, leases: &Informer, node: &Value) -> Result<(), String> {
    let name = str_at(node, "/metadata/name");
    let renew = api
        .clock
        .now()
        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let mutate = |current: &Value| {
        let mut next = current.clone();
        next["spec"]["renewTime"] = json!(renew);
        next["spec"]["holderIdentity"] = json!(name);
        next["spec"]["leaseDurationSeconds"] = json!(LEASE_SECONDS);
        Mutation::Write(next)
    };
    let renewed = api
        .update(leases, "kube-node-lease", name, Subresource::Main, mutate)
        .await
        .map_err(|e| e.message)?;
    if renewed.is_some() {
        return Ok(());
    }
    let lease = json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": "kube-node-lease",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                  "uid": str_at(node, "/metadata/uid")}],
        },
        "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_SECONDS,
                 "renewTime": renew},
    });
    match api.create(leases, "kube-node-lease", lease).await {
        Ok(_) => Ok(()),
        Err(e) if e.reason == "AlreadyExists" => Ok(()),
        Err(e) => Err(e.message),
    }
}

struct Nodes {
    api: Api,
    nodes: Arc<Informer>,
    leases: Arc<Informer>,
}

impl Reconciler for Nodes {
    /// Gives a simulated node kwok's status (once) and its Lease.
    async fn sync(&self, name: &str) -> Result<Next, String> {
        let Some(node) = self.nodes.get("", name) else {
            return Ok(Next::Done);
        };
        if !is_simulated(&node) {
            return Ok(Next::Done);
        }
        if self.leases.get("kube-node-lease", name).is_none() {
            renew_lease(&self.api, &self.leases, &node).await?;
        }
        if initialized(&node) {
            return Ok(Next::Done);
        }
        let ip = self.free_ip(name);
        let now = self.api.clock.timestamp();
        let mutate = |current: &Value| {
            if initialized(current) {
                return Mutation::Keep;
            }
            let mut next = current.clone();
            next["status"] = node_status(current, &ip, &now);
            Mutation::Write(next)
        };
        self.api
            .update(&self.nodes, "", name, Subresource::Status, mutate)
            .await
            .map_err(|e| e.message)?;
        Ok(Next::Done)
    }
}

impl Nodes {
    /// The lowest address of [`NODE_NETWORK`] no other node has.
    fn free_ip(&self, name: &str) -> String {
        let taken: std::collections::HashSet<String> = self
            .nodes
            .list(None)
            .iter()
            .filter(|n| str_at(n, "/metadata/name") != name)
            .filter_map(|n| internal_ip(n).map(str::to_string))
            .collect();
        let base = u32::from(NODE_NETWORK);
        (2..65_534u32)
            .map(|i| Ipv4Addr::from(base + i).to_string())
            .find(|ip| !taken.contains(ip))
            .unwrap_or_else(|| Ipv4Addr::from(base + 1).to_string())
    }
}

/// The node's `InternalIP` address.
pub fn internal_ip(node: &Value) -> Option<&str> {
    node.pointer("/status/addresses")
        .and_then(Value::as_array)?
        .iter()
        .find(|a| a["type"] == "InternalIP")
        .and_then(|a| a["address"].as_str())
}

/// Whether kwok's node status is in place (Ready, with capacity).
fn initialized(node: &Value) -> bool {
    is_ready(node) && node.pointer("/status/allocatable").is_some() && internal_ip(node).is_some()
}

/// kwok's `node-initialize` status: what the node has of capacity, allocatable and
/// addresses kept, kwok's defaults otherwise.
fn node_status(node: &Value, ip: &str, now: &str) -> Value {
    let name = str_at(node, "/metadata/name");
    let status = node.get("status").cloned().unwrap_or_else(|| json!({}));
    let defaults = json!({"cpu": "1k", "memory": "1Ti", "pods": "1M"});
    let keep = |f: &str, d: Value| status.get(f).filter(|v| !v.is_null()).cloned().unwrap_or(d);
    let addresses = keep(
        "addresses",
        json!([{"address": ip, "type": "InternalIP"}, {"address": name, "type": "Hostname"}]),
    );
    let condition = |kind: &str, state: &str, reason: &str, message: &str| {
        json!({"type": kind, "status": state, "reason": reason, "message": message,
               "lastHeartbeatTime": now, "lastTransitionTime": now})
    };
    json!({
        "addresses": addresses,
        "allocatable": keep("allocatable", defaults.clone()),
        "capacity": keep("capacity", defaults),
        "conditions": [
            condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                      "kubelet has sufficient memory available"),
            condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                      "kubelet has no disk pressure"),
            condition("PIDPressure", "False", "KubeletHasSufficientPID",
                      "kubelet has sufficient PID available"),
            condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "architecture": "amd64",
            "bootID": "",
            "containerRuntimeVersion": "kwok",
            "kernelVersion": "",
            "kubeProxyVersion": "fake",
            "kubeletVersion": "fake",
            "machineID": "",
            "operatingSystem": "linux",
            "osImage": "",
            "systemUUID": "",
        },
        "phase": "Running",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_nodes_are_simulated_and_get_kwoks_status() {
        let node = new_node(2);
        assert_eq!(node["metadata"]["name"], "kwok-node-2");
        assert!(is_simulated(&node));
        assert!(!initialized(&node));
        let mut ready = node.clone();
        ready["status"] = node_status(&node, "172.18.0.4", "2024-01-01T00:00:00Z");
        assert!(initialized(&ready));
        assert_eq!(internal_ip(&ready), Some("172.18.0.4"));
        assert_eq!(ready["status"]["allocatable"]["pods"], "1M");
        // Capacity a user gave the node is kept.
        let mut small = node.clone();
        small["status"] = json!({"allocatable": {"cpu": "2", "pods": "3"}});
        let s = node_status(&small, "172.18.0.5", "t");
        assert_eq!(s["allocatable"], json!({"cpu": "2", "pods": "3"}));
        assert!(!is_simulated(&json!({"metadata": {"name": "real"}})));
    }
}
