//! A controller's claim over the Pods (or other dependents) it selects, as
//! `ControllerRefManager.ClaimPods`: those it controls and selects are kept, the orphans
//! it selects adopted and those it controls but no longer selects released — each
//! adoption or release written through the dependents' informer — and its status
//! written back only when it changes.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Api;
use super::owners::{self, Claim};
use crate::api::kinds::Subresource;
use crate::api::object::str_at;
use crate::controllers::cache::Informer;
use crate::controllers::client::Mutation;

/// The `candidates` (from `inf`) that `owner` controls after its claim with its
/// `spec.selector`.
pub async fn claim(
    api: &Api,
    inf: &Informer,
    owner: &Value,
    candidates: Vec<Arc<Value>>,
) -> Result<Vec<Arc<Value>>, String> {
    let selector = owner.pointer("/spec/selector").cloned().unwrap_or_default();
    let uid = str_at(owner, "/metadata/uid");
    let mut mine = Vec::new();
    for obj in candidates {
        let decision = owners::claim(owner, &selector, &obj);
        match decision {
            Claim::Keep => {
                mine.push(obj);
                continue;
            }
            Claim::Ignore => continue,
            Claim::Adopt | Claim::Release => {}
        }
        let written = api
            .update_same(inf, &obj, Subresource::Main, |current| {
                let next = match decision {
                    Claim::Adopt => owners::adopt(current, owner),
                    _ => owners::release(current, uid),
                };
                next.map_or(Mutation::Keep, Mutation::Write)
            })
            .await
            .map_err(|e| e.message)?;
        if let Some(o) = written.filter(|o| owners::controller_ref_to(o, uid)) {
            mine.push(Arc::new(o));
        }
    }
    Ok(mine)
}

/// Makes `owner` the controller of `obj` (only while it is the same object): the object
/// written, when `owner` controls it now.
pub async fn adopt(
    api: &Api,
    inf: &Informer,
    owner: &Value,
    obj: &Value,
) -> Result<Option<Value>, String> {
    let written = api
        .update_same(inf, obj, Subresource::Main, |current| {
            owners::adopt(current, owner).map_or(Mutation::Keep, Mutation::Write)
        })
        .await
        .map_err(|e| e.message)?;
    Ok(written.filter(|o| owners::controller_ref_to(o, str_at(owner, "/metadata/uid"))))
}

/// Drops the controller reference to `owner_uid` from the object of `obj`'s name (the
/// reference itself is what is checked, whatever the object's uid).
pub async fn release(
    api: &Api,
    inf: &Informer,
    obj: &Value,
    owner_uid: &str,
) -> Result<(), String> {
    let (ns, name) = (
        str_at(obj, "/metadata/namespace"),
        str_at(obj, "/metadata/name"),
    );
    let mutate = |current: &Value| {
        owners::release(current, owner_uid).map_or(Mutation::Keep, Mutation::Write)
    };
    api.update(inf, ns, name, Subresource::Main, mutate)
        .await
        .map(|_| ())
        .map_err(|e| e.message)
}

/// Writes the status `edit` makes of `obj`'s through its status subresource, when that
/// changes anything (and only while `obj` is the same object).
pub async fn write_status(
    api: &Api,
    inf: &Informer,
    obj: &Value,
    edit: impl Fn(&mut Value),
) -> Result<(), String> {
    let mut next = obj.get("status").cloned().unwrap_or_else(|| json!({}));
    if !next.is_object() {
        next = json!({});
    }
    edit(&mut next);
    if obj.get("status") == Some(&next) {
        return Ok(());
    }
    api.update_same(inf, obj, Subresource::Status, |current| {
        let mut c = current.clone();
        c["status"] = next.clone();
        Mutation::Write(c)
    })
    .await
    .map(|_| ())
    .map_err(|e| e.message)
}

/// Sets each field of `fields` in `status` (a `null` removes it, as an `omitempty`
/// zero value).
pub fn set_fields(status: &mut Value, fields: &Value) {
    for (k, v) in fields.as_object().into_iter().flatten() {
        match status.as_object_mut() {
            Some(m) if v.is_null() => {
                m.remove(k);
            }
            Some(m) => {
                m.insert(k.clone(), v.clone());
            }
            None => {}
        }
    }
}
