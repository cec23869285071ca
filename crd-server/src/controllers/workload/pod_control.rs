//! Creating and deleting a controller's Pods as `pkg/controller`'s `RealPodControl`
//! does for every workload controller: creates in slow-start batches, and an event on
//! the owner for each Pod created, deleted or refused.

use std::sync::Arc;

use futures::future::join_all;
use serde_json::Value;

use super::Api;
use crate::api::object::str_at;
use crate::api::request::DeleteOptions;
use crate::controllers::cache::Informer;

/// Creates `pods` (each already made from `owner`'s template) in `owner`'s namespace,
/// in batches of 1, 2, 4, … as `slowStartBatch`: a batch with a failure ends it and the
/// first failure is returned. While the namespace terminates every create would fail,
/// so the first such refusal ends it quietly.
pub async fn create_pods(
    api: &Api,
    pods_informer: &Informer,
    owner: &Value,
    component: &str,
    pods: Vec<Value>,
) -> Result<(), String> {
    let ns = str_at(owner, "/metadata/namespace");
    let mut pods = pods.into_iter().peekable();
    let mut batch = 1;
    while pods.peek().is_some() {
        let creates = pods
            .by_ref()
            .take(batch)
            .map(|pod| api.create(pods_informer, ns, pod));
        let mut failure = None;
        for result in join_all(creates).await {
            match result {
                Ok(pod) => {
                    let msg = format!("Created pod: {}", str_at(&pod, "/metadata/name"));
                    api.event(owner, "Normal", "SuccessfulCreate", &msg, component)
                        .await;
                }
                Err(e) if e.message.contains("because it is being terminated") => {
                    return Ok(());
                }
                Err(e) => {
                    let msg = format!("Error creating: {}", e.message);
                    api.event(owner, "Warning", "FailedCreate", &msg, component)
                        .await;
                    failure.get_or_insert(e.message);
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        batch *= 2;
    }
    Ok(())
}

/// Deletes `doomed` at once (each only while it has the same uid); the first failure is
/// returned once all have been tried.
pub async fn delete_pods(
    api: &Api,
    pods_informer: &Informer,
    owner: &Value,
    component: &str,
    doomed: &[Arc<Value>],
) -> Result<(), String> {
    let deletes = doomed
        .iter()
        .map(|p| api.delete(pods_informer, p, DeleteOptions::default()));
    let mut failure = None;
    for (pod, result) in doomed.iter().zip(join_all(deletes).await) {
        match result {
            Ok(()) => {
                let msg = format!("Deleted pod: {}", str_at(pod, "/metadata/name"));
                api.event(owner, "Normal", "SuccessfulDelete", &msg, component)
                    .await;
            }
            Err(e) => {
                let msg = format!("Error deleting: {}", e.message);
                api.event(owner, "Warning", "FailedDelete", &msg, component)
                    .await;
                failure.get_or_insert(e.message);
            }
        }
    }
    failure.map_or(Ok(()), Err)
}
