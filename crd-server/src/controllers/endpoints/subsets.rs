//! The Endpoints controller, as kube-controller-manager's `endpoint`: one `Endpoints`
//! object per Service with a selector, named after it, whose subsets list the ready
//! Pods' addresses (`addresses`) and the others (`notReadyAddresses`) by the ports
//! their target ports resolve to, repacked so Pods with the same ports share a subset;
//! at most 1000 addresses (then `endpoints.kubernetes.io/over-capacity: truncated`).
//! It is written only when its subsets or labels change, with the time of the change
//! that triggered it; it is deleted with its Service.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::member;
use super::trigger::{ANNOTATION, Tracker};
use crate::api::kinds::Subresource;
use crate::api::request::DeleteOptions;
use crate::controllers::cache::{Informer, key_of};
use crate::controllers::client::Mutation;
use crate::controllers::workload::resources::{ENDPOINTS, PODS, SERVICES};
use crate::controllers::workload::{Api, Next, Reconciler, each_key, split_key};

/// The component its writes come from.
pub const COMPONENT: &str = "endpoint-controller";
/// The most addresses one Endpoints object holds (`maxCapacity`).
pub const MAX_CAPACITY: usize = 1000;
/// The annotation of an Endpoints object that holds fewer addresses than there are.
pub const OVER_CAPACITY: &str = "endpoints.kubernetes.io/over-capacity";

struct Controller {
    api: Api,
    services: Arc<Informer>,
    pods: Arc<Informer>,
    endpoints: Arc<Informer>,
    triggers: Tracker,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([services, pods, endpoints]) = api.informers([SERVICES, PODS, ENDPOINTS]) else {
        return;
    };
    let c = Arc::new(Controller {
        api: api.clone(),
        services,
        pods,
        endpoints: endpoints.clone(),
        triggers: Tracker::default(),
    });
    super::run(&api, &endpoints, |e| Some(key_of(e)), each_key(c)).await;
}

/// The subsets of the Service's pods: `(subsets, addresses left out)`.
pub fn subsets(svc: &Value, selected: &[Arc<Value>]) -> (Vec<Value>, usize) {
    let publish = member::publish_not_ready(svc);
    // Ports (as JSON text, sorted) -> (ready, not ready) addresses.
    let mut by_ports: BTreeMap<String, (Vec<Value>, Vec<Value>)> = BTreeMap::new();
    let mut pods: Vec<&Arc<Value>> = selected
        .iter()
        .filter(|p| member::listed(p, publish))
        .collect();
    pods.sort_by_key(|p| member::ip(p, None).unwrap_or("").to_string());
    let (mut total, mut left_out) = (0, 0);
    for pod in pods {
        let mut ports = member::ports(svc, pod);
        if ports.is_empty()
            && svc
                .pointer("/spec/ports")
                .and_then(Value::as_array)
                .is_some_and(|p| !p.is_empty())
        {
            continue;
        }
        ports.sort_by_key(|p| {
            (
                p["name"].as_str().unwrap_or("").to_string(),
                p["port"].as_i64(),
            )
        });
        let mut addr = json!({"ip": member::ip(pod, None).unwrap_or("")});
        member::describe(&mut addr, svc, pod);
        if total >= MAX_CAPACITY {
            left_out += 1;
            continue;
        }
        total += 1;
        let entry = by_ports.entry(Value::Array(ports).to_string()).or_default();
        if publish || crate::controllers::workload::pods::is_ready(pod) {
            entry.0.push(addr);
        } else {
            entry.1.push(addr);
        }
    }
    let subsets = by_ports
        .into_iter()
        .map(|(ports, (ready, not_ready))| {
            let mut s = Map::new();
            if !ready.is_empty() {
                s.insert("addresses".into(), Value::Array(ready));
            }
            if !not_ready.is_empty() {
                s.insert("notReadyAddresses".into(), Value::Array(not_ready));
            }
            let ports: Value = serde_json::from_str(&ports).unwrap_or_default();
            if ports.as_array().is_some_and(|p| !p.is_empty()) {
                s.insert("ports".into(), ports);
            }
            Value::Object(s)
        })
        .collect();
    (subsets, left_out)
}

fn subsets_of(ep: &Value) -> Vec<Value> {
    ep.get("subsets")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let (ns, name) = split_key(key);
        let current = self.endpoints.get(ns, name);
        let svc = match self.services.get(ns, name) {
            Some(svc) => svc,
            None => {
                // The Service is gone: so is its Endpoints object.
                self.triggers.forget(key);
                if let Some(ep) = current {
                    self.api
                        .delete(&self.endpoints, &ep, DeleteOptions::default())
                        .await
                        .map_err(|e| e.message)?;
                }
                return Ok(Next::Done);
            }
        };
        if !super::managed(&svc) {
            return Ok(Next::Done);
        }
        let selected = super::selected(&svc, &self.pods);
        let trigger = self.triggers.compute(key, &svc, &selected);
        let (subsets, left_out) = subsets(&svc, &selected);
        let labels = member::labels(&svc);
        let over = (left_out > 0).then_some("truncated");
        if let Some(ep) = &current {
            let same_labels = ep.pointer("/metadata/labels").and_then(Value::as_object)
                == Some(&labels)
                || (labels.is_empty() && ep.pointer("/metadata/labels").is_none());
            let same_over = ep
                .pointer(&format!(
                    "/metadata/annotations/{}",
                    OVER_CAPACITY.replace('/', "~1")
                ))
                .and_then(Value::as_str)
                == over;
            if same_labels && same_over && subsets_of(ep) == subsets {
                return Ok(Next::Done);
            }
        }
        let shape = |base: &Value| {
            let mut ep = base.clone();
            let meta = crate::api::object::meta_mut(&mut ep);
            meta.insert("labels".into(), Value::Object(labels.clone()));
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            if let Some(a) = annotations.as_object_mut() {
                match &trigger {
                    Some(t) => a.insert(ANNOTATION.into(), json!(t)),
                    None => a.remove(ANNOTATION),
                };
                match over {
                    Some(o) => a.insert(OVER_CAPACITY.into(), json!(o)),
                    None => a.remove(OVER_CAPACITY),
                };
            }
            if annotations.as_object().is_some_and(Map::is_empty) {
                meta.remove("annotations");
            }
            if subsets.is_empty() {
                ep.as_object_mut().map(|o| o.remove("subsets"));
            } else {
                ep["subsets"] = Value::Array(subsets.clone());
            }
            ep
        };
        if current.is_none() {
            let fresh = json!({
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": name, "namespace": ns},
            });
            match self.api.create(&self.endpoints, ns, shape(&fresh)).await {
                Ok(_) => return Ok(Next::Done),
                // Someone created it meanwhile: update it below.
                Err(e) if e.code == http::StatusCode::CONFLICT => {}
                Err(e) => {
                    if e.message.contains("because it is being terminated") {
                        return Ok(Next::Done);
                    }
                    return Err(e.message);
                }
            }
        }
        self.api
            .update(&self.endpoints, ns, name, Subresource::Main, |cur| {
                Mutation::Write(shape(cur))
            })
            .await
            .map_err(|e| e.message)?;
        Ok(Next::Done)
    }
}

impl Controller {}
