//! The two controllers that publish where a Service's Pods are, as
//! kube-controller-manager's `endpoint` (the legacy `Endpoints` object, [`subsets`])
//! and `endpointslice` ([`slices`]). Both follow the Services that have a selector
//! (ExternalName Services and Services without one are left to their users), the Pods
//! those select and their own objects; what a Pod contributes — its address, node,
//! readiness and the ports the Service's target ports resolve to on it — is read here
//! ([`member`]), as `pkg/controller/util/endpoint` does.

pub mod member;
pub mod slices;
pub mod subsets;
mod trigger;

#[cfg(test)]
mod member_tests;

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::cache::{Event, Informer, key_of};
use super::queue::Queue;
use super::workload::{Api, MAX_RETRY, Next, synced, work};
use crate::api::object::str_at;

/// Passes running at once (`--concurrent-endpoint-syncs`, `--concurrent-service-endpoint-syncs`).
const WORKERS: usize = 5;

/// Whether the Service is one these controllers publish endpoints for: it has a
/// selector and is not of type ExternalName.
pub fn managed(svc: &Value) -> bool {
    svc.pointer("/spec/selector")
        .and_then(Value::as_object)
        .is_some()
        && str_at(svc, "/spec/type") != "ExternalName"
}

/// Whether a Service selector (a plain label map) selects these labels.
pub fn selects(selector: &Map<String, Value>, labels: Option<&Map<String, Value>>) -> bool {
    selector
        .iter()
        .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
}

/// The Pods of the Service's namespace its selector picks.
pub fn selected(svc: &Value, pods: &Informer) -> Vec<Arc<Value>> {
    let Some(selector) = svc.pointer("/spec/selector").and_then(Value::as_object) else {
        return Vec::new();
    };
    let ns = str_at(svc, "/metadata/namespace");
    pods.list(Some(ns))
        .into_iter()
        .filter(|p| {
            selects(
                selector,
                p.pointer("/metadata/labels").and_then(Value::as_object),
            )
        })
        .collect()
}

/// The Services of the pod's namespace that select it (before or after the change).
fn services_of(services: &Informer, e: &Event) -> Vec<String> {
    let mut keys = Vec::new();
    for pod in [e.old.as_deref(), e.new.as_deref()].into_iter().flatten() {
        let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
        for svc in services.list(Some(str_at(pod, "/metadata/namespace"))) {
            let Some(selector) = svc.pointer("/spec/selector").and_then(Value::as_object) else {
                continue;
            };
            if managed(&svc) && selects(selector, labels) {
                keys.push(key_of(&svc));
            }
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// Follows Services, Pods and the controller's own objects (`owned`, whose changes
/// name their Service through `service_of`) and runs `sync` over the key of each
/// Service concerned.
pub async fn run<F, Fut>(
    api: &Api,
    owned: &Arc<Informer>,
    service_of: fn(&Value) -> Option<String>,
    sync: F,
) where
    F: Fn(String) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Next, String>> + Send,
{
    let (Ok(services), Ok(pods)) = (api.informer("", "services"), api.informer("", "pods")) else {
        return;
    };
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    services.subscribe(Arc::new(move |e: &Event| q.add(e.key.clone())));
    let (q, by_selector) = (queue.clone(), services.clone());
    pods.subscribe(Arc::new(move |e: &Event| {
        for key in services_of(&by_selector, e) {
            q.add(key);
        }
    }));
    // A change made to an object by someone else is undone (only while its Service
    // exists: an Endpoints object of no Service is its user's).
    let (q, known) = (queue.clone(), services.clone());
    owned.subscribe(Arc::new(move |e: &Event| {
        if let Some(key) = service_of(e.object()) {
            let (ns, name) = super::workload::split_key(&key);
            if known.get(ns, name).is_some_and(|s| managed(&s)) {
                q.add(key);
            }
        }
    }));
    synced(&[&services, &pods, owned]).await;
    work(queue, WORKERS, sync).await;
}
