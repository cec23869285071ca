//! `meta.k8s.io/v1` Table output (what `kubectl get` asks for): the Name column, then the
//! resource's printer columns, cells typed like the server's (date columns as ages).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crd_runtime::jsonpath::JsonPath;

/// Where a column's cells come from.
pub enum Cell {
    /// The object's name.
    Name,
    /// A JSONPath into the object (`None`: a path that does not parse shows nothing).
    Path(Option<JsonPath>),
    /// Computed from the object, as a built-in kind's printer does (`DATA` = keys).
    Computed(fn(&Value) -> Value),
    /// The integer at a JSON pointer, 0 when absent (a built-in kind's count column).
    Count(&'static str),
}

/// One column.
pub struct Column {
    pub name: String,
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: i32,
    pub cell: Cell,
}

const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.";

impl Column {
    /// The leading Name column.
    pub fn name() -> Column {
        Column {
            name: "Name".into(),
            type_: "string".into(),
            format: "name".into(),
            description: NAME_DESCRIPTION.into(),
            priority: 0,
            cell: Cell::Name,
        }
    }

    /// A column of a built-in kind's printer whose cells `compute` makes.
    pub fn computed(
        name: &str,
        type_: &str,
        description: &str,
        compute: fn(&Value) -> Value,
    ) -> Column {
        Column {
            name: name.into(),
            type_: type_.into(),
            format: String::new(),
            description: description.into(),
            priority: 0,
            cell: Cell::Computed(compute),
        }
    }

    /// A built-in kind's Age column: a string column of human durations since
    /// creation, as kube-apiserver's printers write it.
    pub fn builtin_age() -> Column {
        let mut age = Column::age();
        age.type_ = "age".into();
        age
    }

    /// A printer column (`additionalPrinterColumns` item).
    pub fn printer(
        name: &str,
        type_: &str,
        format: Option<&str>,
        description: Option<&str>,
        priority: Option<i32>,
        json_path: &str,
    ) -> Column {
        Column {
            name: name.into(),
            type_: type_.into(),
            format: format.unwrap_or("").into(),
            description: description.unwrap_or("").into(),
            priority: priority.unwrap_or(0),
            cell: Cell::Path(JsonPath::parse(json_path).ok()),
        }
    }

    /// The Age column (what the server shows for a CRD without printer columns).
    pub fn age() -> Column {
        Column::printer(
            "Age",
            "date",
            None,
            Some(
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
            ),
            None,
            ".metadata.creationTimestamp",
        )
    }

    fn cell(&self, obj: &Value, now: DateTime<Utc>) -> Value {
        let path = match &self.cell {
            Cell::Name => {
                return obj
                    .pointer("/metadata/name")
                    .cloned()
                    .unwrap_or(Value::Null);
            }
            Cell::Computed(compute) => return compute(obj),
            Cell::Count(pointer) => {
                return Value::from(obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0));
            }
            Cell::Path(None) => return Value::Null,
            Cell::Path(Some(path)) => path,
        };
        let found = path.find(obj);
        match found.as_slice() {
            [] => Value::Null,
            [one] => typed_cell(&self.type_, one, now),
            // Several results print joined, as the server's JSONPath printer does.
            _ => path.text(obj).map(Value::String).unwrap_or(Value::Null),
        }
    }
}

fn typed_cell(type_: &str, v: &Value, now: DateTime<Utc>) -> Value {
    match (type_, v) {
        (_, Value::Null) => Value::Null,
        ("integer", Value::Number(n)) => n
            .as_i64()
            .map(Value::from)
            .or_else(|| n.as_f64().map(|f| json!(f as i64)))
            .unwrap_or(Value::Null),
        ("number", Value::Number(n)) => n.as_f64().map(Value::from).unwrap_or(Value::Null),
        ("boolean", Value::Bool(b)) => Value::Bool(*b),
        ("string", Value::String(s)) => Value::String(s.clone()),
        // The server's default table (CRDs): the timestamp as it is.
        ("rawdate", Value::String(s)) => Value::String(s.clone()),
        ("date" | "age", Value::String(s)) => match DateTime::parse_from_rfc3339(s) {
            Ok(t) => Value::String(human_duration(
                now.signed_duration_since(t.with_timezone(&Utc)),
            )),
            Err(_) => Value::String("<invalid>".into()),
        },
        _ => Value::Null,
    }
}

/// How long ago an RFC 3339 time was, as printers show ages (`<invalid>` when it does
/// not parse).
pub fn human_since(ts: &str) -> String {
    match DateTime::parse_from_rfc3339(ts) {
        Ok(t) => human_duration(Utc::now().signed_duration_since(t.with_timezone(&Utc))),
        Err(_) => "<invalid>".into(),
    }
}

/// apimachinery's `duration.HumanDuration`.
pub fn human_duration(d: chrono::TimeDelta) -> String {
    let secs = d.num_seconds();
    if secs < -1 {
        return "<invalid>".into();
    }
    if secs < 0 {
        return "0s".into();
    }
    if secs < 60 * 2 {
        return format!("{secs}s");
    }
    let minutes = secs / 60;
    if minutes < 10 {
        return two_units(minutes, "m", secs % 60, "s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return two_units(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return two_units(hours / 24, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return two_units(hours / 24 / 365, "y", (hours / 24) % 365, "d");
    }
    format!("{}y", hours / 24 / 365)
}

/// `5m` or `5m30s`: a count of the larger unit, then the rest when there is any.
fn two_units(major: i64, major_unit: &str, minor: i64, minor_unit: &str) -> String {
    if minor == 0 {
        format!("{major}{major_unit}")
    } else {
        format!("{major}{major_unit}{minor}{minor_unit}")
    }
}

/// What each row's `object` holds (`includeObject`).
fn row_object(obj: &Value, include: Option<&str>) -> Value {
    match include {
        Some("None") => Value::Null,
        Some("Object") => obj.clone(),
        _ => json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata").cloned().unwrap_or_else(|| json!({})),
        }),
    }
}

/// A Table of `objects` with list metadata `list_meta`.
pub fn table(
    columns: &[Column],
    objects: &[Value],
    include: Option<&str>,
    list_meta: Value,
) -> Value {
    let now = Utc::now();
    let defs: Vec<Value> = columns
        .iter()
        .map(|c| {
            let type_ = match c.type_.as_str() {
                "rawdate" => "date",
                "age" => "string",
                other => other,
            };
            json!({"name": c.name, "type": type_, "format": c.format,
                   "description": c.description, "priority": c.priority})
        })
        .collect();
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            let cells: Vec<Value> = columns.iter().map(|c| c.cell(o, now)).collect();
            let mut row = json!({"cells": cells});
            let object = row_object(o, include);
            if !object.is_null() {
                row["object"] = object;
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_meta,
        "columnDefinitions": defs,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let d = |s: i64| human_duration(chrono::TimeDelta::seconds(s));
        assert_eq!(d(5), "5s");
        assert_eq!(d(125), "2m5s");
        assert_eq!(d(600), "10m");
        assert_eq!(d(3 * 3600 + 60), "3h1m");
        assert_eq!(d(30 * 3600), "30h");
        assert_eq!(d(3 * 86400 + 3600), "3d1h");
        assert_eq!(d(40 * 86400), "40d");
    }

    #[test]
    fn cells_follow_the_column_type() {
        let cols = vec![
            Column::name(),
            Column::printer("Replicas", "integer", None, None, None, ".spec.replicas"),
            Column::printer("Spec", "string", None, None, Some(1), ".spec.cronSpec"),
            Column::printer("Wrong", "integer", None, None, None, ".spec.cronSpec"),
        ];
        let obj = json!({"metadata": {"name": "a"}, "spec": {"replicas": 3, "cronSpec": "* *"}});
        let t = table(&cols, &[obj], None, json!({"resourceVersion": "5"}));
        assert_eq!(t["rows"][0]["cells"], json!(["a", 3, "* *", null]));
        assert_eq!(t["columnDefinitions"][2]["priority"], 1);
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }
}
