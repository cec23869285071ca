//! The TTL-after-finished controller, as kube-controller-manager's
//! `ttl-after-finished`: a Job with `spec.ttlSecondsAfterFinished` that has finished
//! (its `Complete` or `Failed` condition `True`) is deleted once that many seconds have
//! passed since the condition's `lastTransitionTime` on the server's clock — checked
//! again on the stored Job first, then deleted with foreground propagation (its Pods go
//! before it) and its uid as precondition.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::cache::Informer;
use super::clock::parse_time;
use super::workload::{Api, Next, queue_of, split_key, work_with_clock};
use crate::api::object::{is_deleting, str_at};
use crate::api::request::{DeleteOptions, Propagation};

/// The component its writes come from.
pub const COMPONENT: &str = "ttl-after-finished-controller";
/// Passes running at once (`--concurrent-ttl-after-finished-syncs`).
const WORKERS: usize = 5;

/// When the finished Job expires: `Ok(None)` when it has no TTL, has not finished or is
/// being deleted; an error when its finishing condition has no time.
pub fn expires_at(job: &Value) -> Result<Option<DateTime<Utc>>, String> {
    let Some(ttl) = job
        .pointer("/spec/ttlSecondsAfterFinished")
        .and_then(Value::as_i64)
    else {
        return Ok(None);
    };
    if is_deleting(job) {
        return Ok(None);
    }
    let finished = job
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| {
            matches!(c["type"].as_str(), Some("Complete" | "Failed")) && c["status"] == "True"
        });
    let Some(cond) = finished else {
        return Ok(None);
    };
    let (ns, name) = (
        str_at(job, "/metadata/namespace"),
        str_at(job, "/metadata/name"),
    );
    let at = cond["lastTransitionTime"]
        .as_str()
        .and_then(parse_time)
        .ok_or_else(|| format!("unable to find the time when the Job {ns}/{name} finished"))?;
    Ok(Some(at + TimeDelta::seconds(ttl)))
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Ok(jobs) = api.informer("batch", "jobs") else {
        return;
    };
    let queue = queue_of(&jobs);
    jobs.synced().await;
    // A moved clock may pass a TTL.
    let sync = {
        let (api, jobs) = (api.clone(), jobs.clone());
        move |key: String| {
            let (api, jobs) = (api.clone(), jobs.clone());
            async move { sync(&api, &jobs, &key).await }
        }
    };
    work_with_clock(&api, jobs, queue, WORKERS, sync).await;
}

async fn sync(api: &Api, jobs: &Arc<Informer>, key: &str) -> Result<Next, String> {
    let (ns, name) = split_key(key);
    let Some(job) = jobs.get(ns, name) else {
        return Ok(Next::Done);
    };
    let now = api.clock.now();
    match expires_at(&job)? {
        None => return Ok(Next::Done),
        Some(at) if at > now => {
            return Ok(Next::After(api.clock.until(at) + Duration::from_millis(10)));
        }
        Some(_) => {}
    }
    // The TTL may have changed since the cache saw the Job: the stored one decides.
    let Some(fresh) = api
        .client
        .get(jobs.resource(), Some(ns), name)
        .await
        .map_err(|e| e.message)?
    else {
        return Ok(Next::Done);
    };
    match expires_at(&fresh)? {
        Some(at) if at <= now => {}
        Some(at) => return Ok(Next::After(api.clock.until(at) + Duration::from_millis(10))),
        None => return Ok(Next::Done),
    }
    let options = DeleteOptions {
        propagation: Some(Propagation::Foreground),
        ..DeleteOptions::default()
    };
    api.delete(jobs, &fresh, options)
        .await
        .map(|_| Next::Done)
        .map_err(|e| e.message)
}
