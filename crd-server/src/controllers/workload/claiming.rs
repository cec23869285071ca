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
        let (ns, name) = (
            str_at(&obj, "/metadata/namespace"),
            str_at(&obj, "/metadata/name"),
        );
        let same = obj["metadata"]["uid"].clone();
        let written = api
            .update(inf, ns, name, Subresource::Main, |current| {
                if current["metadata"]["uid"] != same {
                    return Mutation::Keep;
                }
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
    let uid = obj["metadata"]["uid"].clone();
    let (ns, name) = (
        str_at(obj, "/metadata/namespace"),
        str_at(obj, "/metadata/name"),
    );
    api.update(inf, ns, name, Subresource::Status, |current| {
        if current["metadata"]["uid"] != uid {
            return Mutation::Keep;
        }
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
