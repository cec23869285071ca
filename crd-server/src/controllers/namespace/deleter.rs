//! One pass of the namespace controller over a namespace being deleted, as
//! kube-controller-manager's namespaced-resources deleter: mark it `Terminating`,
//! delete every namespaced object in it (background propagation, each honouring its
//! own finalizers), count what remains, report it in the namespace's conditions, and
//! once nothing remains give up the `kubernetes` finalizer through `finalize` — the
//! namespace goes with that write when no other finalizer holds it.

use std::collections::{BTreeSet, HashSet};

use serde_json::{Value, json};

use super::conditions::{self, Report};
use crate::api::kinds::builtin::core::namespace::{KUBERNETES_FINALIZER, spec_finalizer_names};
use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{is_deleting, now, str_at};
use crate::api::request::Propagation;
use crate::api::status::ApiError;
use crate::controllers::client::{Client, Mutation};
use crate::store::{ListOptions, Revision};

/// What a pass left to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing: the namespace is gone, not being deleted, or finalized by us.
    Done,
    /// Objects wait on their finalizers: pass again once anything changes under these
    /// list prefixes (each watched from the revision it was last listed at).
    Waiting(Vec<(String, Revision)>),
    /// Something failed: pass again after a back-off.
    Failed(String),
}

/// The namespaced kinds whose objects are deleted: one served version per storage
/// prefix, of the kinds that can be deleted.
fn deletable_kinds(client: &Client) -> Vec<Resource> {
    let mut prefixes = HashSet::new();
    client
        .shared()
        .registry
        .resources()
        .into_iter()
        .filter(|r| {
            let info = r.info();
            info.namespaced
                && info.verbs.contains(&"delete")
                && prefixes.insert(info.prefix.clone())
        })
        .collect()
}

/// The finalizers of a stored object, decoding nothing else.
fn finalizers_of(value: &[u8]) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Object {
        #[serde(default)]
        metadata: Meta,
    }
    #[derive(Default, serde::Deserialize)]
    struct Meta {
        #[serde(default)]
        finalizers: Option<Vec<String>>,
    }
    crd_runtime::__private::depth::from_json_slice::<Object>(value)
        .ok()
        .and_then(|o| o.metadata.finalizers)
        .unwrap_or_default()
}

/// What is left of one kind after its deletion: `None` when nothing is.
struct Left {
    prefix: String,
    revision: Revision,
    count: usize,
    finalizers: Vec<String>,
}

/// Deletes every object of `res` in `ns`, then lists what is left.
async fn delete_kind(client: &Client, res: &Resource, ns: &str) -> Result<Option<Left>, String> {
    let info = res.info();
    let prefix = info.list_prefix(Some(ns));
    let store = &client.shared().store;
    let listed = store
        .list(&prefix, ListOptions::default())
        .await
        .map_err(|e| ApiError::from_store(&info.q, "", e).message)?;
    for kv in &listed.items {
        let Some(name) = kv.key.strip_prefix(prefix.as_str()) else {
            continue;
        };
        client
            .delete(res, Some(ns), name, Some(Propagation::Background), None)
            .await
            .map_err(|e| e.message)?;
    }
    if listed.items.is_empty() {
        return Ok(None);
    }
    let left = store
        .list(&prefix, ListOptions::default())
        .await
        .map_err(|e| ApiError::from_store(&info.q, "", e).message)?;
    if left.items.is_empty() {
        return Ok(None);
    }
    let finalizers: Vec<String> = left
        .items
        .iter()
        .flat_map(|kv| finalizers_of(&kv.value))
        .collect();
    Ok(Some(Left {
        prefix,
        revision: left.revision,
        count: left.items.len(),
        finalizers,
    }))
}

/// Deletes the namespace's content; what remains, and where to watch for it to go.
async fn delete_all_content(client: &Client, ns: &str) -> (Report, Vec<(String, Revision)>) {
    let mut report = Report::default();
    let mut watch = Vec::new();
    for res in deletable_kinds(client) {
        let info = res.info();
        let left = match delete_kind(client, &res, ns).await {
            Ok(Some(left)) => left,
            Ok(None) => continue,
            Err(e) => {
                report.content_errors.push(e);
                continue;
            }
        };
        report
            .remaining
            .insert(format!("{}.{}", info.q.plural, info.q.group), left.count);
        if left.finalizers.is_empty() {
            // Deleted, yet here without a finalizer: created meanwhile.
            report.content_errors.push(format!(
                "unexpected items still remain in namespace: {ns} for gvr: {}/{}, Resource={}",
                info.q.group, info.version, info.q.plural
            ));
        }
        for f in left.finalizers {
            *report.finalizers.entry(f).or_default() += 1;
        }
        watch.push((left.prefix, left.revision));
    }
    (report, watch)
}

/// One pass over the namespace `name`.
pub async fn sync(client: &Client, name: &str) -> Outcome {
    match try_sync(client, name).await {
        Ok(outcome) => outcome,
        Err(e) => Outcome::Failed(e.message),
    }
}

async fn try_sync(client: &Client, name: &str) -> Result<Outcome, ApiError> {
    let Some(namespaces) = client.shared().registry.resolve("", "v1", "namespaces") else {
        return Ok(Outcome::Done);
    };
    let Some(ns) = client.get(&namespaces, None, name).await? else {
        return Ok(Outcome::Done);
    };
    if !is_deleting(&ns) {
        return Ok(Outcome::Done);
    }
    let uid = str_at(&ns, "/metadata/uid").to_string();
    // Every write below is of this namespace: a namespace of the same name created
    // since is another one, left alone.
    let same = |current: &Value| str_at(current, "/metadata/uid") == uid && is_deleting(current);
    if str_at(&ns, "/status/phase") != "Terminating" {
        client
            .update(&namespaces, None, name, Subresource::Status, |current| {
                if !same(current) || str_at(current, "/status/phase") == "Terminating" {
                    return Mutation::Keep;
                }
                let mut next = current.clone();
                next["status"]["phase"] = json!("Terminating");
                Mutation::Write(next)
            })
            .await?;
    }
    if spec_finalizer_names(&ns).is_empty() {
        return Ok(Outcome::Done);
    }
    let (report, watch) = delete_all_content(client, name).await;
    // Always brought up to date: a condition that failed before may be clear now.
    let at = now();
    client
        .update(&namespaces, None, name, Subresource::Status, |current| {
            let mut next = current.clone();
            if same(current) && conditions::apply(&mut next, &report, &at) {
                Mutation::Write(next)
            } else {
                Mutation::Keep
            }
        })
        .await?;
    if !report.content_errors.is_empty() {
        return Ok(Outcome::Failed(report.content_errors.join(", ")));
    }
    if report.content_remains() {
        return Ok(Outcome::Waiting(watch));
    }
    client
        .update(&namespaces, None, name, Subresource::Finalize, |current| {
            if !same(current) {
                return Mutation::Keep;
            }
            // The remaining finalizers as a sorted set, as the controller writes them.
            let rest: BTreeSet<&str> = spec_finalizer_names(current)
                .into_iter()
                .filter(|f| *f != KUBERNETES_FINALIZER)
                .collect();
            let mut next = current.clone();
            next["spec"]["finalizers"] = json!(rest);
            if next == *current {
                Mutation::Keep
            } else {
                Mutation::Write(next)
            }
        })
        .await?;
    Ok(Outcome::Done)
}
