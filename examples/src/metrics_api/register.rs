//! Registering the server with the aggregator, as a cluster would have it: a Service
//! with port `https`, an Endpoints object pointing at this process (127.0.0.1, the
//! bound port) and the APIService `v1.metrics.example.com` with the serving CA. Each is
//! server-side applied, so registering again updates them.

use base64::Engine as _;
use k8s_openapi::api::core::v1::{Endpoints, Service};
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use kube::{Api, Client};
use serde_json::json;

use super::{GROUP, VERSION};

/// The field manager of the applied objects.
const MANAGER: &str = "metrics-apiserver";

/// Where the server is and how to trust it.
#[derive(Clone, Debug)]
pub struct Registration {
    /// The Service's namespace.
    pub namespace: String,
    /// The Service's name (its certificate must be valid for `NAME.NAMESPACE.svc`).
    pub name: String,
    /// The port the server listens on, on 127.0.0.1.
    pub port: u16,
    /// The CA of the serving certificate (PEM), the APIService's `caBundle`.
    pub ca_pem: String,
}

/// The APIService's name.
pub fn api_service_name() -> String {
    format!("{VERSION}.{GROUP}")
}

/// Applies the Service, the Endpoints and the APIService.
pub async fn register(client: &Client, r: &Registration) -> Result<(), kube::Error> {
    let params = PatchParams::apply(MANAGER).force();
    let service = json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": r.name, "namespace": r.namespace},
        "spec": {"type": "ClusterIP",
                 "ports": [{"name": "https", "port": r.port, "targetPort": r.port, "protocol": "TCP"}]},
    });
    Api::<Service>::namespaced(client.clone(), &r.namespace)
        .patch(&r.name, &params, &Patch::Apply(&service))
        .await?;
    let endpoints = json!({
        "apiVersion": "v1", "kind": "Endpoints",
        "metadata": {"name": r.name, "namespace": r.namespace},
        "subsets": [{"addresses": [{"ip": "127.0.0.1"}],
                     "ports": [{"name": "https", "port": r.port, "protocol": "TCP"}]}],
    });
    Api::<Endpoints>::namespaced(client.clone(), &r.namespace)
        .patch(&r.name, &params, &Patch::Apply(&endpoints))
        .await?;
    let gvk = GroupVersionKind::gvk("apiregistration.k8s.io", "v1", "APIService");
    let resource = ApiResource::from_gvk_with_plural(&gvk, "apiservices");
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(&r.ca_pem);
    let api_service = json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": api_service_name()},
        "spec": {
            "group": GROUP, "version": VERSION,
            "groupPriorityMinimum": 100, "versionPriority": 100,
            "service": {"namespace": r.namespace, "name": r.name, "port": r.port},
            "caBundle": ca_bundle,
        },
    });
    Api::<DynamicObject>::all_with(client.clone(), &resource)
        .patch(&api_service_name(), &params, &Patch::Apply(&api_service))
        .await?;
    Ok(())
}
