//! What the built-in kinds' printers share, as kube-apiserver's printers
//! (`pkg/printers/internalversion`) fill their cells: readers of the object, the wide
//! columns at priority 1.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::api::table::{Cell, Column};

/// The integer a cell reads (0 when absent).
pub(crate) use crate::api::object::int_at as int;

/// How many items the list at `pointer` holds (0 when absent).
pub(crate) fn length(obj: &Value, pointer: &str) -> usize {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

pub(crate) fn string(obj: &Value, pointer: &str) -> String {
    obj.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

pub(crate) fn wide(mut c: Column) -> Column {
    c.priority = 1;
    c
}

pub(crate) fn col(name: &str, type_: &str, description: &str, cell: fn(&Value) -> Value) -> Column {
    Column::computed(name, type_, description, cell)
}

/// An integer column of the count at `pointer` (0 when absent).
pub(crate) fn count(name: &str, description: &str, pointer: &'static str) -> Column {
    let mut c = Column::computed(name, "integer", description, |_| Value::Null);
    c.cell = Cell::Count(pointer);
    c
}

/// The `READY` column of a replicated workload: ready pods over wanted replicas.
pub(crate) fn ready_of_replicas() -> Column {
    col(
        "Ready",
        "string",
        "Number of the pod with ready state",
        |o| {
            Value::from(format!(
                "{}/{}",
                int(o, "/status/readyReplicas"),
                int(o, "/spec/replicas")
            ))
        },
    )
}

/// Whether the condition `type_` of the object's status is `True`.
pub(crate) fn condition_true(obj: &Value, type_: &str) -> bool {
    let conditions = obj.pointer("/status/conditions").and_then(Value::as_array);
    conditions
        .into_iter()
        .flatten()
        .any(|c| c["type"] == type_ && c["status"] == "True")
}

/// The time at `pointer`, when it parses.
pub(crate) fn time(o: &Value, pointer: &str) -> Option<DateTime<Utc>> {
    o.pointer(pointer)
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}
