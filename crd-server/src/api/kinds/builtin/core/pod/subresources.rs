//! The Pod's rules for its subresources that are actions rather than objects
//! (kube-apiserver's `pkg/registry/core/pod/rest` and `storage/eviction.go`): the
//! container a `log`, `exec` or `attach` names, `PodLogOptions`, a Binding's target and
//! what assigning a node changes, and which PodDisruptionBudgets stop an eviction. The
//! verbs serve them ([`crate::api::verbs`]).

use crd_runtime::{BadValue, ErrorList, FieldError, Path};
use http::StatusCode;
use serde_json::{Map, Value, json};

use crate::api::object::{meta_mut, now, str_at};
use crate::api::selectors::label;
use crate::api::status::{ApiError, Qualified};

/// A core/v1 resource, for messages.
pub fn core(plural: &str, kind: &str) -> Qualified {
    Qualified {
        group: String::new(),
        plural: plural.into(),
        kind: kind.into(),
    }
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
pub fn container(pod: &Value, asked: Option<&str>) -> Result<String, ApiError> {
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
pub fn log_options<'a>(
    param: impl Fn(&str) -> Option<&'a str>,
    name: &str,
) -> Result<(), ApiError> {
    let mut errs = ErrorList::new();
    let int = |key: &str| param(key).and_then(|v| v.parse::<i64>().ok());
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
    if since_seconds.is_some() && param("sinceTime").is_some() {
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
    Err(ApiError::invalid(
        &core("podlogoptions", "PodLogOptions"),
        name,
        &errs,
    ))
}

/// The node a Binding assigns (`target.kind` must be `Node` or empty).
pub fn binding_node(binding: &Value) -> Result<String, ApiError> {
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
    Ok(node)
}

/// `assignPod`'s update of the pod `name`: refused while it is being deleted, already
/// assigned or gated; otherwise the node, the Binding's annotations and the
/// `PodScheduled` condition.
pub fn assign(pod: &mut Value, binding: &Value, node: &str, name: &str) -> Result<(), ApiError> {
    let conflict =
        |why: String| ApiError::conflict_because(&core("pods/binding", "Pod"), name, &why);
    if pod.pointer("/metadata/deletionTimestamp").is_some() {
        return Err(conflict(format!(
            "pod {} is being deleted, cannot be assigned to a host",
            name
        )));
    }
    let assigned = str_at(pod, "/spec/nodeName");
    if !assigned.is_empty() {
        return Err(conflict(format!(
            "pod {} is already assigned to node {:?}",
            name, assigned
        )));
    }
    if pod
        .pointer("/spec/schedulingGates")
        .and_then(Value::as_array)
        .is_some_and(|g| !g.is_empty())
    {
        return Err(conflict(format!(
            "pod {} has non-empty .spec.schedulingGates",
            name
        )));
    }
    pod["spec"]["nodeName"] = json!(node);
    if let Some(Value::Object(extra)) = binding.pointer("/metadata/annotations") {
        let meta = meta_mut(pod);
        let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
        for (k, v) in extra {
            annotations[k.as_str()] = v.clone();
        }
    }
    scheduled(pod);
    Ok(())
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

/// Whether an eviction deletes the pod whatever the budgets say: it is pending,
/// finished or already being deleted.
pub fn ignores_budgets(pod: &Value) -> bool {
    let phase = str_at(pod, "/status/phase");
    matches!(phase, "Succeeded" | "Failed" | "Pending")
        || pod.pointer("/metadata/deletionTimestamp").is_some()
}

/// Whether a PodDisruptionBudget's selector covers a pod with `labels` (an empty
/// selector covers none).
pub fn covers(pdb: &Value, labels: Option<&Map<String, Value>>) -> bool {
    pdb.pointer("/spec/selector")
        .is_some_and(|s| !label::is_empty(s) && label::matches(s, labels))
}

/// The eviction's answer for the budgets covering the pod: none or one is for the
/// budget to decide ([`super::eviction::take`]), several are an error.
pub fn check_budgets(budgets: &[Value]) -> Result<(), ApiError> {
    match budgets {
        [] | [_] => Ok(()),
        _ => Err(ApiError::internal(
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
        )),
    }
}

/// 429 `Cannot evict pod as it would violate the pod's disruption budget.`
pub fn budget_violated(pdb: &Value) -> ApiError {
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
