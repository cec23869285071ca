//! attemptToDelete (upstream's `attemptToDeleteItem`): an object whose owners are all
//! gone is deleted; one with a solid owner left loses only its dangling references; an
//! owner deleted in the foreground loses its `foregroundDeletion` finalizer once no
//! dependent blocks it. Owners are classified from the graph where it knows them, from
//! the API otherwise; every delete carries the uid (and resourceVersion) it was
//! decided on.

use http::StatusCode;
use serde_json::Value;

use super::graph::Known;
use super::refs::{Identity, OwnerRef};
use super::{Gc, Outcome};
use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{meta_mut, str_at};
use crate::api::request::{DeleteOptions, Propagation};
use crate::api::storage::Target;
use crate::api::write::delete::{self as write_delete, FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::controllers::client::Mutation;

/// What the graph says of the item when the attempt starts.
struct Snapshot {
    identity: Identity,
    observed: bool,
    being_deleted: bool,
    deleting_dependents: bool,
    dependents: usize,
}

/// The object an attempt acts on: who it is, its kind, and the namespace to address
/// it in.
#[derive(Clone, Copy)]
pub(super) struct Object<'a> {
    pub id: &'a Identity,
    pub res: &'a Resource,
    pub ns: Option<&'a str>,
}

/// Why an owner reference could not be classified.
enum Unclassified {
    /// A cluster-scoped object cannot have a namespaced owner: never resolves.
    Invalid,
    /// The kind is not served (yet), or the lookup failed: try again later.
    Retry,
}

/// The object's `metadata.ownerReferences`.
pub(super) fn owner_refs(obj: &Value) -> Vec<OwnerRef> {
    obj.pointer("/metadata/ownerReferences")
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

fn has_finalizer(obj: &Value, finalizer: &str) -> bool {
    obj.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| f.iter().any(|x| x == finalizer))
}

/// Attempts the item of `uid`.
pub(super) async fn attempt(gc: &Gc, uid: &str) -> Outcome {
    let Some(item) = snapshot(gc, uid) else {
        return Outcome::Done;
    };
    // Being deleted is a one-way trip: its dependents are handled when it is gone.
    if item.being_deleted && !item.deleting_dependents {
        return Outcome::Done;
    }
    let Some((res, ns)) = gc.resource(&item.identity) else {
        return Outcome::Retry;
    };
    let id = &item.identity;
    let latest = match gc.client.get(&res, ns.as_deref(), &id.name).await {
        Ok(Some(obj)) if str_at(&obj, "/metadata/uid") == &*id.uid => obj,
        Ok(_) => return vanished(gc, id, &res),
        Err(_) => return Outcome::Retry,
    };
    let obj = Object {
        id,
        res: &res,
        ns: ns.as_deref(),
    };
    let outcome = if item.deleting_dependents {
        finish_foreground(gc, obj).await
    } else {
        collect(gc, &item, obj, &latest).await
    };
    // An owner found through the API but not seen by the informer yet is checked
    // again until it is (or until it is found gone).
    let still_virtual = !item.observed && gc.graph().node(uid).is_some_and(|n| !n.observed());
    if outcome == Outcome::Done && still_virtual {
        return Outcome::Retry;
    }
    outcome
}

fn snapshot(gc: &Gc, uid: &str) -> Option<Snapshot> {
    let g = gc.graph();
    let n = g.node(uid)?;
    Some(Snapshot {
        identity: n.identity.clone(),
        observed: n.observed(),
        being_deleted: n.being_deleted,
        deleting_dependents: n.deleting_dependents,
        dependents: n.dependent_count(),
    })
}

/// The API has no object `id` (upstream's virtual delete event).
fn vanished(gc: &Gc, id: &Identity, res: &Resource) -> Outcome {
    let namespaced = res.info().namespaced;
    let mut absent = id.clone();
    if !namespaced {
        absent.namespace = std::sync::Arc::from("");
    }
    // A namespaced kind named without a namespace (by a cluster-scoped dependent)
    // was never looked up: nothing is known of it.
    let record = !(namespaced && id.namespace.is_empty());
    let actions = gc.graph().absent(&absent, record);
    gc.dispatch(actions);
    Outcome::Done
}

/// Decides the fate of an object with owner references.
async fn collect(gc: &Gc, item: &Snapshot, obj: Object<'_>, latest: &Value) -> Outcome {
    let refs = owner_refs(latest);
    if refs.is_empty() {
        return Outcome::Done;
    }
    let (mut solid, mut dangling, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
    for r in refs {
        match classify(gc, &item.identity, &r).await {
            Ok(Known::Solid) => solid.push(r),
            Ok(Known::Dangling) => dangling.push(r),
            Ok(Known::Waiting) => waiting.push(r),
            Err(Unclassified::Invalid) => return Outcome::Done,
            Err(Unclassified::Retry) => return Outcome::Retry,
        }
    }
    if !solid.is_empty() {
        if dangling.is_empty() && waiting.is_empty() {
            return Outcome::Done;
        }
        // A reference to an owner waiting for its dependents goes too, or that owner
        // would wait for this object forever.
        let uids: Vec<String> = dangling
            .iter()
            .chain(&waiting)
            .map(|r| r.uid.clone())
            .collect();
        return done_if(remove_owner_refs(gc, obj, &uids).await);
    }
    let policy = if !waiting.is_empty() && item.dependents > 0 {
        if dependents_deleting_theirs(gc, &obj.id.uid) && unblock_owner_refs(gc, obj).await.is_err()
        {
            return Outcome::Retry;
        }
        Propagation::Foreground
    } else if has_finalizer(latest, ORPHAN_FINALIZER) {
        Propagation::Orphan
    } else if has_finalizer(latest, FOREGROUND_FINALIZER) {
        Propagation::Foreground
    } else {
        Propagation::Background
    };
    delete(gc, obj, latest, policy).await
}

/// Whether a dependent of `uid` itself waits for its dependents: deleting `uid` in the
/// foreground could then wait on a cycle (upstream's conservative check).
fn dependents_deleting_theirs(gc: &Gc, uid: &str) -> bool {
    let g = gc.graph();
    g.node(uid).is_some_and(|n| {
        n.dependents()
            .any(|d| g.node(d).is_some_and(|d| d.deleting_dependents))
    })
}

fn done_if(r: Result<(), ()>) -> Outcome {
    match r {
        Ok(()) => Outcome::Done,
        Err(()) => Outcome::Retry,
    }
}

/// Classifies one owner reference of `dependent` (upstream's `isDangling` and
/// `classifyReferences`).
async fn classify(gc: &Gc, dependent: &Identity, r: &OwnerRef) -> Result<Known, Unclassified> {
    if gc.graph().is_absent(r, &dependent.namespace) {
        return Ok(Known::Dangling);
    }
    let registry = &gc.shared().registry;
    let Some(owner_res) = registry.resolve_kind(&r.api_version, &r.kind) else {
        return Err(Unclassified::Retry);
    };
    let namespaced = owner_res.info().namespaced;
    if namespaced && dependent.namespace.is_empty() {
        return Err(Unclassified::Invalid);
    }
    if let Some(known) = gc.graph().known(r, &dependent.namespace, namespaced) {
        return Ok(known);
    }
    let ns = namespaced.then_some(&*dependent.namespace);
    let owner = match gc.client.get(&owner_res, ns, &r.name).await {
        Ok(o) => o,
        Err(_) => return Err(Unclassified::Retry),
    };
    match owner {
        // A reference with the right name but another uid is not the owner.
        Some(o) if str_at(&o, "/metadata/uid") == r.uid => {
            let deleting = o
                .pointer("/metadata/deletionTimestamp")
                .is_some_and(|t| !t.is_null());
            Ok(if deleting && has_finalizer(&o, FOREGROUND_FINALIZER) {
                Known::Waiting
            } else {
                Known::Solid
            })
        }
        _ => {
            gc.graph().record_absent(r.identity(ns.unwrap_or("")));
            Ok(Known::Dangling)
        }
    }
}

/// Deletes the item with `policy`, only as it was read: same uid, and same
/// resourceVersion unless only its owner references stayed the same.
async fn delete(gc: &Gc, obj: Object<'_>, latest: &Value, policy: Propagation) -> Outcome {
    let Object { id, res, ns } = obj;
    let mut options = DeleteOptions {
        precondition_uid: Some(id.uid.to_string()),
        precondition_resource_version: Some(str_at(latest, "/metadata/resourceVersion").into()),
        propagation: Some(policy),
        ..DeleteOptions::default()
    };
    let t = Target {
        res,
        ns,
        name: &id.name,
    };
    let shared = gc.shared();
    let mut result = write_delete::delete(shared, t, &options).await;
    if matches!(&result, Err(e) if e.code == StatusCode::CONFLICT) {
        // Written meanwhile: still ours to delete if its owners are as decided on.
        match gc.client.get(res, ns, &id.name).await {
            Ok(Some(live))
                if str_at(&live, "/metadata/uid") == &*id.uid
                    && owner_refs(&live) == owner_refs(latest) =>
            {
                options.precondition_resource_version = None;
                result = write_delete::delete(shared, t, &options).await;
            }
            Ok(Some(live)) if str_at(&live, "/metadata/uid") == &*id.uid => {
                return Outcome::Retry;
            }
            Ok(_) => return vanished(gc, id, res),
            Err(_) => return Outcome::Retry,
        }
    }
    match result {
        Ok(_) => Outcome::Done,
        Err(e) if e.code == StatusCode::NOT_FOUND => vanished(gc, id, res),
        Err(_) => Outcome::Retry,
    }
}

/// An owner deleted in the foreground: done once no dependent blocks it.
async fn finish_foreground(gc: &Gc, obj: Object<'_>) -> Outcome {
    let blocking = gc.graph().node(&obj.id.uid).map_or(0, |n| n.blocking());
    if blocking > 0 {
        // Its blocking dependents were queued when its deletion started, or when they
        // appeared; each one's removal brings the owner back here.
        return Outcome::Done;
    }
    done_if(remove_finalizer(gc, obj, FOREGROUND_FINALIZER).await)
}

/// Removes `finalizer` from the object (if it is still that object).
pub(super) async fn remove_finalizer(gc: &Gc, obj: Object<'_>, finalizer: &str) -> Result<(), ()> {
    update_meta(gc, obj, |meta| {
        retain_in(meta, "finalizers", |f| f != finalizer)
    })
    .await
}

/// Removes the references to `uids` from the object.
pub(super) async fn remove_owner_refs(gc: &Gc, obj: Object<'_>, uids: &[String]) -> Result<(), ()> {
    update_meta(gc, obj, |meta| {
        retain_in(meta, "ownerReferences", |r| {
            !uids.iter().any(|u| r["uid"] == u.as_str())
        })
    })
    .await
}

/// Keeps the items of the list `field` that `keep`, dropping the field once empty;
/// answers whether anything went.
fn retain_in(
    meta: &mut serde_json::Map<String, Value>,
    field: &str,
    keep: impl FnMut(&Value) -> bool,
) -> bool {
    let Some(Value::Array(list)) = meta.get_mut(field) else {
        return false;
    };
    let before = list.len();
    list.retain(keep);
    let changed = list.len() != before;
    if list.is_empty() {
        meta.remove(field);
    }
    changed
}

/// Sets `blockOwnerDeletion: false` on the object's references that block.
async fn unblock_owner_refs(gc: &Gc, obj: Object<'_>) -> Result<(), ()> {
    update_meta(gc, obj, |meta| {
        let Some(Value::Array(list)) = meta.get_mut("ownerReferences") else {
            return false;
        };
        let mut changed = false;
        for r in list.iter_mut().filter(|r| r["blockOwnerDeletion"] == true) {
            r["blockOwnerDeletion"] = Value::Bool(false);
            changed = true;
        }
        changed
    })
    .await
}

/// Updates the metadata of the object `id` with `edit` (which answers whether it
/// changed anything); an object of another uid is left alone, a missing one is fine.
async fn update_meta(
    gc: &Gc,
    Object { id, res, ns }: Object<'_>,
    mut edit: impl FnMut(&mut serde_json::Map<String, Value>) -> bool,
) -> Result<(), ()> {
    let updated = gc
        .client
        .update(res, ns, &id.name, Subresource::Main, |current| {
            if str_at(current, "/metadata/uid") != &*id.uid {
                return Mutation::Keep;
            }
            let mut next = current.clone();
            if edit(meta_mut(&mut next)) {
                Mutation::Write(next)
            } else {
                Mutation::Keep
            }
        })
        .await;
    updated.map(|_| ()).map_err(|_| ())
}
