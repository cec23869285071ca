//! Controller references as `metav1` and `pkg/controller`'s `ControllerRefManager` use
//! them: who controls an object, a new controller reference, and the claim of a
//! controller over the objects its selector matches — keep those it controls and still
//! selects, adopt the orphans it selects, release those it no longer selects.

use serde_json::{Value, json};

use super::pods;
use crate::api::object::{is_deleting, str_at};
use crate::api::selectors::label;
use crate::controllers::cache::{Event, Informer, key_of};

/// The owner reference with `controller: true`, if any.
pub fn controller_ref(obj: &Value) -> Option<&Value> {
    obj.pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)?
        .iter()
        .find(|r| r["controller"] == json!(true))
}

/// Whether the object's controller is the owner of `uid`.
pub fn controller_ref_to(obj: &Value, uid: &str) -> bool {
    controller_ref(obj).is_some_and(|r| r["uid"] == uid)
}

/// `metav1.NewControllerRef`: a reference to `owner` marked as its controller, that
/// blocks the owner's foreground deletion.
pub fn new_controller_ref(owner: &Value) -> Value {
    json!({
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": str_at(owner, "/metadata/name"),
        "uid": str_at(owner, "/metadata/uid"),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// The queue keys (`ns/name`) of the `kind` objects in `owners` that a change of one
/// of their dependents concerns: its controller before and after the change, or — for
/// an orphan still active, when `adopt_orphans` — every owner of its namespace whose
/// selector matches it (upstream's `getPodReplicaSets` and its kin).
pub fn owner_keys(owners: &Informer, kind: &str, e: &Event, adopt_orphans: bool) -> Vec<String> {
    let mut keys = Vec::new();
    for dependent in [e.old.as_deref(), e.new.as_deref()].into_iter().flatten() {
        let ns = str_at(dependent, "/metadata/namespace");
        match controller_ref(dependent) {
            Some(r) if r["kind"] == kind => {
                let name = r["name"].as_str().unwrap_or("");
                keys.push(if ns.is_empty() {
                    name.to_string()
                } else {
                    format!("{ns}/{name}")
                });
            }
            Some(_) => {}
            None if adopt_orphans && pods::is_active(dependent) => {
                let labels = dependent
                    .pointer("/metadata/labels")
                    .and_then(Value::as_object);
                for owner in owners.list(Some(ns)) {
                    let sel = owner.pointer("/spec/selector").unwrap_or(&Value::Null);
                    if !label::is_empty(sel) && label::matches(sel, labels) {
                        keys.push(key_of(&owner));
                    }
                }
            }
            None => {}
        }
    }
    keys.sort();
    keys.dedup();
    keys
}

/// What a claim does with one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Controlled by the owner and selected: it is the owner's.
    Keep,
    /// An orphan the owner selects: made the owner's.
    Adopt,
    /// Controlled by the owner but no longer selected: let go.
    Release,
    /// Nothing to do with the owner.
    Ignore,
}

/// `ClaimObject`'s decision for `candidate` under `owner` with `selector` (a
/// `LabelSelector` object).
pub fn claim(owner: &Value, selector: &Value, candidate: &Value) -> Claim {
    let uid = str_at(owner, "/metadata/uid");
    let labels = candidate
        .pointer("/metadata/labels")
        .and_then(Value::as_object);
    let selected = !label::is_empty(selector) && label::matches(selector, labels);
    match controller_ref(candidate) {
        Some(r) if r["uid"] == uid => {
            if selected {
                Claim::Keep
            } else if is_deleting(owner) {
                // An owner being deleted keeps what it has (it is going anyway).
                Claim::Keep
            } else {
                Claim::Release
            }
        }
        Some(_) => Claim::Ignore,
        None => {
            if selected && !is_deleting(owner) && !is_deleting(candidate) {
                Claim::Adopt
            } else {
                Claim::Ignore
            }
        }
    }
}

/// The candidate with the owner's controller reference added (adoption).
pub fn adopt(candidate: &Value, owner: &Value) -> Option<Value> {
    if controller_ref(candidate).is_some() {
        return None;
    }
    let mut next = candidate.clone();
    let meta = crate::api::object::meta_mut(&mut next);
    let refs = meta.entry("ownerReferences").or_insert_with(|| json!([]));
    if !refs.is_array() {
        *refs = json!([]);
    }
    refs.as_array_mut()?.push(new_controller_ref(owner));
    Some(next)
}

/// The candidate without the owner's reference (release).
pub fn release(candidate: &Value, owner_uid: &str) -> Option<Value> {
    let refs = candidate
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)?;
    if !refs.iter().any(|r| r["uid"] == owner_uid) {
        return None;
    }
    let kept: Vec<Value> = refs
        .iter()
        .filter(|r| r["uid"] != owner_uid)
        .cloned()
        .collect();
    let mut next = candidate.clone();
    let meta = crate::api::object::meta_mut(&mut next);
    if kept.is_empty() {
        meta.remove("ownerReferences");
    } else {
        meta.insert("ownerReferences".into(), Value::Array(kept));
    }
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "web", "uid": "u1"}})
    }

    #[test]
    fn claims_keep_adopt_release_and_ignore() {
        let sel = json!({"matchLabels": {"app": "web"}});
        let mine = json!({"metadata": {"labels": {"app": "web"},
            "ownerReferences": [new_controller_ref(&owner())]}});
        assert_eq!(claim(&owner(), &sel, &mine), Claim::Keep);
        let orphan = json!({"metadata": {"labels": {"app": "web"}}});
        assert_eq!(claim(&owner(), &sel, &orphan), Claim::Adopt);
        let adopted = adopt(&orphan, &owner()).unwrap();
        assert!(controller_ref_to(&adopted, "u1"));
        let relabelled = json!({"metadata": {"labels": {"app": "other"},
            "ownerReferences": [new_controller_ref(&owner())]}});
        assert_eq!(claim(&owner(), &sel, &relabelled), Claim::Release);
        let released = release(&relabelled, "u1").unwrap();
        assert!(controller_ref(&released).is_none());
        let theirs = json!({"metadata": {"labels": {"app": "web"},
            "ownerReferences": [{"uid": "u2", "controller": true}]}});
        assert_eq!(claim(&owner(), &sel, &theirs), Claim::Ignore);
        // An empty selector selects nothing.
        assert_eq!(claim(&owner(), &json!({}), &orphan), Claim::Ignore);
    }
}
