//! The batch/v1 kinds' table columns, as kube-apiserver's printers (`printJob`,
//! `printCronJob`) fill them.

use chrono::Utc;
use serde_json::{Value, json};

use crate::api::kinds::builtin::apps::printers::{container_columns, with_template_columns};
use crate::api::kinds::builtin::columns::{col, condition_true, int, length, string, time, wide};
use crate::api::kinds::builtin::core::podspec::containers_and_images;
use crate::api::selectors::label as selector;
use crate::api::table::{Column, human_duration, human_since};

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

/// `kubectl get jobs`.
pub fn job() -> Vec<Column> {
    with_template_columns(
        vec![
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
        ],
        true,
    )
}

/// `kubectl get cronjobs`.
pub fn cron_job() -> Vec<Column> {
    let mut out = vec![
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
            |o| json!(length(o, "/status/active")),
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
    ];
    out.extend(container_columns(
        |o| json!(containers_and_images(o.pointer("/spec/jobTemplate/spec/template/spec")).0),
        |o| json!(containers_and_images(o.pointer("/spec/jobTemplate/spec/template/spec")).1),
    ));
    out.push(wide(col(
        "Selector",
        "string",
        "A label query over pods that should match the pod count.",
        |o| {
            json!(selector::format(
                o.pointer("/spec/jobTemplate/spec/selector")
            ))
        },
    )));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
