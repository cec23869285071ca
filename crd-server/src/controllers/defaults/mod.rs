//! What kube-controller-manager puts in every namespace: the `default` ServiceAccount
//! ([`serviceaccount`]) and the `kube-root-ca.crt` ConfigMap ([`root_ca`]). Both follow
//! the namespaces and the one object they keep in each, and put it back when it is
//! deleted (or, for the ConfigMap, changed).

pub mod root_ca;
pub mod serviceaccount;

#[cfg(test)]
mod root_ca_tests;

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::cache::{Event, Informer};
use super::queue::Queue;
use super::workload::{Api, MAX_RETRY, Next, synced, work};
use crate::api::object::str_at;
use crate::api::status::ApiError;

/// Passes running at once.
const WORKERS: usize = 2;

/// Whether a namespace is `Active` (not being deleted).
pub fn active(ns: &Value) -> bool {
    matches!(str_at(ns, "/status/phase"), "Active" | "") && !crate::api::object::is_deleting(ns)
}

/// Whether a create failed only because the namespace is gone or going (not retried).
pub fn namespace_gone(e: &ApiError) -> bool {
    e.code == http::StatusCode::NOT_FOUND || e.message.contains("because it is being terminated")
}

/// Runs `sync` over each namespace added or updated while `Active` (`on_update`:
/// updates count too) and each namespace where an object named `name` of `owned`
/// changes (`changed`: updates count, not only deletions).
pub async fn per_namespace<F, Fut>(
    api: &Api,
    owned: &Arc<Informer>,
    name: &'static str,
    changed: bool,
    sync: F,
) where
    F: Fn(String) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Next, String>> + Send,
{
    let Ok(namespaces) = api.informer("", "namespaces") else {
        return;
    };
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    namespaces.subscribe(Arc::new(move |e: &Event| {
        if let Some(ns) = &e.new
            && (e.old.is_none() || active(ns))
        {
            q.add(e.key.clone());
        }
    }));
    let q = queue.clone();
    owned.subscribe(Arc::new(move |e: &Event| {
        let obj = e.object();
        let deleted = e.new.is_none();
        let updated = e.old.is_some() && e.new.is_some();
        if str_at(obj, "/metadata/name") == name && (deleted || (changed && updated)) {
            q.add(str_at(obj, "/metadata/namespace").to_string());
        }
    }));
    synced(&[&namespaces, owned]).await;
    work(queue, WORKERS, sync).await;
}
