//! The Pod subresources that are actions rather than objects. `binding` and `eviction`
//! are served as the server serves them (a node assigned; the pod deleted when no
//! disruption budget is in the way). `log`, `exec`, `attach`, `portforward` and
//! `proxy` need a kubelet or the pod network, which this server has none of: they
//! answer what kube-apiserver answers before it would reach one (a pod without a node:
//! an empty log, `does not have a host assigned`; a node that does not exist: its 404;
//! no pod IP: `address not allowed`) and otherwise that the kubelet cannot be reached.

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use crd_runtime::{BadValue, ErrorList, FieldError, Path};
use http::StatusCode;
use serde_json::{Value, json};

use super::{Reply, Scope};
use crate::api::kinds::Subresource;
use crate::api::object::{meta_mut, now, str_at};
use crate::api::request::DeleteOptions;
use crate::api::request::media::{parse_body, read_body};
use crate::api::status::{ApiError, Qualified};
use crate::api::storage::{self, UPDATE_ATTEMPTS, WriteError};

fn core(plural: &str, kind: &str) -> Qualified {
    Qualified {
        group: String::new(),
        plural: plural.into(),
        kind: kind.into(),
    }
}

fn param<'a>(scope: &'a Scope<'_>, key: &str) -> Option<&'a str> {
    scope
        .req
        .query
        .extra
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The names of every container of a pod, in `VisitContainers` order.
fn container_names(pod: &Value) -> Vec<&str> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| {
            pod.pointer(&format!("/spec/{list}"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .map(|c| c.get("name").and_then(Value::as_str).unwrap_or(""))
        .collect()
}

/// `validateContainer`: the container named, or the pod's only one.
fn container(pod: &Value, asked: Option<&str>) -> Result<String, ApiError> {
    let name = str_at(pod, "/metadata/name");
    match asked.filter(|c| !c.is_empty()) {
        Some(c) if container_names(pod).contains(&c) => Ok(c.to_string()),
        Some(c) => Err(ApiError::bad_request(format!(
            "container {c} is not valid for pod {name}"
        ))),
        None => {
            let regular = pod
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            match regular {
                [one] => Ok(one
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()),
                [] => Err(ApiError::bad_request(format!(
                    "a container name must be specified for pod {name}"
                ))),
                _ => Err(ApiError::bad_request(format!(
                    "a container name must be specified for pod {name}, choose one of: [{}]",
                    container_names(pod).join(" ")
                ))),
            }
        }
    }
}

/// `ValidatePodLogOptions`.
fn log_options(scope: &Scope<'_>) -> Result<(), ApiError> {
    let mut errs = ErrorList::new();
    let int = |key: &str| param(scope, key).and_then(|v| v.parse::<i64>().ok());
    if let Some(n) = int("tailLines").filter(|n| *n < 0) {
        errs.push(FieldError::invalid(
            Path::new("tailLines"),
            BadValue::Int(n),
            "must be greater than or equal to 0",
        ));
    }
    if let Some(n) = int("limitBytes").filter(|n| *n < 1) {
        errs.push(FieldError::invalid(
            Path::new("limitBytes"),
            BadValue::Int(n),
            "must be greater than 0",
        ));
    }
    let since_seconds = int("sinceSeconds");
    if since_seconds.is_some() && param(scope, "sinceTime").is_some() {
        errs.push(FieldError::forbidden(
            Path::new(""),
            "at most one of `sinceTime` or `sinceSeconds` may be specified",
        ));
    }
    if let Some(n) = since_seconds.filter(|n| *n < 1) {
        errs.push(FieldError::invalid(
            Path::new("sinceSeconds"),
            BadValue::Int(n),
            "must be greater than 0",
        ));
    }
    if errs.is_empty() {
        return Ok(());
    }
    let name = scope.req.info.name.as_deref().unwrap_or("");
    Err(ApiError::invalid(
        &core("podlogoptions", "PodLogOptions"),
        name,
        &errs,
    ))
}

/// `GetConnectionInfo` for the pod's node: the node must exist, and its kubelet is
/// never reachable from here.
async fn kubelet(scope: &Scope<'_>, node: &str) -> ApiError {
    let nodes = core("nodes", "Node");
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
            log_options(scope)?;
            container(&pod, param(scope, "container"))?;
            if node.is_empty() {
                // No node, no location: the server streams nothing.
                return Ok(StatusCode::NO_CONTENT.into_response());
            }
            Err(kubelet(scope, &node).await)
        }
        Subresource::Exec | Subresource::Attach | Subresource::PortForward => {
            if scope.sub != Subresource::PortForward {
                container(&pod, param(scope, "container"))?;
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
    let mut errs = ErrorList::new();
    let kind = str_at(&binding, "/target/kind");
    if !kind.is_empty() && kind != "Node" {
        errs.push(FieldError::not_supported(
            Path::new("target").child("kind"),
            BadValue::Str(kind.into()),
            &["Node", "<empty>"],
        ));
    }
    let node = str_at(&binding, "/target/name").to_string();
    if node.is_empty() {
        errs.push(FieldError::required(Path::new("target").child("name"), ""));
    }
    if !errs.is_empty() {
        return Err(ApiError::internal(errs.aggregate()));
    }
    let t = scope.target();
    if str_at(&binding, "/metadata/name") != t.name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Binding object",
        ));
    }
    let conflict =
        |why: String| ApiError::conflict_because(&core("pods/binding", "Pod"), t.name, &why);
    for _ in 0..UPDATE_ATTEMPTS {
        let current = storage::get(scope.shared, t).await?;
        let mut pod = current.obj;
        if pod.pointer("/metadata/deletionTimestamp").is_some() {
            return Err(conflict(format!(
                "pod {} is being deleted, cannot be assigned to a host",
                t.name
            )));
        }
        let assigned = str_at(&pod, "/spec/nodeName");
        if !assigned.is_empty() {
            return Err(conflict(format!(
                "pod {} is already assigned to node {:?}",
                t.name, assigned
            )));
        }
        if pod
            .pointer("/spec/schedulingGates")
            .and_then(Value::as_array)
            .is_some_and(|g| !g.is_empty())
        {
            return Err(conflict(format!(
                "pod {} has non-empty .spec.schedulingGates",
                t.name
            )));
        }
        pod["spec"]["nodeName"] = json!(node);
        if let Some(Value::Object(extra)) = binding.pointer("/metadata/annotations") {
            let meta = meta_mut(&mut pod);
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            for (k, v) in extra {
                annotations[k.as_str()] = v.clone();
            }
        }
        scheduled(&mut pod);
        if scope.req.query.dry_run {
            return Ok(created());
        }
        match storage::update(scope.shared, t, pod, current.revision).await {
            Ok(_) => return Ok(created()),
            Err(WriteError::Raced(_)) => continue,
            Err(WriteError::Failed(e)) => return Err(e),
        }
    }
    Err(ApiError::conflict(&t.res.info().q, t.name))
}

/// `UpdatePodCondition` with `PodScheduled: True`.
fn scheduled(pod: &mut Value) {
    if !pod.get("status").is_some_and(Value::is_object) {
        pod["status"] = json!({});
    }
    let status = &mut pod["status"];
    if !status.get("conditions").is_some_and(Value::is_array) {
        status["conditions"] = json!([]);
    }
    let Some(conditions) = status["conditions"].as_array_mut() else {
        return;
    };
    match conditions.iter_mut().find(|c| c["type"] == "PodScheduled") {
        Some(c) if c["status"] == "True" => {}
        Some(c) => {
            c["status"] = json!("True");
            c["lastTransitionTime"] = json!(now());
        }
        None => conditions.push(json!({"type": "PodScheduled", "status": "True",
                                       "lastProbeTime": null, "lastTransitionTime": now()})),
    }
}

/// POST of an Eviction: a pod that is pending, finished or being deleted, or that no
/// PodDisruptionBudget covers, is deleted; a covered one is refused (budgets are not
/// accounted here).
pub async fn evict(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let eviction = body_json(scope, body).await?;
    let t = scope.target();
    if str_at(&eviction, "/metadata/name") != t.name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let pod = storage::get(scope.shared, t).await?.obj;
    let phase = str_at(&pod, "/status/phase");
    let ignore_budgets = matches!(phase, "Succeeded" | "Failed" | "Pending")
        || pod.pointer("/metadata/deletionTimestamp").is_some();
    if !ignore_budgets {
        let budgets = covering_budgets(scope, &pod).await?;
        match budgets.as_slice() {
            [] => {}
            [one] => return Err(budget_violated(one)),
            _ => {
                return Err(ApiError::internal(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                ));
            }
        }
    }
    let bytes =
        serde_json::to_vec(eviction.get("deleteOptions").unwrap_or(&json!({}))).unwrap_or_default();
    let mut options = DeleteOptions::parse(&bytes, &scope.req.query)?;
    options.dry_run |= scope.req.query.dry_run;
    super::delete::delete_object(scope.shared, t, &options).await?;
    Ok(created())
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
            ApiError::from_store(&core("poddisruptionbudgets", "PodDisruptionBudget"), "", e)
        })?;
    let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
    Ok(listed
        .items
        .iter()
        .filter_map(|kv| crd_runtime::__private::depth::from_json_slice::<Value>(&kv.value).ok())
        .filter(|pdb| {
            pdb.pointer("/spec/selector").is_some_and(|s| {
                !crate::api::kinds::builtin::label_selector_is_empty(s)
                    && crate::api::kinds::builtin::label_selector_matches(s, labels)
            })
        })
        .collect())
}

/// 429 `Cannot evict pod as it would violate the pod's disruption budget.`
fn budget_violated(pdb: &Value) -> ApiError {
    let int = |p: &str| pdb.pointer(p).and_then(Value::as_i64).unwrap_or(0);
    let message = format!(
        "The disruption budget {} needs {} healthy pods and has {} currently",
        str_at(pdb, "/metadata/name"),
        int("/status/desiredHealthy"),
        int("/status/currentHealthy")
    );
    ApiError {
        code: StatusCode::TOO_MANY_REQUESTS,
        reason: "TooManyRequests",
        message: "Cannot evict pod as it would violate the pod's disruption budget.".into(),
        details: Some(json!({"causes": [{"reason": "DisruptionBudget", "message": message}]})),
        warnings: Vec::new(),
    }
}
