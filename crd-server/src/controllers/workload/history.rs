//! ControllerRevisions as `pkg/controller/history` keeps them for StatefulSets and
//! DaemonSets: one revision per distinct template, named `OWNER-HASH`, labelled like
//! the owner's Pods, controlled by the owner and numbered in the order the templates
//! were used — `kubectl rollout history` lists them and `kubectl rollout undo` patches
//! the owner with one's `data`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::owners::{controller_ref_to, new_controller_ref};
use super::{Api, claiming};
use crate::api::kinds::Subresource;
use crate::api::object::{copy_map_at, str_at};
use crate::controllers::cache::Informer;
use crate::controllers::client::Mutation;

/// `HashControllerRevision`: FNV-32 of the revision's data and the collision count
/// (`probe`), encoded without vowels.
pub fn hash(data: &Value, probe: Option<i64>) -> String {
    let mut bytes = serde_json::to_vec(data).unwrap_or_default();
    if let Some(p) = probe {
        bytes.extend_from_slice(p.to_string().as_bytes());
    }
    // FNV-1 (multiply then xor), as Go's hash/fnv.New32.
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h = h.wrapping_mul(0x0100_0193);
        h ^= u32::from(b);
    }
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    h.to_string()
        .bytes()
        .map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char)
        .collect()
}

/// `ControllerRevisionName`: the owner's name (cut to 223 characters) and the hash.
pub fn name(owner: &str, hash: &str) -> String {
    let prefix: String = owner.chars().take(223).collect();
    format!("{prefix}-{hash}")
}

/// `getPatch`: what a revision records of its owner — the template, to be replaced
/// whole (what `kubectl rollout undo` patches the owner with).
pub fn template_patch(owner: &Value) -> Value {
    let mut template = owner.pointer("/spec/template").cloned().unwrap_or_default();
    if !template.is_object() {
        template = json!({});
    }
    template["$patch"] = json!("replace");
    json!({"spec": {"template": template}})
}

/// `ApplyRevision`: the owner with the template a revision records.
pub fn apply(owner: &Value, revision: &Value) -> Value {
    let mut out = owner.clone();
    if let Some(t) = revision.pointer("/data/spec/template") {
        let mut t = t.clone();
        if let Some(m) = t.as_object_mut() {
            m.remove("$patch");
        }
        out["spec"]["template"] = t;
    }
    out
}

/// The revision number of a ControllerRevision.
pub fn number(rev: &Value) -> i64 {
    rev.get("revision").and_then(Value::as_i64).unwrap_or(0)
}

/// The owner's ControllerRevisions, oldest first (by revision, then name).
pub fn controlled(revisions: &Informer, owner: &Value) -> Vec<Arc<Value>> {
    let uid = str_at(owner, "/metadata/uid");
    let mut revs: Vec<Arc<Value>> = revisions
        .list(Some(str_at(owner, "/metadata/namespace")))
        .into_iter()
        .filter(|r| controller_ref_to(r, uid))
        .collect();
    revs.sort_by(|a, b| {
        number(a)
            .cmp(&number(b))
            .then_with(|| str_at(a, "/metadata/name").cmp(str_at(b, "/metadata/name")))
    });
    revs
}

/// `NewControllerRevision` for `owner` with `data`, its template's `labels` (plus
/// `extra` labels) and the owner's annotations (`kubernetes.io/change-cause`, which
/// `kubectl rollout history` prints).
pub fn new_revision(owner: &Value, data: &Value, revision: i64, probe: Option<i64>) -> Value {
    let hash = hash(data, probe);
    let mut labels = owner
        .pointer("/spec/template/metadata/labels")
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    labels["controller-revision-hash"] = json!(hash);
    let mut meta = json!({
        "name": name(str_at(owner, "/metadata/name"), &hash),
        "namespace": str_at(owner, "/metadata/namespace"),
        "labels": labels,
        "ownerReferences": [new_controller_ref(owner)],
    });
    copy_map_at(&mut meta, "annotations", owner, "/metadata/annotations");
    json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": meta,
        "data": data,
        "revision": revision,
    })
}

/// [`ensure`] for the current template of `owner` (a DaemonSet or a StatefulSet, of the
/// informer `owners`): its revision and the collision count its status is to hold.
/// When that fails, the count is written first (the next pass tries the next name).
pub async fn ensure_template(
    api: &Api,
    revisions: &Informer,
    owners: &Informer,
    owner: &Value,
    revs: &[Arc<Value>],
) -> Result<(Value, i64), String> {
    let mut collisions = owner
        .pointer("/status/collisionCount")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let data = template_patch(owner);
    match ensure(api, revisions, owner, &data, revs, &mut collisions).await {
        Ok(revision) => Ok((revision, collisions)),
        Err(e) => {
            claiming::write_status(api, owners, owner, |s| {
                s["collisionCount"] = json!(collisions)
            })
            .await?;
            Err(e)
        }
    }
}

/// The revision of `data` among `revs` (the owner's), made the newest: the newest
/// revision when it has that data, an older one with it renumbered (a rollback), or a
/// new one created. A name taken by other data bumps `collision_count` and fails the
/// pass (as upstream, the next pass tries the next name).
pub async fn ensure(
    api: &Api,
    revisions: &Informer,
    owner: &Value,
    data: &Value,
    revs: &[Arc<Value>],
    collision_count: &mut i64,
) -> Result<Value, String> {
    let next = revs.last().map_or(1, |r| number(r) + 1);
    let ns = str_at(owner, "/metadata/namespace");
    if let Some(equal) = revs.iter().rev().find(|r| r.get("data") == Some(data)) {
        if revs.last().is_some_and(|last| Arc::ptr_eq(last, equal)) {
            return Ok((**equal).clone());
        }
        let written = api
            .update_same(revisions, equal, Subresource::Main, |current| {
                let mut c = current.clone();
                c["revision"] = json!(next);
                Mutation::Write(c)
            })
            .await
            .map_err(|e| e.message)?;
        return written.ok_or_else(|| "the revision to roll back to is gone".to_string());
    }
    let rev = new_revision(owner, data, next, Some(*collision_count));
    match api.create(revisions, ns, rev.clone()).await {
        Ok(created) => Ok(created),
        Err(e) if e.reason == "AlreadyExists" => {
            let taken = revisions.get(ns, str_at(&rev, "/metadata/name"));
            match taken {
                Some(t)
                    if t.get("data") == Some(data)
                        && controller_ref_to(&t, str_at(owner, "/metadata/uid")) =>
                {
                    Ok((*t).clone())
                }
                _ => {
                    *collision_count += 1;
                    Err(format!(
                        "the ControllerRevision name {} is taken: trying another",
                        str_at(&rev, "/metadata/name")
                    ))
                }
            }
        }
        Err(e) => Err(e.message),
    }
}

/// Deletes the oldest revisions beyond `limit` that no live object uses (`live`: the
/// names of the revisions in use).
pub async fn truncate(
    api: &Api,
    revisions: &Informer,
    revs: &[Arc<Value>],
    live: &[&str],
    limit: i64,
) -> Result<(), String> {
    let old: Vec<&Arc<Value>> = revs
        .iter()
        .filter(|r| !live.contains(&str_at(r, "/metadata/name")))
        .collect();
    let extra = old.len().saturating_sub(limit.max(0) as usize);
    for r in old.into_iter().take(extra) {
        api.delete(revisions, r, Default::default())
            .await
            .map_err(|e| e.message)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_named_by_a_hash_of_their_data() {
        let owner = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "web", "namespace": "default", "uid": "u1",
                         "annotations": {"kubernetes.io/change-cause": "v2"}},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}});
        let data = json!({"spec": {"template": {"$patch": "replace"}}});
        let rev = new_revision(&owner, &data, 3, Some(0));
        let h = hash(&data, Some(0));
        assert_eq!(rev["metadata"]["name"], format!("web-{h}"));
        assert_eq!(rev["metadata"]["labels"]["app"], "web");
        assert_eq!(rev["metadata"]["labels"]["controller-revision-hash"], h);
        assert_eq!(
            rev["metadata"]["annotations"]["kubernetes.io/change-cause"],
            "v2"
        );
        assert_eq!(number(&rev), 3);
        assert!(controller_ref_to(&rev, "u1"));
        // Another collision count gives another name; the alphabet has no vowels.
        assert_ne!(hash(&data, Some(1)), h);
        assert!(h.chars().all(|c| !"aeiou".contains(c)));
        assert_eq!(name(&"x".repeat(300), "h").len(), 225);
    }
}
