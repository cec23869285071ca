//! Status conditions as the workload controllers keep them (`SetDeploymentCondition`,
//! `SetCondition` of the ReplicaSet and Job utilities): a condition of the same status
//! and reason is left as it is; one of the same status keeps its
//! `lastTransitionTime`; the new one replaces the old at the end of the list.

use serde_json::{Value, json};

/// The condition of `kind` in `conditions`.
pub fn get<'a>(conditions: &'a [Value], kind: &str) -> Option<&'a Value> {
    conditions.iter().find(|c| c["type"] == kind)
}

/// The `status.conditions` of an object.
pub fn of(obj: &Value) -> Vec<Value> {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// A condition as the apps controllers write them (`lastUpdateTime` too when
/// `update_time`).
pub fn new(kind: &str, status: &str, reason: &str, message: &str, now: &str) -> Value {
    json!({
        "type": kind,
        "status": status,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    })
}

/// `SetDeploymentCondition` / `SetCondition`.
pub fn set(conditions: &mut Vec<Value>, mut cond: Value) {
    if let Some(current) = get(conditions, cond["type"].as_str().unwrap_or("")) {
        if current["status"] == cond["status"] && current["reason"] == cond["reason"] {
            return;
        }
        if current["status"] == cond["status"] {
            cond["lastTransitionTime"] = current["lastTransitionTime"].clone();
        }
    }
    remove(conditions, cond["type"].as_str().unwrap_or(""));
    conditions.push(cond);
}

/// Removes the condition of `kind`.
pub fn remove(conditions: &mut Vec<Value>, kind: &str) {
    conditions.retain(|c| c["type"] != kind);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_reason_is_kept_same_status_keeps_its_transition() {
        let mut c = vec![
            new("Available", "True", "A", "m", "t1"),
            new("Progressing", "True", "P", "m", "t1"),
        ];
        set(&mut c, new("Available", "True", "A", "other", "t2"));
        assert_eq!(c[0]["lastUpdateTime"], "t1", "unchanged");
        set(&mut c, new("Available", "True", "B", "m", "t3"));
        assert_eq!(c[1]["type"], "Available", "moved to the end");
        assert_eq!(c[1]["lastTransitionTime"], "t1");
        assert_eq!(c[1]["lastUpdateTime"], "t3");
        set(&mut c, new("Available", "False", "C", "m", "t4"));
        assert_eq!(c[1]["lastTransitionTime"], "t4");
        remove(&mut c, "Progressing");
        assert_eq!(c.len(), 1);
    }
}
