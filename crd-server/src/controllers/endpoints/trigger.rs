//! `endpoints.kubernetes.io/last-change-trigger-time`, as
//! `pkg/controller/util/endpoint`'s `TriggerTimeTracker`: the time of the oldest change
//! not yet published — a pod's readiness changing (its `Ready` condition's
//! `lastTransitionTime`) or the Service being (re)created.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use super::member;
use crate::api::object::str_at;
use crate::controllers::workload::pods;

/// The annotation.
pub const ANNOTATION: &str = "endpoints.kubernetes.io/last-change-trigger-time";

#[derive(Default)]
struct Seen {
    service: String,
    pods: HashMap<String, String>,
}

/// What each Service's last pass saw.
#[derive(Default)]
pub struct Tracker {
    seen: Mutex<HashMap<String, Seen>>,
}

/// A pod's trigger time: when its readiness last changed, or when it was created.
fn pod_time(pod: &Value) -> String {
    match pods::condition(pod, "Ready").and_then(|c| c["lastTransitionTime"].as_str()) {
        Some(t) => t.to_string(),
        None => str_at(pod, "/metadata/creationTimestamp").to_string(),
    }
}

impl Tracker {
    /// The oldest change among the Service and its pods since the last call for it
    /// (`None`: nothing changed that has a time).
    pub fn compute(
        &self,
        key: &str,
        svc: &Value,
        selected: &[std::sync::Arc<Value>],
    ) -> Option<String> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let state = seen.entry(key.to_string()).or_default();
        let mut oldest: Option<String> = None;
        let mut take = |t: &str| {
            if !t.is_empty() && oldest.as_deref().is_none_or(|o| t < o) {
                oldest = Some(t.to_string());
            }
        };
        let svc_time = str_at(svc, "/metadata/creationTimestamp");
        if state.service != svc_time {
            take(svc_time);
            state.service = svc_time.to_string();
        }
        let mut now = HashMap::new();
        for pod in selected.iter().filter(|p| member::listed(p, true)) {
            let t = pod_time(pod);
            let name = str_at(pod, "/metadata/name").to_string();
            if state.pods.get(&name) != Some(&t) {
                take(&t);
            }
            now.insert(name, t);
        }
        state.pods = now;
        oldest
    }

    /// Forgets a deleted Service.
    pub fn forget(&self, key: &str) {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }
}
