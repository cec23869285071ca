//! How the Pod subresources that are actions rather than objects are served (the
//! Pod's own rules for them are [`subresources`]). `binding` and `eviction`
//! are served as the server serves them (a node assigned; the pod deleted when no
//! disruption budget is in the way). `log`, `exec`, `attach`, `portforward` and
//! `proxy` need a kubelet or the pod network, which this server has none of: they
//! answer what kube-apiserver answers before it would reach one (a pod without a node:
//! an empty log, `does not have a host assigned`; a node that does not exist: its 404;
//! no pod IP: `address not allowed`) and otherwise that the kubelet cannot be reached.

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

use super::{Reply, Scope};
use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::core::pod::{eviction, subresources};
use crate::api::object::str_at;
use crate::api::request::DeleteOptions;
use crate::api::request::media::{parse_body, read_body};
use crate::api::status::ApiError;
use crate::api::{storage, write};

fn param<'a>(scope: &'a Scope<'_>, key: &str) -> Option<&'a str> {
    scope
        .req
        .query
        .extra
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// `GetConnectionInfo` for the pod's node: the node must exist, and its kubelet is
/// never reachable from here.
async fn kubelet(scope: &Scope<'_>, node: &str) -> ApiError {
    let nodes = subresources::core("nodes", "Node");
    match scope
        .shared
        .store
        .get(&format!("/registry/minions/{node}"))
        .await
    {
        Ok(None) => ApiError::not_found(&nodes, node),
        Err(e) => ApiError::from_store(&nodes, node, e),
        Ok(Some(_)) => ApiError::unavailable(format!(
            "error dialing backend: the kubelet of node {node:?} is not reachable from crd-server"
        )),
    }
}

/// GET/POST of `log`, `exec`, `attach`, `portforward` and `proxy`.
pub async fn connect(scope: &Scope<'_>) -> Result<Response, ApiError> {
    let pod = storage::get(scope.shared, scope.target()).await?.obj;
    let name = str_at(&pod, "/metadata/name").to_string();
    let node = str_at(&pod, "/spec/nodeName").to_string();
    match scope.sub {
        Subresource::Log => {
            let name = scope.req.info.name.as_deref().unwrap_or("");
            subresources::log_options(|key| param(scope, key), name)?;
            subresources::container(&pod, param(scope, "container"))?;
            if node.is_empty() {
                // No node, no location: the server streams nothing.
                return Ok(StatusCode::NO_CONTENT.into_response());
            }
            Err(kubelet(scope, &node).await)
        }
        Subresource::Exec | Subresource::Attach | Subresource::PortForward => {
            if scope.sub != Subresource::PortForward {
                subresources::container(&pod, param(scope, "container"))?;
            }
            if node.is_empty() {
                return Err(ApiError::bad_request(format!(
                    "pod {name} does not have a host assigned"
                )));
            }
            Err(kubelet(scope, &node).await)
        }
        _ => {
            let ip = str_at(&pod, "/status/podIPs/0/ip");
            let routable = ip
                .parse::<std::net::IpAddr>()
                .is_ok_and(|a| !(a.is_loopback() || a.is_unspecified() || a.is_multicast()));
            if !routable {
                return Err(ApiError::bad_request("address not allowed"));
            }
            Err(ApiError::unavailable(format!(
                "error trying to reach service: the pod network ({ip}) is not reachable from crd-server"
            )))
        }
    }
}

/// The success `Status` of an action subresource (201).
fn created() -> Reply {
    Reply::new(
        StatusCode::CREATED,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
        Vec::new(),
    )
}

async fn body_json(scope: &Scope<'_>, body: Body) -> Result<Value, ApiError> {
    let ty = scope.req.body_type()?;
    let bytes = read_body(&scope.req.headers, body).await?;
    parse_body(&bytes, ty, "create")
}

/// POST of a Binding: the pod is assigned to the target node (`assignPod`).
pub async fn bind(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let binding = body_json(scope, body).await?;
    let node = subresources::binding_node(&binding)?;
    let t = scope.target();
    if str_at(&binding, "/metadata/name") != t.name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Binding object",
        ));
    }
    // `assignPod`: the storage layer's `GuaranteedUpdate`, read again on a conflict.
    write::storage_update(scope.shared, t, scope.req.query.dry_run, |pod| {
        subresources::assign(pod, &binding, &node, t.name)
    })
    .await?;
    Ok(created())
}

/// POST of an Eviction: a pod that is pending, finished or being deleted, or that no
/// PodDisruptionBudget covers, is deleted; a covered one takes a disruption from its
/// budget first ([`eviction::take`], refused with 429 when none is left).
pub async fn evict(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let eviction = body_json(scope, body).await?;
    let t = scope.target();
    if str_at(&eviction, "/metadata/name") != t.name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let pod = storage::get(scope.shared, t).await?.obj;
    if !subresources::ignores_budgets(&pod) {
        let budgets = covering_budgets(scope, &pod).await?;
        subresources::check_budgets(&budgets)?;
        if let [pdb] = budgets.as_slice() {
            take_disruption(scope, pdb, &pod).await?;
        }
    }
    let bytes =
        serde_json::to_vec(eviction.get("deleteOptions").unwrap_or(&json!({}))).unwrap_or_default();
    let mut options = DeleteOptions::parse(&bytes, &scope.req.query)?;
    options.dry_run |= scope.req.query.dry_run;
    write::delete::delete(scope.shared, t, &options).await?;
    Ok(created())
}

/// Takes one disruption from the pod's budget (written back unless a dry run).
async fn take_disruption(scope: &Scope<'_>, pdb: &Value, pod: &Value) -> Result<(), ApiError> {
    let Some(res) = scope
        .shared
        .registry
        .resolve("policy", "v1", "poddisruptionbudgets")
    else {
        return Ok(());
    };
    let t = storage::Target {
        res: &res,
        ns: scope.ns(),
        name: str_at(pdb, "/metadata/name"),
    };
    let ready = pod
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        });
    if eviction::unhealthy_may_go(pdb, ready) {
        return Ok(());
    }
    let now = crate::api::object::now();
    write::storage_update(scope.shared, t, scope.req.query.dry_run, |current| {
        eviction::take(current, pod, &now)
    })
    .await
    .map(|_| ())
}

/// The stored PodDisruptionBudgets of the pod's namespace whose selector matches it.
async fn covering_budgets(scope: &Scope<'_>, pod: &Value) -> Result<Vec<Value>, ApiError> {
    let ns = scope.ns().unwrap_or("");
    let listed = scope
        .shared
        .store
        .list(
            &format!("/registry/poddisruptionbudgets/{ns}/"),
            crate::store::ListOptions::default(),
        )
        .await
        .map_err(|e| {
            ApiError::from_store(
                &subresources::core("poddisruptionbudgets", "PodDisruptionBudget"),
                "",
                e,
            )
        })?;
    let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
    Ok(listed
        .items
        .iter()
        .filter_map(|kv| crd_runtime::__private::depth::from_json_slice::<Value>(&kv.value).ok())
        .filter(|pdb| subresources::covers(pdb, labels))
        .collect())
}
