//! The EndpointSlice controller, as kube-controller-manager's `endpointslice`: for each
//! Service with a selector, EndpointSlices labelled `kubernetes.io/service-name` and
//! `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`, owned by
//! the Service, one set per address family and per set of resolved ports, at most
//! `MAX_ENDPOINTS` endpoints each. Every listed Pod (terminating ones too) is an
//! endpoint with its address, `ready`/`serving`/`terminating` conditions, node, zone
//! and `targetRef`. With no endpoints a family keeps one empty placeholder slice.
//! Slices are updated in place where their ports match, created for the rest
//! (`generateName: SERVICE-`) and the ones left over deleted.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::member;
use super::trigger::{ANNOTATION, Tracker};
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::api::request::DeleteOptions;
use crate::controllers::cache::Informer;
use crate::controllers::client::Mutation;
use crate::controllers::workload::resources::{ENDPOINT_SLICES, NODES, PODS, SERVICES};
use crate::controllers::workload::{Api, Next, Reconciler, each_key, owners, pods, split_key};

/// The component its writes come from.
pub const COMPONENT: &str = "endpointslice-controller";
/// The value of `endpointslice.kubernetes.io/managed-by` on its slices.
pub const MANAGED_BY: &str = "endpointslice-controller.k8s.io";
/// The label naming a slice's manager.
pub const MANAGED_BY_LABEL: &str = "endpointslice.kubernetes.io/managed-by";
/// The label naming a slice's Service.
pub const SERVICE_NAME: &str = "kubernetes.io/service-name";
/// Endpoints per slice at most (`--max-endpoints-per-slice`).
pub const MAX_ENDPOINTS: usize = 100;
/// The zone label of a node, copied onto its endpoints.
const ZONE: &str = "topology.kubernetes.io/zone";

struct Controller {
    api: Api,
    services: Arc<Informer>,
    pods: Arc<Informer>,
    nodes: Arc<Informer>,
    slices: Arc<Informer>,
    triggers: Tracker,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([services, pods, nodes, slices]) =
        api.informers([SERVICES, PODS, NODES, ENDPOINT_SLICES])
    else {
        return;
    };
    let c = Arc::new(Controller {
        api: api.clone(),
        services,
        pods,
        nodes,
        slices: slices.clone(),
        triggers: Tracker::default(),
    });
    super::run(&api, &slices, service_of, each_key(c)).await;
}

/// The Service a slice this controller manages belongs to.
fn service_of(slice: &Value) -> Option<String> {
    let labels = slice.pointer("/metadata/labels")?;
    if labels[MANAGED_BY_LABEL] != MANAGED_BY {
        return None;
    }
    let svc = labels[SERVICE_NAME].as_str()?;
    Some(format!("{}/{svc}", str_at(slice, "/metadata/namespace")))
}

/// One slice to be: its family, ports and endpoints.
#[derive(Debug, PartialEq)]
pub struct Desired {
    pub address_type: String,
    pub ports: Vec<Value>,
    pub endpoints: Vec<Value>,
}

/// The endpoint of a pod for `family`, or `None` when it has no such address.
fn endpoint(
    svc: &Value,
    pod: &Value,
    family: &str,
    zone_of: &dyn Fn(&str) -> Option<String>,
) -> Option<Value> {
    let ip = member::ip(pod, Some(family))?;
    let serving = pods::is_ready(pod);
    let terminating = is_deleting(pod);
    let publish = member::publish_not_ready(svc);
    // A terminating pod is never ready unless the Service publishes unready ones.
    let ready = publish || (serving && !terminating);
    let mut ep = json!({
        "addresses": [ip],
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
    });
    if let Some(zone) = member::describe(&mut ep, svc, pod).and_then(zone_of) {
        ep["zone"] = json!(zone);
    }
    Some(ep)
}

/// The slices the Service's pods make: per family and set of ports, in chunks of
/// [`MAX_ENDPOINTS`]; one empty slice for a family without endpoints.
pub fn desired(
    svc: &Value,
    selected: &[Arc<Value>],
    zone_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<Desired> {
    let mut pods: Vec<&Arc<Value>> = selected
        .iter()
        .filter(|p| member::listed(p, true))
        .collect();
    pods.sort_by_key(|p| str_at(p, "/metadata/name").to_string());
    let mut out = Vec::new();
    for family in member::families(svc) {
        let mut groups: BTreeMap<String, (Vec<Value>, Vec<Value>)> = BTreeMap::new();
        for pod in &pods {
            let Some(ep) = endpoint(svc, pod, &family, zone_of) else {
                continue;
            };
            let ports = member::ports(svc, pod);
            let group = groups
                .entry(Value::Array(ports.clone()).to_string())
                .or_insert((ports, Vec::new()));
            group.1.push(ep);
        }
        if groups.is_empty() {
            out.push(Desired {
                address_type: family.clone(),
                ports: Vec::new(),
                endpoints: Vec::new(),
            });
        }
        for (_, (ports, endpoints)) in groups {
            for chunk in endpoints.chunks(MAX_ENDPOINTS) {
                out.push(Desired {
                    address_type: family.clone(),
                    ports: ports.clone(),
                    endpoints: chunk.to_vec(),
                });
            }
        }
    }
    out
}

/// The labels of the Service's slices.
pub fn labels(svc: &Value) -> Map<String, Value> {
    let mut labels = member::labels(svc);
    labels.insert(SERVICE_NAME.into(), json!(str_at(svc, "/metadata/name")));
    labels.insert(MANAGED_BY_LABEL.into(), json!(MANAGED_BY));
    labels
}

fn array(v: &Value, field: &str) -> Vec<Value> {
    v.get(field)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Whether an existing slice already is `want` (with these labels).
fn matches(slice: &Value, want: &Desired, labels: &Map<String, Value>) -> bool {
    str_at(slice, "/addressType") == want.address_type
        && array(slice, "ports") == want.ports
        && array(slice, "endpoints") == want.endpoints
        && slice.pointer("/metadata/labels").and_then(Value::as_object) == Some(labels)
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let (ns, name) = split_key(key);
        let Some(svc) = self.services.get(ns, name) else {
            // Its slices go with it (they are owned by it).
            self.triggers.forget(key);
            return Ok(Next::Done);
        };
        if !super::managed(&svc) || is_deleting(&svc) {
            return Ok(Next::Done);
        }
        let uid = str_at(&svc, "/metadata/uid");
        let selected = super::selected(&svc, &self.pods);
        let trigger = self.triggers.compute(key, &svc, &selected);
        let zone_of = |node: &str| {
            self.nodes.get("", node).and_then(|n| {
                n.pointer("/metadata/labels")
                    .and_then(|l| l[ZONE].as_str())
                    .map(str::to_string)
            })
        };
        let want = desired(&svc, &selected, &zone_of);
        let labels = labels(&svc);
        let mut existing: Vec<Arc<Value>> = self
            .slices
            .list(Some(ns))
            .into_iter()
            .filter(|s| service_of(s).as_deref() == Some(key) && !is_deleting(s))
            .collect();
        existing.sort_by_key(|s| str_at(s, "/metadata/name").to_string());
        // Slices of an earlier Service of the same name are not this one's.
        let (mut mine, stale): (Vec<_>, Vec<_>) = existing
            .into_iter()
            .partition(|s| owners::controller_ref_to(s, uid));
        let mut failure = None;
        for d in &want {
            if let Some(i) = mine.iter().position(|s| matches(s, d, &labels)) {
                mine.remove(i);
                continue;
            }
            let reuse = mine.iter().position(|s| {
                str_at(s, "/addressType") == d.address_type && array(s, "ports") == d.ports
            });
            let result = match reuse {
                Some(i) => {
                    let slice = mine.remove(i);
                    self.update(&slice, d, &labels, trigger.as_deref()).await
                }
                None => self.create(&svc, d, &labels, trigger.as_deref()).await,
            };
            if let Err(e) = result {
                failure.get_or_insert(e);
            }
        }
        for slice in mine.iter().chain(stale.iter()) {
            if let Err(e) = self
                .api
                .delete(&self.slices, slice, DeleteOptions::default())
                .await
            {
                failure.get_or_insert(e.message);
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(Next::Done),
        }
    }
}

impl Controller {
    fn shape(
        base: &Value,
        d: &Desired,
        labels: &Map<String, Value>,
        trigger: Option<&str>,
    ) -> Value {
        let mut slice = base.clone();
        slice["addressType"] = json!(d.address_type);
        slice["endpoints"] = Value::Array(d.endpoints.clone());
        slice["ports"] = Value::Array(d.ports.clone());
        let meta = crate::api::object::meta_mut(&mut slice);
        meta.insert("labels".into(), Value::Object(labels.clone()));
        if let Some(t) = trigger {
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            annotations[ANNOTATION] = json!(t);
        }
        slice
    }

    async fn create(
        &self,
        svc: &Value,
        d: &Desired,
        labels: &Map<String, Value>,
        trigger: Option<&str>,
    ) -> Result<(), String> {
        let ns = str_at(svc, "/metadata/namespace");
        let fresh = json!({
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "generateName": format!("{}-", str_at(svc, "/metadata/name")),
                "namespace": ns,
                "ownerReferences": [owners::new_controller_ref(svc)],
            },
        });
        match self
            .api
            .create(&self.slices, ns, Self::shape(&fresh, d, labels, trigger))
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if e.message.contains("because it is being terminated") => Ok(()),
            Err(e) => Err(e.message),
        }
    }

    async fn update(
        &self,
        slice: &Value,
        d: &Desired,
        labels: &Map<String, Value>,
        trigger: Option<&str>,
    ) -> Result<(), String> {
        let uid = slice["metadata"]["uid"].clone();
        let mutate = |current: &Value| {
            if current["metadata"]["uid"] != uid {
                return Mutation::Keep;
            }
            Mutation::Write(Self::shape(current, d, labels, trigger))
        };
        self.api
            .update(
                &self.slices,
                str_at(slice, "/metadata/namespace"),
                str_at(slice, "/metadata/name"),
                Subresource::Main,
                mutate,
            )
            .await
            .map(|_| ())
            .map_err(|e| e.message)
    }
}
