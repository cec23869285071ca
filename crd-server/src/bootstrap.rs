//! What kube-apiserver's bootstrap controller keeps in a cluster: the service ranges
//! (the `kubernetes` ServiceCIDR, the node port range) and the `kubernetes` Service in
//! `default`, with the first address of the range and port 443 named `https` onto the
//! server's own port, and its Endpoints and EndpointSlice naming the server; the
//! system PriorityClasses.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use serde_json::{Value, json};

use crate::api::kinds::builtin::core::service::alloc::{self, Ranges};
use crate::api::kinds::builtin::scheduling::priority_classes::SYSTEM_PRIORITY_CLASSES;
use crate::api::kinds::{Resource, Subresource};
use crate::api::request::WriteOptions;
use crate::api::state::Shared;
use crate::api::storage::{self, Target, WriteError};
use crate::api::write::{self, Tracking, Update};
use crate::config::StartError;

/// The `extension-apiserver-authentication` ConfigMap in `kube-system` (what
/// kube-apiserver's cluster-authentication-trust controller keeps): how extension API
/// servers recognize this server's proxy and its clients. Its data replaces what is
/// stored.
pub async fn authentication_trust(
    shared: &Shared,
    data: serde_json::Map<String, Value>,
    opts: &WriteOptions,
) -> Result<(), StartError> {
    let cm = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "extension-apiserver-authentication", "namespace": "kube-system"},
        "data": data,
    });
    ensure(shared, "", "configmaps", cm, opts, &["/data"]).await
}

/// Stores the ranges and makes sure the `kubernetes` Service and its endpoints exist
/// and point at `addr`.
pub async fn services(
    shared: &Shared,
    ranges: &Ranges,
    addr: SocketAddr,
    opts: &WriteOptions,
) -> Result<(), StartError> {
    alloc::install(shared.store.as_ref(), ranges).await?;
    let port = addr.port();
    let ip = match addr.ip() {
        ip if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        ip => ip,
    };
    let labels = json!({"component": "apiserver", "provider": "kubernetes"});
    let service = json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default", "labels": labels},
        "spec": {
            "type": "ClusterIP",
            "clusterIP": ranges.cidr.first().to_string(),
            "sessionAffinity": "None",
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}],
        },
    });
    // Kept as it is but for the ports, which follow the server (as the controller
    // reconciles them).
    ensure(shared, "", "services", service, opts, &["/spec/ports"]).await?;
    let family = if ip.is_ipv4() { "IPv4" } else { "IPv6" };
    let endpoints = json!({
        "apiVersion": "v1", "kind": "Endpoints",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
        "subsets": [{"addresses": [{"ip": ip.to_string()}],
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}],
    });
    ensure(shared, "", "endpoints", endpoints, opts, &["/subsets"]).await?;
    let slice = json!({
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"kubernetes.io/service-name": "kubernetes"}},
        "addressType": family,
        "endpoints": [{"addresses": [ip.to_string()], "conditions": {"ready": true}}],
        "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
    });
    ensure(
        shared,
        "discovery.k8s.io",
        "endpointslices",
        slice,
        opts,
        &["/endpoints", "/ports"],
    )
    .await?;
    priority_classes(shared, opts).await
}

/// The system PriorityClasses (the scheduling post-start hook's), created when missing.
async fn priority_classes(shared: &Shared, opts: &WriteOptions) -> Result<(), StartError> {
    let res = shared
        .registry
        .resolve("scheduling.k8s.io", "v1", "priorityclasses")
        .ok_or_else(|| StartError::Config("the registry has no priorityclasses".into()))?;
    for (name, value, description) in SYSTEM_PRIORITY_CLASSES {
        let pc = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "description": description});
        create_missing(shared, &res, pc, opts, &format!("PriorityClass {name}")).await?;
    }
    Ok(())
}

/// Creates the cluster-scoped `obj` the server seeds (`what` names it in the start's
/// error); one that exists, or that another server creates meanwhile, is kept.
pub(crate) async fn create_missing(
    shared: &Shared,
    res: &Resource,
    obj: Value,
    opts: &WriteOptions,
    what: &str,
) -> Result<(), StartError> {
    let tracking = Tracking::Update(&opts.manager);
    match write::create(shared, res, None, obj, opts, tracking).await {
        Ok(_) | Err(WriteError::Raced(_)) => Ok(()),
        Err(WriteError::Failed(e)) => Err(StartError::Config(format!(
            "cannot create {what}: {}",
            e.message
        ))),
    }
}

/// Creates `obj`, or brings the parts at `pointers` of the stored one to its values.
/// An existing object is read first (as the bootstrap controller does): creating it
/// again would allocate its cluster IP again.
async fn ensure(
    shared: &Shared,
    group: &str,
    resource: &str,
    obj: Value,
    opts: &WriteOptions,
    pointers: &[&str],
) -> Result<(), StartError> {
    let res = shared
        .registry
        .resolve(group, "v1", resource)
        .ok_or_else(|| StartError::Config(format!("the registry has no {resource}")))?;
    let ns = obj
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("default")
        .to_string();
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let failed =
        |e: String| StartError::Config(format!("cannot create {resource} {ns}/{name}: {e}"));
    let target = Target {
        res: &res,
        ns: Some(&ns),
        name: &name,
    };
    let exists = |shared| async move {
        storage::find(shared, target)
            .await
            .map(|found| found.is_some())
            .map_err(|e| failed(e.message))
    };
    if !exists(shared).await? {
        let created = write::create(
            shared,
            &res,
            Some(&ns),
            obj.clone(),
            opts,
            Tracking::Update(&opts.manager),
        )
        .await;
        match created {
            Ok(_) => return Ok(()),
            // Another replica starting at the same time created it first.
            Err(e) if exists(shared).await? => drop(e),
            Err(e) => return Err(failed(e.into_api().message)),
        }
    }
    let u = Update {
        shared,
        target,
        sub: Subresource::Main,
        opts,
        tracking: Tracking::Update(&opts.manager),
    };
    write::guaranteed_update(&u, None, |current| {
        let mut next = current.obj.clone();
        for p in pointers {
            if let (Some(slot), Some(v)) = (next.pointer_mut(p), obj.pointer(p)) {
                *slot = v.clone();
            }
        }
        Ok(next)
    })
    .await
    .map(|_| ())
    .map_err(|e| failed(e.message))
}
