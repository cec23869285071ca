//! Which Stage a Pod is at, as kwok's lifecycle decides it: the stages whose selector
//! matches, one of them by weight, and when it is due (its delay and jitter on the
//! server's clock, counted from when the Pod was first seen matching it). The stages
//! are the kubelet's own ([`StageSet`]: kwok's defaults or `--stages`) and the Stage
//! objects of the server, which replace one of the same name and take effect at once.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::api::object::str_at;
use crate::controllers::cache::Informer;
use crate::controllers::clock::parse_time;
use crate::stages::{Delay, Stage, StageSet};

/// A server Stage as last parsed: its resourceVersion, and the stage if it is valid.
type Parsed = (String, Option<Arc<Stage>>);

/// The stages and the Pods' due times.
pub struct Lifecycle {
    base: Vec<Arc<Stage>>,
    objects: Mutex<Option<Arc<Informer>>>,
    /// Server Stages parsed, by name.
    parsed: Mutex<HashMap<String, Parsed>>,
    /// (Pod uid, stage name) → when the stage is due.
    due: Mutex<HashMap<(String, String), DateTime<Utc>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Lifecycle {
    pub fn new(set: &StageSet) -> Lifecycle {
        Lifecycle {
            base: set.stages().into_iter().map(Arc::new).collect(),
            objects: Mutex::new(None),
            parsed: Mutex::new(HashMap::new()),
            due: Mutex::new(HashMap::new()),
        }
    }

    /// Reads the server's Stage objects from now on.
    pub fn watch(&self, stages: Arc<Informer>) {
        *lock(&self.objects) = Some(stages);
    }

    /// Every stage, the server's replacing the kubelet's of the same name, by name.
    pub fn stages(&self) -> Vec<Arc<Stage>> {
        let mut out: Vec<Arc<Stage>> = self.base.clone();
        let Some(inf) = lock(&self.objects).clone() else {
            return out;
        };
        let mut parsed = lock(&self.parsed);
        let objects = inf.list(None);
        parsed.retain(|name, _| objects.iter().any(|o| str_at(o, "/metadata/name") == name));
        for obj in objects {
            let name = str_at(&obj, "/metadata/name").to_string();
            let rv = str_at(&obj, "/metadata/resourceVersion").to_string();
            let entry = parsed.entry(name.clone()).or_insert((String::new(), None));
            if entry.0 != rv || rv.is_empty() {
                // Validated at create: one that no longer parses is not run.
                *entry = (rv, Stage::parse(&obj).ok().map(Arc::new));
            }
            if let Some(stage) = &entry.1 {
                out.retain(|s| s.name != name);
                out.push(stage.clone());
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The stage `pod` is at: among those matching, one chosen by weight (stable for
    /// one version of the Pod).
    pub fn choose(&self, pod: &Value) -> Option<Arc<Stage>> {
        let matching: Vec<Arc<Stage>> = self
            .stages()
            .into_iter()
            .filter(|s| s.kind == "Pod" && s.selector.matches(pod))
            .collect();
        let weights: Vec<u64> = matching
            .iter()
            .map(|s| s.weight_for(pod).max(0) as u64)
            .collect();
        let total: u64 = weights.iter().sum();
        if total == 0 {
            return matching.into_iter().next();
        }
        let mut pick = seed(pod, "weight") % total;
        for (stage, w) in matching.into_iter().zip(weights) {
            if pick < w {
                return Some(stage);
            }
            pick -= w;
        }
        None
    }

    /// When `stage` is due for `pod` (now when it has no delay).
    pub fn due_at(&self, stage: &Stage, pod: &Value, now: DateTime<Utc>) -> DateTime<Utc> {
        let Some(delay) = &stage.delay else {
            return now;
        };
        let uid = str_at(pod, "/metadata/uid").to_string();
        let mut due = lock(&self.due);
        // A Pod matches one stage at a time: the others it was waiting for are over.
        due.retain(|(u, s), _| *u != uid || *s == stage.name);
        *due.entry((uid, stage.name.clone()))
            .or_insert_with(|| now + delay_of(delay, pod, now))
    }

    /// The stage ran (or the Pod is gone): its wait is over.
    pub fn done(&self, uid: &str) {
        lock(&self.due).retain(|(u, _), _| u != uid);
    }
}

/// A number fixed for one version of `pod` (kwok draws at random; a fixed draw keeps
/// a Pod from changing its mind between passes).
fn seed(pod: &Value, salt: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        str_at(pod, "/metadata/uid"),
        str_at(pod, "/metadata/resourceVersion"),
        salt,
    )
        .hash(&mut h);
    h.finish()
}

/// A `*From` value: a time (the wait until it) or a Go duration (`10s`, `1m30s`).
fn from_text(text: &str, now: DateTime<Utc>) -> Option<chrono::Duration> {
    if let Some(at) = parse_time(text) {
        return Some((at - now).max(chrono::Duration::zero()));
    }
    crate::duration::parse_duration(text)
        .ok()
        .and_then(|d| chrono::Duration::from_std(d).ok())
}

/// kwok's delay: `durationFrom` (else `durationMilliseconds`), and with a jitter, a
/// draw between the two (the jitter alone when it is the shorter).
pub fn delay_of(delay: &Delay, pod: &Value, now: DateTime<Utc>) -> chrono::Duration {
    let ms = chrono::Duration::milliseconds;
    let base = delay
        .duration_from
        .as_ref()
        .and_then(|q| q.first_text(pod))
        .and_then(|t| from_text(&t, now))
        .unwrap_or_else(|| ms(delay.duration_ms));
    let jitter = delay
        .jitter_from
        .as_ref()
        .and_then(|q| q.first_text(pod))
        .and_then(|t| from_text(&t, now))
        .or_else(|| delay.jitter_ms.map(ms));
    match jitter {
        None => base,
        Some(j) if j < base => j,
        Some(j) => {
            let span = (j - base).num_milliseconds().max(1) as u64;
            base + ms((seed(pod, "jitter") % span) as i64)
        }
    }
}

/// The Pod's status with a stage's rendered status put in place: its fields replace
/// the current ones, conditions merge by type (kube's strategic merge of Pod status).
pub fn merge_status(current: &Value, rendered: &Value) -> Value {
    let mut status: Map<String, Value> = current.as_object().cloned().unwrap_or_default();
    for (k, v) in rendered.as_object().into_iter().flatten() {
        if k == "conditions"
            && let (Some(new), Some(old)) = (v.as_array(), status.get(k).and_then(Value::as_array))
        {
            let mut merged: Vec<Value> = old
                .iter()
                .filter(|c| !new.iter().any(|n| n["type"] == c["type"]))
                .cloned()
                .collect();
            merged.extend(new.iter().cloned());
            status.insert(k.clone(), Value::Array(merged));
            continue;
        }
        status.insert(k.clone(), v.clone());
    }
    Value::Object(status)
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
