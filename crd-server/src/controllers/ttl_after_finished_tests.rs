use chrono::{TimeDelta, TimeZone, Utc};
use serde_json::json;

use super::ttl_after_finished::expires_at;

fn job(ttl: Option<i64>, condition: &str, status: &str) -> serde_json::Value {
    let mut j = json!({
        "metadata": {"name": "j", "namespace": "ns"},
        "spec": {},
        "status": {"conditions": [
            {"type": condition, "status": status, "lastTransitionTime": "2026-01-01T00:00:00Z"}
        ]},
    });
    if let Some(t) = ttl {
        j["spec"]["ttlSecondsAfterFinished"] = json!(t);
    }
    j
}

#[test]
fn a_finished_job_expires_its_ttl_after_its_condition() {
    let finished = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    assert_eq!(
        expires_at(&job(Some(100), "Complete", "True")),
        Ok(Some(finished + TimeDelta::seconds(100)))
    );
    assert_eq!(
        expires_at(&job(Some(0), "Failed", "True")),
        Ok(Some(finished))
    );
    // No TTL, not finished, or being deleted: nothing to do.
    assert_eq!(expires_at(&job(None, "Complete", "True")), Ok(None));
    assert_eq!(expires_at(&job(Some(5), "Complete", "False")), Ok(None));
    assert_eq!(expires_at(&job(Some(5), "Suspended", "True")), Ok(None));
    let mut going = job(Some(5), "Complete", "True");
    going["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:01Z");
    assert_eq!(expires_at(&going), Ok(None));
    let mut untimed = job(Some(5), "Complete", "True");
    untimed["status"]["conditions"][0]
        .as_object_mut()
        .unwrap()
        .remove("lastTransitionTime");
    assert_eq!(
        expires_at(&untimed),
        Err("unable to find the time when the Job ns/j finished".to_string())
    );
}
