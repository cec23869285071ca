//! The status apiextensions-apiserver's controllers give a CRD, computed when it is
//! written: accepted names (unless another CRD of the group holds one of them),
//! `NamesAccepted` and `Established` (never taken back once true), and
//! `storedVersions`; other conditions are kept as their controllers write them.

use crd_runtime::model::CustomResourceDefinition;
use serde_json::{Value, json};

use crate::api::object::{name_of, now};
use crate::api::status::{ApiError, Qualified};
use crate::store::{ListOptions, Store};

/// Where CRDs are stored (kube-apiserver's key).
pub const CRD_PREFIX: &str = "/registry/apiextensions.k8s.io/customresourcedefinitions/";

fn condition(type_: &str, ok: bool, reason: &str, message: &str, now: &str) -> Value {
    json!({"type": type_, "status": if ok { "True" } else { "False" },
           "lastTransitionTime": now, "reason": reason, "message": message})
}

/// The first of `crd`'s names another CRD of its group has accepted.
async fn name_conflict(
    store: &dyn Store,
    q: &Qualified,
    crd: &CustomResourceDefinition,
) -> Result<Option<String>, ApiError> {
    let name = crd.name();
    let others = store
        .list(CRD_PREFIX, ListOptions::default())
        .await
        .map_err(|e| ApiError::from_store(q, name, e))?;
    let names = &crd.spec.names;
    let singular = names.singular.clone().unwrap_or_default();
    let ours: Vec<&String> = std::iter::once(&names.plural)
        .chain(std::iter::once(&singular))
        .chain(names.short_names.iter().flatten())
        .filter(|n| !n.is_empty())
        .collect();
    for kv in &others.items {
        let Ok(other) = crd_runtime::__private::depth::from_json_slice::<Value>(&kv.value) else {
            continue;
        };
        if name_of(&other) == name
            || other.pointer("/spec/group").and_then(Value::as_str) != Some(&crd.spec.group)
        {
            continue;
        }
        let Some(accepted) = other.pointer("/status/acceptedNames") else {
            continue;
        };
        let taken = |field: &str| {
            accepted
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let mut taken_names: Vec<String> = ["plural", "singular"]
            .iter()
            .filter_map(|f| taken(f))
            .collect();
        if let Some(shorts) = accepted.get("shortNames").and_then(Value::as_array) {
            taken_names.extend(shorts.iter().filter_map(|s| s.as_str().map(str::to_string)));
        }
        let mut conflict = None;
        for candidate in &ours {
            if taken_names.contains(candidate) {
                conflict = Some(format!("\"{candidate}\" is already in use"));
            }
        }
        if taken("kind").as_deref() == Some(&names.kind) {
            conflict = Some(format!("\"{}\" is already in use", names.kind));
        }
        if conflict.is_some() {
            return Ok(conflict);
        }
    }
    Ok(None)
}

/// Sets `obj.status` as the naming and establishing controllers would. `stored` is the
/// `storedVersions` to keep (the storage version is added).
pub async fn set_status(
    store: &dyn Store,
    q: &Qualified,
    obj: &mut Value,
    crd: &CustomResourceDefinition,
    old: Option<&Value>,
    mut stored: Vec<String>,
) -> Result<(), ApiError> {
    let conflict = name_conflict(store, q, crd).await?;
    let now = now();
    if let Some(storage) = crd.spec.versions.iter().find(|v| v.storage)
        && !stored.contains(&storage.name)
    {
        stored.push(storage.name.clone());
    }
    let names = &crd.spec.names;
    let mut accepted = serde_json::to_value(names).unwrap_or_else(|_| json!({}));
    if accepted
        .get("singular")
        .is_none_or(|s| s.as_str() == Some(""))
    {
        accepted["singular"] = json!(names.kind.to_lowercase());
    }
    if accepted.get("listKind").is_none() {
        accepted["listKind"] = json!(format!("{}List", names.kind));
    }
    let conditions = match &conflict {
        None => vec![
            condition(
                "NamesAccepted",
                true,
                "NoConflicts",
                "no conflicts found",
                &now,
            ),
            condition(
                "Established",
                true,
                "InitialNamesAccepted",
                "the initial names have been accepted",
                &now,
            ),
        ],
        Some(why) => vec![
            condition(
                "NamesAccepted",
                false,
                "MultipleNamesNotAccepted",
                why,
                &now,
            ),
            condition(
                "Established",
                false,
                "NotAccepted",
                "not all names are accepted",
                &now,
            ),
        ],
    };
    // Conditions whose status did not change keep their transition time.
    let old_conditions = old
        .and_then(|o| o.pointer("/status/conditions"))
        .and_then(Value::as_array);
    let find =
        |type_: &Value| old_conditions.and_then(|cs| cs.iter().find(|p| p["type"] == *type_));
    let mut conditions: Vec<Value> = conditions
        .into_iter()
        .map(|mut c| {
            // The establishing controller never takes `Established` back: a CRD being
            // deleted keeps serving its objects until they are gone.
            if c["type"] == "Established"
                && let Some(prev) = find(&c["type"]).filter(|p| p["status"] == "True")
            {
                return prev.clone();
            }
            if let Some(prev) = find(&c["type"]).filter(|p| p["status"] == c["status"]) {
                c["lastTransitionTime"] = prev["lastTransitionTime"].clone();
            }
            c
        })
        .collect();
    // The other conditions (`Terminating`, set by the CRD finalizer) are written by
    // their controllers through status and kept as written.
    if let Some(written) = obj.pointer("/status/conditions").and_then(Value::as_array) {
        conditions.extend(
            written
                .iter()
                .filter(|c| c["type"] != "NamesAccepted" && c["type"] != "Established")
                .cloned(),
        );
    }
    let accepted = if conflict.is_none() {
        accepted
    } else {
        old.and_then(|o| o.pointer("/status/acceptedNames"))
            .cloned()
            .unwrap_or_else(|| json!({"plural": "", "kind": ""}))
    };
    obj["status"] =
        json!({"conditions": conditions, "acceptedNames": accepted, "storedVersions": stored});
    Ok(())
}

/// The condition that a CRD being deleted waits on its finalizer: `Terminating`.
pub const TERMINATING: &str = "Terminating";

/// Sets a condition as `SetCRDCondition` does: appended when new; otherwise reason
/// and message replaced, the transition time moved only when the status changes.
pub fn set_condition(obj: &mut Value, type_: &str, status: bool, reason: &str, message: &str) {
    let status = if status { "True" } else { "False" };
    set_condition_status(obj, type_, status, reason, message);
}

/// [`set_condition`] with any status (`True`, `False`, `Unknown`): the condition of an
/// object with `status.conditions` (an APIService's too), its transition time moved
/// only when the status does.
pub fn set_condition_status(
    obj: &mut Value,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
) {
    if !obj.get("status").is_some_and(Value::is_object) {
        obj["status"] = json!({});
    }
    if !obj["status"].get("conditions").is_some_and(Value::is_array) {
        obj["status"]["conditions"] = json!([]);
    }
    let Some(conditions) = obj["status"]["conditions"].as_array_mut() else {
        return;
    };
    match conditions.iter_mut().find(|c| c["type"] == type_) {
        None => conditions.push(json!({"type": type_, "status": status,
            "lastTransitionTime": now(), "reason": reason, "message": message})),
        Some(c) => {
            if c["status"] != status || str_or_empty(&c["lastTransitionTime"]).is_empty() {
                c["lastTransitionTime"] = json!(now());
            }
            c["status"] = json!(status);
            c["reason"] = json!(reason);
            c["message"] = json!(message);
        }
    }
}

fn str_or_empty(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// Whether the CRD's condition `type_` is `True`.
pub fn condition_true(obj: &Value, type_: &str) -> bool {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == type_ && c["status"] == "True")
        })
}

/// `status.storedVersions` of a CRD object.
pub fn stored_versions(obj: Option<&Value>) -> Vec<String> {
    obj.and_then(|o| o.pointer("/status/storedVersions"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn crd() -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true}]}})
    }

    fn find<'a>(obj: &'a Value, type_: &str) -> &'a Value {
        obj["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
            .unwrap_or(&Value::Null)
    }

    #[test]
    fn set_condition_appends_then_keeps_the_transition_time_of_the_same_status() {
        let mut obj = crd();
        set_condition(&mut obj, TERMINATING, true, "A", "first");
        obj["status"]["conditions"][0]["lastTransitionTime"] = json!("2020-01-01T00:00:00Z");
        set_condition(&mut obj, TERMINATING, true, "B", "second");
        let c = find(&obj, TERMINATING);
        assert_eq!(
            (c["reason"].as_str(), c["message"].as_str()),
            (Some("B"), Some("second"))
        );
        assert_eq!(c["lastTransitionTime"], "2020-01-01T00:00:00Z");
        set_condition(&mut obj, TERMINATING, false, "C", "third");
        let c = find(&obj, TERMINATING);
        assert_eq!(c["status"], "False");
        assert_ne!(c["lastTransitionTime"], "2020-01-01T00:00:00Z");
        assert_eq!(
            obj["status"]["conditions"].as_array().map(Vec::len),
            Some(1)
        );
    }

    #[tokio::test]
    async fn a_terminating_crd_stays_established_and_keeps_its_other_conditions() {
        let store = MemoryStore::new();
        let q = Qualified {
            group: "apiextensions.k8s.io".into(),
            plural: "customresourcedefinitions".into(),
            kind: "CustomResourceDefinition".into(),
        };
        let typed: CustomResourceDefinition = serde_json::from_value(crd()).unwrap();
        let mut old = crd();
        set_status(&store, &q, &mut old, &typed, None, Vec::new())
            .await
            .unwrap();
        assert_eq!(find(&old, "Established")["status"], "True");
        old["status"]["conditions"][1]["lastTransitionTime"] = json!("2020-01-01T00:00:00Z");
        let mut new = old.clone();
        new["metadata"]["deletionTimestamp"] = json!("2030-01-01T00:00:00Z");
        set_condition(
            &mut new,
            TERMINATING,
            true,
            "InstanceDeletionInProgress",
            "x",
        );
        set_status(&store, &q, &mut new, &typed, Some(&old), vec!["v1".into()])
            .await
            .unwrap();
        assert_eq!(find(&new, "Established"), find(&old, "Established"));
        assert_eq!(
            find(&new, TERMINATING)["reason"],
            "InstanceDeletionInProgress"
        );
        let types: Vec<&str> = new["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["type"].as_str())
            .collect();
        assert_eq!(types, ["NamesAccepted", "Established", TERMINATING]);
    }
}
