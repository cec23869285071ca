//! The workload kinds' table columns, as kube-apiserver's printers (`printPod`,
//! `printDeployment`, `printJob`, …) fill them: cells computed from the object, the
//! wide columns at priority 1.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::podspec::{arr, containers_and_images, text};
use crate::api::selectors::label as selector;
use crate::api::table::{Column, human_duration, human_since};

fn int(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn string(obj: &Value, pointer: &str) -> String {
    obj.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn wide(mut c: Column) -> Column {
    c.priority = 1;
    c
}

fn col(name: &str, type_: &str, description: &str, cell: fn(&Value) -> Value) -> Column {
    Column::computed(name, type_, description, cell)
}

/// The Containers, Images (and Selector) wide columns of a kind whose template is at
/// `/spec/template`.
fn template_columns(selector: bool) -> Vec<Column> {
    let mut out = vec![
        wide(col(
            "Containers",
            "string",
            "Names of each container in the template.",
            |o| json!(containers_and_images(o.pointer("/spec/template/spec")).0),
        )),
        wide(col(
            "Images",
            "string",
            "Images referenced by each container in the template.",
            |o| json!(containers_and_images(o.pointer("/spec/template/spec")).1),
        )),
    ];
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

/// `kubectl get deployments`.
pub fn deployment() -> Vec<Column> {
    let mut out = vec![
        col(
            "Ready",
            "string",
            "Number of the pod with ready state",
            |o| {
                json!(format!(
                    "{}/{}",
                    int(o, "/status/readyReplicas"),
                    int(o, "/spec/replicas")
                ))
            },
        ),
        col(
            "Up-to-date",
            "integer",
            "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
            |o| json!(int(o, "/status/updatedReplicas")),
        ),
        col(
            "Available",
            "integer",
            "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
            |o| json!(int(o, "/status/availableReplicas")),
        ),
        Column::builtin_age(),
    ];
    out.extend(template_columns(true));
    out
}

/// `kubectl get replicasets`.
pub fn replica_set() -> Vec<Column> {
    let mut out = vec![
        col(
            "Desired",
            "integer",
            "Replicas is the number of desired pods.",
            |o| json!(int(o, "/spec/replicas")),
        ),
        col(
            "Current",
            "integer",
            "Replicas is the most recently observed number of non-terminating pods.",
            |o| json!(int(o, "/status/replicas")),
        ),
        col(
            "Ready",
            "integer",
            "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
            |o| json!(int(o, "/status/readyReplicas")),
        ),
        Column::builtin_age(),
    ];
    out.extend(template_columns(true));
    out
}

/// `kubectl get statefulsets`.
pub fn stateful_set() -> Vec<Column> {
    let mut out = vec![
        col(
            "Ready",
            "string",
            "Number of the pod with ready state",
            |o| {
                json!(format!(
                    "{}/{}",
                    int(o, "/status/readyReplicas"),
                    int(o, "/spec/replicas")
                ))
            },
        ),
        Column::builtin_age(),
    ];
    out.extend(template_columns(false));
    out
}

/// `kubectl get daemonsets`.
pub fn daemon_set() -> Vec<Column> {
    let mut out = vec![
        col(
            "Desired",
            "integer",
            "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).",
            |o| json!(int(o, "/status/desiredNumberScheduled")),
        ),
        col(
            "Current",
            "integer",
            "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
            |o| json!(int(o, "/status/currentNumberScheduled")),
        ),
        col(
            "Ready",
            "integer",
            "Total number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
            |o| json!(int(o, "/status/numberReady")),
        ),
        col(
            "Up-to-date",
            "integer",
            "The total number of nodes that are running updated daemon pod",
            |o| json!(int(o, "/status/updatedNumberScheduled")),
        ),
        col(
            "Available",
            "integer",
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
            |o| json!(int(o, "/status/numberAvailable")),
        ),
        col(
            "Node Selector",
            "string",
            "NodeSelector is a selector which must be true for the pod to fit on a node.",
            |o| json!(node_selector(o.pointer("/spec/template/spec/nodeSelector"))),
        ),
        Column::builtin_age(),
    ];
    out.extend(template_columns(true));
    out
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
        col(
            "Revision",
            "integer",
            "Revision indicates the revision of the state represented by Data.",
            |o| json!(int(o, "/revision")),
        ),
        Column::builtin_age(),
    ]
}

fn condition_true(obj: &Value, type_: &str) -> bool {
    arr(obj.get("status").unwrap_or(&Value::Null), "conditions")
        .iter()
        .any(|c| text(c, "type") == type_ && text(c, "status") == "True")
}

/// `printJob`'s Status cell.
fn job_status(o: &Value) -> &'static str {
    if condition_true(o, "Failed") {
        "Failed"
    } else if condition_true(o, "Complete") {
        "Complete"
    } else if condition_true(o, "Suspended") {
        "Suspended"
    } else if condition_true(o, "FailureTarget") {
        "FailureTarget"
    } else if condition_true(o, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    }
}

fn time(o: &Value, pointer: &str) -> Option<DateTime<Utc>> {
    o.pointer(pointer)
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// `kubectl get jobs`.
pub fn job() -> Vec<Column> {
    let mut out = vec![
        col("Status", "string", "Status of the job.", |o| {
            json!(job_status(o))
        }),
        col(
            "Completions",
            "string",
            "The number of pods which reached phase Succeeded.",
            |o| {
                let succeeded = int(o, "/status/succeeded");
                json!(
                    match o.pointer("/spec/completions").and_then(Value::as_i64) {
                        Some(c) => format!("{succeeded}/{c}"),
                        None => {
                            let parallelism = int(o, "/spec/parallelism");
                            if parallelism > 1 {
                                format!("{succeeded}/1 of {parallelism}")
                            } else {
                                format!("{succeeded}/1")
                            }
                        }
                    }
                )
            },
        ),
        col(
            "Duration",
            "string",
            "Time required to complete the job.",
            |o| {
                json!(match (
                    time(o, "/status/startTime"),
                    time(o, "/status/completionTime")
                ) {
                    (None, _) => String::new(),
                    (Some(s), None) => human_duration(Utc::now().signed_duration_since(s)),
                    (Some(s), Some(c)) => human_duration(c.signed_duration_since(s)),
                })
            },
        ),
        Column::builtin_age(),
    ];
    out.extend(template_columns(true));
    out
}

/// `kubectl get cronjobs`.
pub fn cron_job() -> Vec<Column> {
    vec![
        col(
            "Schedule",
            "string",
            "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
            |o| json!(string(o, "/spec/schedule")),
        ),
        col(
            "Timezone",
            "string",
            "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.",
            |o| {
                json!(match string(o, "/spec/timeZone") {
                    t if t.is_empty() => "<none>".to_string(),
                    t => t,
                })
            },
        ),
        col(
            "Suspend",
            "boolean",
            "This flag tells the controller to suspend subsequent executions.",
            // `printBoolPtr`: a string cell, though the column says boolean.
            |o| {
                json!(match o.pointer("/spec/suspend").and_then(Value::as_bool) {
                    Some(true) => "True",
                    Some(false) => "False",
                    None => "<unset>",
                })
            },
        ),
        col(
            "Active",
            "integer",
            "A list of pointers to currently running jobs.",
            |o| {
                json!(
                    o.pointer("/status/active")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len)
                )
            },
        ),
        col(
            "Last Schedule",
            "string",
            "Information when was the last time the job was successfully scheduled.",
            |o| {
                json!(match o
                    .pointer("/status/lastScheduleTime")
                    .and_then(Value::as_str)
                {
                    Some(t) => human_since(t),
                    None => "<none>".into(),
                })
            },
        ),
        Column::builtin_age(),
        wide(col(
            "Containers",
            "string",
            "Names of each container in the template.",
            |o| json!(containers_and_images(o.pointer("/spec/jobTemplate/spec/template/spec")).0),
        )),
        wide(col(
            "Images",
            "string",
            "Images referenced by each container in the template.",
            |o| json!(containers_and_images(o.pointer("/spec/jobTemplate/spec/template/spec")).1),
        )),
        wide(col(
            "Selector",
            "string",
            "A label query over pods that should match the pod count.",
            |o| {
                json!(selector::format(
                    o.pointer("/spec/jobTemplate/spec/selector")
                ))
            },
        )),
    ]
}

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

    #[test]
    fn job_completions_and_selectors_print_like_kubectl() {
        let job = json!({"spec": {"completions": 3, "selector": {"matchLabels": {"a": "b"}}},
                         "status": {"succeeded": 1}});
        let cols = self::job();
        let Some(crate::api::table::Cell::Computed(f)) = cols.get(1).map(|c| &c.cell) else {
            panic!("computed column")
        };
        assert_eq!(f(&job), json!("1/3"));
        assert_eq!(job_status(&job), "Running");
        assert_eq!(node_selector(None), "<none>");
    }
}
