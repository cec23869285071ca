//! The simulated kubelet: the Pods bound to a simulated node move through kwok's
//! Stages ([`lifecycle`](super::lifecycle)) — by default kwok's `pod-ready` (Running
//! and Ready, with container statuses, a Pod IP from the node's `podCIDR` and the
//! node's IP as host IP), `pod-complete` (the Pods of a Job succeed once running) and
//! `pod-delete` (a Pod being deleted is removed once its containers are stopped: the
//! kubelet's final delete with a grace period of zero, so a Pod's finalizers still
//! hold it); `--stages` files and the server's Stage objects change that.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::COMPONENT;
use super::cidr::Cidr;
use super::lifecycle::{Lifecycle, merge_status};
use super::{internal_ip, is_simulated};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::controllers::cache::{Event, Informer, key_of};
use crate::controllers::client::Mutation;
use crate::controllers::queue::Queue;
use crate::controllers::workload::{
    Api, MAX_RETRY, Next, Reconciler, each_key, synced, work_with_clock,
};
use crate::stages::Stage;
use crate::stages::template::{Host, render};

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
    lifecycle: Lifecycle,
}

/// Runs the kubelet of every simulated node until aborted.
pub async fn run(
    api: Api,
    nodes: Arc<Informer>,
    pods: Arc<Informer>,
    stages: Option<Arc<Informer>>,
) {
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let lifecycle = Lifecycle::new(&api.workloads.stages);
    if let Some(stages) = &stages {
        lifecycle.watch(stages.clone());
        // A Stage created, changed or deleted applies to every Pod at once.
        let (q, p) = (queue.clone(), pods.clone());
        stages.subscribe(Arc::new(move |_: &Event| {
            for pod in p.list(None) {
                if !str_at(&pod, "/spec/nodeName").is_empty() {
                    q.add(key_of(&pod));
                }
            }
        }));
    }
    let c = Arc::new(Kubelet {
        api: api.clone(),
        nodes: nodes.clone(),
        pods: pods.clone(),
        addresses: Mutex::new(Addresses::default()),
        lifecycle,
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
                k.lifecycle.done(str_at(e.object(), "/metadata/uid"));
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
    synced(&[&pods, &nodes]).await;
    if let Some(stages) = &stages {
        stages.synced().await;
    }
    for pod in pods.list(None) {
        c.remember(&pod);
    }
    // A delay is counted on the server's clock: moving it brings the waiting Pods back.
    work_with_clock(&api, pods, queue, WORKERS, each_key(c)).await;
}

impl Reconciler for Kubelet {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let Some(pod) = self.pods.get_key(key) else {
            return Ok(Next::Done);
        };
        let Some(node) = self.nodes.get("", str_at(&pod, "/spec/nodeName")) else {
            return Ok(Next::Done);
        };
        if !is_simulated(&node) {
            return Ok(Next::Done);
        }
        let Some(host_ip) = internal_ip(&node).map(str::to_string) else {
            // The node's status is not in place yet: its update brings the pod back.
            return Ok(Next::Done);
        };
        let uid = str_at(&pod, "/metadata/uid").to_string();
        let Some(stage) = self.lifecycle.choose(&pod) else {
            self.lifecycle.done(&uid);
            return Ok(Next::Done);
        };
        let now = self.api.clock.now();
        let due = self.lifecycle.due_at(&stage, &pod, now);
        if due > now {
            return Ok(Next::After(self.api.clock.until(due)));
        }
        self.lifecycle.done(&uid);
        let host = PodHost {
            kubelet: self,
            pod: &pod,
            node: &node,
            host_ip: &host_ip,
            now: self.api.clock.timestamp(),
        };
        let next = self.apply(&stage, &pod, &host).await?;
        if stage.immediate_next_stage {
            // kwok's `immediateNextStage`: the next stage is looked for at once.
            return Ok(Next::After(std::time::Duration::ZERO));
        }
        Ok(next)
    }
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

    /// A stage's `next`: its Event, finalizers, delete or status.
    async fn apply(&self, stage: &Stage, pod: &Value, host: &PodHost<'_>) -> Result<Next, String> {
        let failed = |e: String| format!("Stage {:?}: {e}", stage.name);
        let next = &stage.next;
        if let Some(event) = &next.event {
            let message = render(&event.message, pod, host).map_err(failed)?;
            self.api
                .event(pod, &event.type_, &event.reason, &message, COMPONENT)
                .await;
        }
        if next.finalizers_empty
            || !next.finalizers_add.is_empty()
            || !next.finalizers_remove.is_empty()
        {
            self.write_finalizers(
                pod,
                &next.finalizers_add,
                &next.finalizers_remove,
                next.finalizers_empty,
            )
            .await?;
        }
        if next.delete {
            return self.stop(pod).await;
        }
        if let Some(template) = &next.status_template {
            let text = render(template, pod, host).map_err(failed)?;
            let source = format!("the statusTemplate of Stage {:?}", stage.name);
            let rendered = crd_runtime::parse_documents(&source, &text)
                .map_err(|e| e.to_string())?
                .into_iter()
                .next()
                .unwrap_or(Value::Null);
            if !rendered.is_object() && !rendered.is_null() {
                return Err(failed("the statusTemplate does not make a map".into()));
            }
            return self
                .write_status(pod, |current| merge_status(&current["status"], &rendered))
                .await;
        }
        Ok(Next::Done)
    }

    async fn write_finalizers(
        &self,
        pod: &Value,
        add: &[String],
        remove: &[String],
        empty: bool,
    ) -> Result<(), String> {
        let mutate = |current: &Value| {
            let mut finalizers: Vec<String> = if empty {
                Vec::new()
            } else {
                current["metadata"]["finalizers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| f.as_str().map(str::to_string))
                    .filter(|f| !remove.contains(f))
                    .collect()
            };
            for f in add {
                if !finalizers.contains(f) {
                    finalizers.push(f.clone());
                }
            }
            let mut next = current.clone();
            if finalizers.is_empty() {
                if let Some(meta) = next["metadata"].as_object_mut() {
                    meta.remove("finalizers");
                }
            } else {
                next["metadata"]["finalizers"] = json!(finalizers);
            }
            if next == *current {
                Mutation::Keep
            } else {
                Mutation::Write(next)
            }
        };
        self.api
            .update_same(&self.pods, pod, Subresource::Main, mutate)
            .await
            .map_err(|e| e.message)?;
        Ok(())
    }

    async fn write_status(
        &self,
        pod: &Value,
        status: impl Fn(&Value) -> Value,
    ) -> Result<Next, String> {
        let mutate = |current: &Value| {
            if is_deleting(current) {
                return Mutation::Keep;
            }
            let mut next = current.clone();
            next["status"] = status(current);
            if next == *current {
                return Mutation::Keep;
            }
            Mutation::Write(next)
        };
        self.api
            .update_same(&self.pods, pod, Subresource::Status, mutate)
            .await
            .map_err(|e| e.message)?;
        Ok(Next::Done)
    }

    /// The kubelet's end of a graceful deletion: the containers are stopped, the pod
    /// deleted with no grace period left (its finalizers may still hold it).
    async fn stop(&self, pod: &Value) -> Result<Next, String> {
        self.api
            .delete_now(&self.pods, pod)
            .await
            .map_err(|e| e.message)?;
        Ok(Next::Done)
    }
}

/// What a stage's template asks of the Pod's surroundings.
struct PodHost<'a> {
    kubelet: &'a Kubelet,
    pod: &'a Value,
    node: &'a Value,
    host_ip: &'a str,
    now: String,
}

impl Host for PodHost<'_> {
    fn now(&self) -> String {
        self.now.clone()
    }

    fn pod_ip(&self) -> Result<String, String> {
        if self.pod.pointer("/spec/hostNetwork") == Some(&Value::Bool(true)) {
            return Ok(self.host_ip.to_string());
        }
        self.kubelet.assign(self.pod, self.node).ok_or_else(|| {
            format!(
                "no free IP in the range of node {}",
                str_at(self.node, "/metadata/name")
            )
        })
    }

    fn node_ip(&self) -> String {
        self.host_ip.to_string()
    }

    fn node_name(&self) -> String {
        str_at(self.node, "/metadata/name").to_string()
    }

    fn qos_class(&self) -> String {
        qos_class(self.pod).to_string()
    }
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
