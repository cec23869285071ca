//! The Pod's table columns, as kube-apiserver's `printPod` fills them.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::api::kinds::builtin::columns::{col, condition_true, int, string, time, wide};
use crate::api::kinds::builtin::core::podspec::{arr, text};
use crate::api::table::{Column, human_duration};

fn restartable_init(c: Option<&Value>) -> bool {
    c.is_some_and(|c| text(c, "restartPolicy") == "Always")
}

/// The time a container last terminated, for the Restarts cell.
fn last_terminated(status: &Value) -> Option<DateTime<Utc>> {
    time(status, "/lastState/terminated/finishedAt")
}

/// `printPod`'s Ready, Status and Restarts cells.
pub fn pod_cells(pod: &Value) -> (String, String, String) {
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    let status = pod.get("status").unwrap_or(&Value::Null);
    let init_specs = arr(spec, "initContainers");
    let total = arr(spec, "containers").len()
        + init_specs
            .iter()
            .filter(|c| restartable_init(Some(c)))
            .count();
    let mut ready = 0;
    let mut restarts = 0;
    let mut sidecar_restarts = 0;
    let mut last: Option<DateTime<Utc>> = None;
    let mut sidecar_last: Option<DateTime<Utc>> = None;
    let mut reason = match text(status, "reason") {
        "" => text(status, "phase").to_string(),
        r => r.to_string(),
    };
    if arr(status, "conditions")
        .iter()
        .any(|c| text(c, "type") == "PodScheduled" && text(c, "reason") == "SchedulingGated")
    {
        reason = "SchedulingGated".into();
    }
    let later = |a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>| a.max(b);
    let mut initializing = false;
    let init_statuses = arr(status, "initContainerStatuses");
    for (i, c) in init_statuses.iter().enumerate() {
        let count = int(c, "/restartCount");
        restarts += count;
        last = later(last, last_terminated(c));
        let spec_c = init_specs
            .iter()
            .find(|s| text(s, "name") == text(c, "name"));
        let sidecar = restartable_init(spec_c);
        if sidecar {
            sidecar_restarts += count;
            sidecar_last = later(sidecar_last, last_terminated(c));
        }
        let terminated = c.pointer("/state/terminated");
        let waiting_reason = string(c, "/state/waiting/reason");
        if terminated.is_some_and(|t| int(t, "/exitCode") == 0) {
            continue;
        }
        if sidecar && c.get("started") == Some(&Value::Bool(true)) {
            if c.get("ready") == Some(&Value::Bool(true)) {
                ready += 1;
            }
            continue;
        }
        reason = if let Some(t) = terminated {
            match (text(t, "reason"), int(t, "/signal")) {
                ("", 0) => format!("Init:ExitCode:{}", int(t, "/exitCode")),
                ("", signal) => format!("Init:Signal:{signal}"),
                (r, _) => format!("Init:{r}"),
            }
        } else if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" {
            format!("Init:{waiting_reason}")
        } else {
            format!("Init:{i}/{}", init_specs.len())
        };
        initializing = true;
        break;
    }
    let initialized = arr(status, "conditions")
        .iter()
        .any(|c| text(c, "type") == "Initialized" && text(c, "status") == "True");
    if !initializing || initialized {
        restarts = sidecar_restarts;
        last = sidecar_last;
        let mut running = false;
        for c in arr(status, "containerStatuses").iter().rev() {
            restarts += int(c, "/restartCount");
            last = later(last, last_terminated(c));
            let waiting = string(c, "/state/waiting/reason");
            let terminated = c.pointer("/state/terminated");
            if !waiting.is_empty() {
                reason = waiting;
            } else if let Some(t) = terminated {
                reason = match (text(t, "reason"), int(t, "/signal")) {
                    ("", 0) => format!("ExitCode:{}", int(t, "/exitCode")),
                    ("", signal) => format!("Signal:{signal}"),
                    (r, _) => r.to_string(),
                };
            } else if c.get("ready") == Some(&Value::Bool(true))
                && c.pointer("/state/running").is_some()
            {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            reason = if condition_true(pod, "Ready") {
                "Running".into()
            } else {
                "NotReady".into()
            };
        }
    }
    let deleting = pod.pointer("/metadata/deletionTimestamp").is_some();
    let phase = text(status, "phase");
    if deleting && text(status, "reason") == "NodeLost" {
        reason = "Unknown".into();
    } else if deleting && phase != "Failed" && phase != "Succeeded" {
        reason = "Terminating".into();
    }
    let restarts_cell = match last {
        Some(t) if restarts != 0 => format!(
            "{restarts} ({} ago)",
            human_duration(Utc::now().signed_duration_since(t))
        ),
        _ => restarts.to_string(),
    };
    (format!("{ready}/{total}"), reason, restarts_cell)
}

fn none_if_empty(s: String) -> Value {
    json!(if s.is_empty() {
        "<none>".to_string()
    } else {
        s
    })
}

/// `kubectl get pods`.
pub fn pod() -> Vec<Column> {
    vec![
        col(
            "Ready",
            "string",
            "The aggregate readiness state of this pod for accepting traffic.",
            |o| json!(pod_cells(o).0),
        ),
        col(
            "Status",
            "string",
            "The aggregate status of the containers in this pod.",
            |o| json!(pod_cells(o).1),
        ),
        col(
            "Restarts",
            "string",
            "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
            |o| json!(pod_cells(o).2),
        ),
        Column::builtin_age(),
        wide(col(
            "IP",
            "string",
            "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
            |o| none_if_empty(string(o, "/status/podIPs/0/ip")),
        )),
        wide(col(
            "Node",
            "string",
            "NodeName indicates in which node this pod is scheduled.",
            |o| none_if_empty(string(o, "/spec/nodeName")),
        )),
        wide(col(
            "Nominated Node",
            "string",
            "nominatedNodeName is set only when this pod preempts other pods on the node.",
            |o| none_if_empty(string(o, "/status/nominatedNodeName")),
        )),
        wide(col(
            "Readiness Gates",
            "string",
            "If specified, all readiness gates will be evaluated for pod readiness.",
            |o| {
                let gates = arr(o.get("spec").unwrap_or(&Value::Null), "readinessGates");
                if gates.is_empty() {
                    return json!("<none>");
                }
                let met = gates
                    .iter()
                    .filter(|g| condition_true(o, text(g, "conditionType")))
                    .count();
                json!(format!("{met}/{}", gates.len()))
            },
        )),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_cells_read_the_status_like_print_pod() {
        let pending = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}]},
                             "status": {"phase": "Pending"}});
        assert_eq!(
            pod_cells(&pending),
            ("0/2".into(), "Pending".into(), "0".into())
        );
        let waiting = json!({"spec": {"containers": [{"name": "a"}]},
            "status": {"phase": "Pending", "containerStatuses": [
                {"name": "a", "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}});
        assert_eq!(pod_cells(&waiting).1, "ContainerCreating");
        let running = json!({"spec": {"containers": [{"name": "a"}]},
            "status": {"phase": "Running", "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 0, "state": {"running": {}}}]}});
        assert_eq!(pod_cells(&running).0, "1/1");
        let mut deleting = running.clone();
        deleting["metadata"] = json!({"deletionTimestamp": "2026-01-01T00:00:00Z"});
        assert_eq!(pod_cells(&deleting).1, "Terminating");
    }
}
