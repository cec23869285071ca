//! The apps/v1 kinds' table columns, as kube-apiserver's printers
//! (`printDeployment`, `printReplicaSet`, …) fill them.

use serde_json::{Value, json};

use crate::api::kinds::builtin::columns::{col, count, ready_of_replicas, wide};
use crate::api::kinds::builtin::core::podspec::{arr, containers_and_images, text};
use crate::api::selectors::label as selector;
use crate::api::table::Column;

/// The Containers, Images (and Selector) wide columns of a kind whose template is at
/// `/spec/template`.
fn template_columns(selector: bool) -> Vec<Column> {
    let mut out = container_columns(
        |o| json!(containers_and_images(o.pointer("/spec/template/spec")).0),
        |o| json!(containers_and_images(o.pointer("/spec/template/spec")).1),
    );
    if selector {
        out.push(wide(col(
            "Selector",
            "string",
            "Label selector for pods.",
            |o| json!(selector::format(o.pointer("/spec/selector"))),
        )));
    }
    out
}

/// A kind's own `columns`, then the wide columns of its pod template at
/// `/spec/template`.
pub(crate) fn with_template_columns(mut columns: Vec<Column>, selector: bool) -> Vec<Column> {
    columns.extend(template_columns(selector));
    columns
}

/// The Containers and Images wide columns, their cells read where the kind keeps its
/// pod template.
pub(crate) fn container_columns(
    containers: fn(&Value) -> Value,
    images: fn(&Value) -> Value,
) -> Vec<Column> {
    vec![
        wide(col(
            "Containers",
            "string",
            "Names of each container in the template.",
            containers,
        )),
        wide(col(
            "Images",
            "string",
            "Images referenced by each container in the template.",
            images,
        )),
    ]
}

/// `kubectl get deployments`.
pub fn deployment() -> Vec<Column> {
    with_template_columns(
        vec![
            ready_of_replicas(),
            count(
                "Up-to-date",
                "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
                "/status/updatedReplicas",
            ),
            count(
                "Available",
                "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
                "/status/availableReplicas",
            ),
            Column::builtin_age(),
        ],
        true,
    )
}

/// `kubectl get replicasets`.
pub fn replica_set() -> Vec<Column> {
    with_template_columns(
        vec![
            count(
                "Desired",
                "Replicas is the number of desired pods.",
                "/spec/replicas",
            ),
            count(
                "Current",
                "Replicas is the most recently observed number of non-terminating pods.",
                "/status/replicas",
            ),
            count(
                "Ready",
                "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
                "/status/readyReplicas",
            ),
            Column::builtin_age(),
        ],
        true,
    )
}

/// `kubectl get statefulsets`.
pub fn stateful_set() -> Vec<Column> {
    with_template_columns(vec![ready_of_replicas(), Column::builtin_age()], false)
}

/// `kubectl get daemonsets`.
pub fn daemon_set() -> Vec<Column> {
    with_template_columns(
        vec![
            count(
                "Desired",
                "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).",
                "/status/desiredNumberScheduled",
            ),
            count(
                "Current",
                "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
                "/status/currentNumberScheduled",
            ),
            count(
                "Ready",
                "Total number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
                "/status/numberReady",
            ),
            count(
                "Up-to-date",
                "The total number of nodes that are running updated daemon pod",
                "/status/updatedNumberScheduled",
            ),
            count(
                "Available",
                "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
                "/status/numberAvailable",
            ),
            col(
                "Node Selector",
                "string",
                "NodeSelector is a selector which must be true for the pod to fit on a node.",
                |o| json!(node_selector(o.pointer("/spec/template/spec/nodeSelector"))),
            ),
            Column::builtin_age(),
        ],
        true,
    )
}

/// `labels.FormatLabels` of a node selector (`<none>` when empty).
fn node_selector(sel: Option<&Value>) -> String {
    let mut pairs: Vec<String> = sel
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect();
    pairs.sort();
    if pairs.is_empty() {
        "<none>".into()
    } else {
        pairs.join(",")
    }
}

/// `kubectl get controllerrevisions`.
pub fn controller_revision() -> Vec<Column> {
    vec![
        col("Controller", "string", "Controller of the object", |o| {
            let owner = arr(o.get("metadata").unwrap_or(&Value::Null), "ownerReferences")
                .iter()
                .find(|r| r.get("controller") == Some(&Value::Bool(true)));
            json!(match owner {
                Some(r) => {
                    let group = text(r, "apiVersion").split_once('/').map_or("", |(g, _)| g);
                    let kind = text(r, "kind").to_lowercase();
                    let resource = if group.is_empty() {
                        kind
                    } else {
                        format!("{kind}.{group}")
                    };
                    format!("{resource}/{}", text(r, "name"))
                }
                None => "<none>".into(),
            })
        }),
        count(
            "Revision",
            "Revision indicates the revision of the state represented by Data.",
            "/revision",
        ),
        Column::builtin_age(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_selectors_print_like_format_labels() {
        assert_eq!(node_selector(None), "<none>");
    }
}
