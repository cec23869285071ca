//! The CronJob controller, as kube-controller-manager's `cronjob`
//! (`cronjob_controllerv2.go`, `utils.go`) on the server's clock: at each time its
//! schedule names (in its `timeZone`) a CronJob creates the Job `NAME-<minutes since the
//! epoch>` from its `jobTemplate`, unless it is suspended, the time is more than
//! `startingDeadlineSeconds` past (`MissSchedule`), or a Job still runs and
//! `concurrencyPolicy` is `Forbid` (`Replace` deletes it first). Only the most recent
//! of the times missed since the last run is run (`TooManyMissedTimes` past 100).
//! `status.active` follows its Jobs, `lastScheduleTime` and `lastSuccessfulTime` are
//! kept, and finished Jobs beyond `successfulJobsHistoryLimit` /
//! `failedJobsHistoryLimit` are deleted.

mod schedule;
#[cfg(test)]
mod schedule_tests;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use super::cache::Informer;
use super::clock::parse_time;
use super::workload::resources::{CRON_JOBS, JOBS};
use super::workload::{Api, Next, Reconciler, Wiring, claiming, owners, split_key};
use crate::api::kinds::builtin::batch::cron::parse;
use crate::api::object::{copy_map_at, is_deleting, str_at};
use crate::api::request::{DeleteOptions, Propagation};
use schedule::{Cron, most_recent};

/// The component its events come from.
pub const COMPONENT: &str = "cronjob-controller";
/// Passes running at once (`--concurrent-cron-job-syncs`).
const WORKERS: usize = 5;
/// The annotation holding the time a Job was scheduled for.
const SCHEDULED_AT: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

struct Controller {
    api: Api,
    cronjobs: Arc<Informer>,
    jobs: Arc<Informer>,
}

/// Runs the controller until aborted.
pub async fn run(api: Api) {
    let Some([cronjobs, jobs]) = api.informers([CRON_JOBS, JOBS]) else {
        return;
    };
    let wiring = Wiring::new(&api, &cronjobs, "CronJob").owns(&jobs, false);
    let c = Controller {
        api,
        cronjobs,
        jobs,
    };
    // A moved clock may bring a scheduled time.
    wiring.run_with_clock(WORKERS, c).await;
}

/// `IsJobFinished`: the Job's `Complete` or `Failed` condition, when true.
fn finished(job: &Value) -> Option<&'static str> {
    let conditions = job
        .pointer("/status/conditions")
        .and_then(Value::as_array)?;
    ["Complete", "Failed"].into_iter().find(|kind| {
        conditions
            .iter()
            .any(|c| c["type"] == *kind && c["status"] == "True")
    })
}

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `getTimeHashInMinutes`.
fn job_name(cj: &Value, at: DateTime<Utc>) -> String {
    format!("{}-{}", str_at(cj, "/metadata/name"), at.timestamp() / 60)
}

/// `getJobFromTemplate2`: the Job for the time `at`.
fn job_for(cj: &Value, at: DateTime<Utc>, zone: Option<&str>) -> Value {
    let template = cj.pointer("/spec/jobTemplate").cloned().unwrap_or_default();
    let mut annotations = template
        .pointer("/metadata/annotations")
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    let when = match zone.and_then(|z| jiff::tz::db().get(z).ok()) {
        Some(tz) => jiff::Timestamp::from_second(at.timestamp())
            .map(|t| t.to_zoned(tz).strftime("%Y-%m-%dT%H:%M:%S%:z").to_string())
            .unwrap_or_else(|_| stamp(at)),
        None => stamp(at),
    };
    annotations[SCHEDULED_AT] = json!(when);
    let mut meta = json!({
        "name": job_name(cj, at),
        "namespace": str_at(cj, "/metadata/namespace"),
        "annotations": annotations,
        "ownerReferences": [owners::new_controller_ref(cj)],
    });
    copy_map_at(&mut meta, "labels", &template, "/metadata/labels");
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
    })
}

fn reference(job: &Value) -> Value {
    json!({
        "kind": "Job",
        "namespace": str_at(job, "/metadata/namespace"),
        "name": str_at(job, "/metadata/name"),
        "uid": str_at(job, "/metadata/uid"),
        "apiVersion": "batch/v1",
        "resourceVersion": str_at(job, "/metadata/resourceVersion"),
    })
}

impl Reconciler for Controller {
    async fn sync(&self, key: &str) -> Result<Next, String> {
        let (ns, name) = split_key(key);
        let Some(cj) = self.cronjobs.get(ns, name) else {
            return Ok(Next::Done);
        };
        let uid = str_at(&cj, "/metadata/uid");
        let jobs: Vec<Arc<Value>> = self
            .jobs
            .list(Some(ns))
            .into_iter()
            .filter(|j| owners::controller_ref_to(j, uid))
            .collect();
        let mut status = cj.get("status").cloned().unwrap_or_else(|| json!({}));
        let mut active: Vec<Value> = status
            .get("active")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        // `syncCronJob`'s first part: the active list follows the Jobs.
        for job in &jobs {
            let job_uid = str_at(job, "/metadata/uid");
            let listed = active.iter().any(|a| a["uid"] == job_uid);
            match finished(job) {
                None if !listed => {
                    let msg = format!(
                        "Saw a job that the controller did not create or forgot: {}",
                        str_at(job, "/metadata/name")
                    );
                    self.event(&cj, "Warning", "UnexpectedJob", &msg).await;
                    active.push(reference(job));
                }
                Some(condition) if listed => {
                    active.retain(|a| a["uid"] != job_uid);
                    let msg = format!(
                        "Saw completed job: {}, condition: {condition}",
                        str_at(job, "/metadata/name")
                    );
                    self.event(&cj, "Normal", "SawCompletedJob", &msg).await;
                    let done = str_at(job, "/status/completionTime");
                    let last = str_at(&status, "/lastSuccessfulTime");
                    if condition == "Complete"
                        && !done.is_empty()
                        && parse_time(done) > parse_time(last)
                    {
                        status["lastSuccessfulTime"] = json!(done);
                    }
                }
                _ => {}
            }
        }
        // Jobs gone from the store leave the active list.
        active.retain(|a| jobs.iter().any(|j| str_at(j, "/metadata/uid") == a["uid"]));
        let result = if is_deleting(&cj) {
            Ok(None)
        } else {
            self.schedule(&cj, &mut status, &mut active).await
        };
        let cleaned = if is_deleting(&cj) {
            Ok(())
        } else {
            self.cleanup(&cj, &jobs).await
        };
        if active.is_empty() {
            if let Some(m) = status.as_object_mut() {
                m.remove("active");
            }
        } else {
            status["active"] = Value::Array(active);
        }
        claiming::write_status(&self.api, &self.cronjobs, &cj, |s| *s = status.clone()).await?;
        cleaned?;
        Ok(match result? {
            Some(after) => Next::After(after),
            None => Next::Done,
        })
    }
}

impl Controller {
    /// `syncCronJob`'s second part: runs the most recent unmet time; how long until the
    /// next one (`None`: no next time).
    async fn schedule(
        &self,
        cj: &Value,
        status: &mut Value,
        active: &mut Vec<Value>,
    ) -> Result<Option<Duration>, String> {
        let spec_zone = cj.pointer("/spec/timeZone").and_then(Value::as_str);
        if let Some(z) = spec_zone
            && jiff::tz::db().get(z).is_err()
        {
            let msg = format!("invalid timeZone: {z:?}: unknown time zone {z}");
            self.event(cj, "Warning", "UnknownTimeZone", &msg).await;
            return Ok(None);
        }
        if cj.pointer("/spec/suspend") == Some(&Value::Bool(true)) {
            return Ok(None);
        }
        let text = str_at(cj, "/spec/schedule");
        let cron = match parse(text) {
            Ok(p) => Cron::new(p.schedule, spec_zone.or(p.zone.as_deref())),
            Err(e) => Err(e),
        };
        let cron = match cron {
            Ok(c) => c,
            Err(e) => {
                let msg = format!("unparseable schedule: {text:?} : {e}");
                self.event(cj, "Warning", "UnparseableSchedule", &msg).await;
                return Ok(None);
            }
        };
        let now = self.api.clock.now();
        let until_next = |after: DateTime<Utc>| {
            cron.next(after)
                .map(|n| self.api.clock.until(n) + Duration::from_millis(100))
        };
        let created = parse_time(str_at(cj, "/metadata/creationTimestamp")).unwrap_or(now);
        let last = parse_time(str_at(status, "/lastScheduleTime"));
        let deadline = cj
            .pointer("/spec/startingDeadlineSeconds")
            .and_then(Value::as_i64);
        let mut earliest = last.unwrap_or(created);
        if let Some(d) = deadline {
            earliest = earliest.max(now - chrono::TimeDelta::seconds(d));
        }
        let missed = most_recent(&cron, earliest, now);
        if missed.too_many {
            let msg = "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew";
            self.event(cj, "Warning", "TooManyMissedTimes", msg).await;
        }
        let Some(at) = missed.most_recent else {
            return Ok(until_next(now));
        };
        if let Some(d) = deadline
            && at + chrono::TimeDelta::seconds(d) < now
        {
            let msg = format!(
                "Missed scheduled time to start a job: {}",
                at.format("%a, %d %b %Y %H:%M:%S %z")
            );
            self.event(cj, "Warning", "MissSchedule", &msg).await;
            return Ok(until_next(now));
        }
        let name = job_name(cj, at);
        if active.iter().any(|a| a["name"] == name.as_str()) || last == Some(at) {
            return Ok(until_next(now));
        }
        match str_at(cj, "/spec/concurrencyPolicy") {
            "Forbid" if !active.is_empty() => return Ok(until_next(now)),
            "Replace" => {
                for a in std::mem::take(active) {
                    let job = self.jobs.get(str_at(&a, "/namespace"), str_at(&a, "/name"));
                    if let Some(job) = job {
                        self.delete_job(cj, &job).await?;
                    }
                }
            }
            _ => {}
        }
        let zone = spec_zone.map(str::to_string);
        let job = job_for(cj, at, zone.as_deref());
        match self
            .api
            .create(&self.jobs, str_at(cj, "/metadata/namespace"), job)
            .await
        {
            Ok(job) => {
                let msg = format!("Created job {}", str_at(&job, "/metadata/name"));
                self.event(cj, "Normal", "SuccessfulCreate", &msg).await;
                active.push(reference(&job));
                status["lastScheduleTime"] = json!(stamp(at));
                Ok(until_next(now))
            }
            // Made by someone else, who is taken to have updated the status.
            Err(e) if e.reason == "AlreadyExists" => Ok(until_next(now)),
            Err(e) if e.message.contains("because it is being terminated") => Ok(None),
            Err(e) => {
                let msg = format!("Error creating job: {}", e.message);
                self.event(cj, "Warning", "FailedCreate", &msg).await;
                Err(e.message)
            }
        }
    }

    /// `cleanupFinishedJobs`: the oldest finished Jobs beyond the history limits.
    async fn cleanup(&self, cj: &Value, jobs: &[Arc<Value>]) -> Result<(), String> {
        let limit = |f: &str, default: i64| {
            cj.pointer(&format!("/spec/{f}"))
                .and_then(Value::as_i64)
                .unwrap_or(default)
                .max(0) as usize
        };
        for (condition, keep) in [
            ("Complete", limit("successfulJobsHistoryLimit", 3)),
            ("Failed", limit("failedJobsHistoryLimit", 1)),
        ] {
            let mut done: Vec<&Arc<Value>> = jobs
                .iter()
                .filter(|j| finished(j) == Some(condition) && !is_deleting(j))
                .collect();
            if done.len() <= keep {
                continue;
            }
            // `byJobStartTime`: started ones oldest first, then by name.
            done.sort_by(|a, b| {
                let start = |j: &Value| parse_time(str_at(j, "/status/startTime"));
                match (start(a), start(b)) {
                    (Some(x), Some(y)) if x != y => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    _ => str_at(a, "/metadata/name").cmp(str_at(b, "/metadata/name")),
                }
            });
            let extra = done.len() - keep;
            for job in done.into_iter().take(extra) {
                self.delete_job(cj, job).await?;
            }
        }
        Ok(())
    }

    /// `deleteJob`: in the background (its Pods go after it), with an event.
    async fn delete_job(&self, cj: &Value, job: &Value) -> Result<(), String> {
        let options = DeleteOptions {
            propagation: Some(Propagation::Background),
            ..DeleteOptions::default()
        };
        match self.api.delete(&self.jobs, job, options).await {
            Ok(()) => {
                let msg = format!("Deleted job {}", str_at(job, "/metadata/name"));
                self.event(cj, "Normal", "SuccessfulDelete", &msg).await;
                Ok(())
            }
            Err(e) => {
                let msg = format!("Error deleting job: {}", e.message);
                self.event(cj, "Warning", "FailedDelete", &msg).await;
                Err(e.message)
            }
        }
    }

    async fn event(&self, cj: &Value, kind: &str, reason: &str, message: &str) {
        self.api.event(cj, kind, reason, message, COMPONENT).await;
    }
}
