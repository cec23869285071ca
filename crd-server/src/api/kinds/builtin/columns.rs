//! What the built-in kinds' printers share, as kube-apiserver's printers
//! (`pkg/printers/internalversion`) fill their cells: readers of the object, the wide
//! columns at priority 1, and the Containers, Images and Selector columns of kinds
//! with a pod template.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::api::kinds::builtin::core::podspec::{arr, containers_and_images, text};
use crate::api::selectors::label as selector;
use crate::api::table::Column;

pub(crate) fn int(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
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

/// The Containers, Images (and Selector) wide columns of a kind whose template is at
/// `/spec/template`.
pub(crate) fn template_columns(selector: bool) -> Vec<Column> {
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

/// Whether the condition `type_` of the object's status is `True`.
pub(crate) fn condition_true(obj: &Value, type_: &str) -> bool {
    arr(obj.get("status").unwrap_or(&Value::Null), "conditions")
        .iter()
        .any(|c| text(c, "type") == type_ && text(c, "status") == "True")
}

/// The time at `pointer`, when it parses.
pub(crate) fn time(o: &Value, pointer: &str) -> Option<DateTime<Utc>> {
    o.pointer(pointer)
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}
