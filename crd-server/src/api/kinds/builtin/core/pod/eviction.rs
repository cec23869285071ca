//! What an eviction takes from the PodDisruptionBudget covering its pod
//! (`checkAndDecrement` of the eviction subresource): a budget the disruption controller
//! has not seen at its generation refuses with 429 and a retry after 10 s, a budget with
//! no disruption left refuses with 429, and otherwise one disruption is taken and the
//! pod recorded in `disruptedPods` until the controller sees it go. An unready pod is
//! let go without taking one when the budget's `unhealthyPodEvictionPolicy` allows it.

use serde_json::{Value, json};

use crate::api::kinds::builtin::core::pod::subresources::budget_violated;
use crate::api::object::str_at;
use crate::api::status::ApiError;

/// `MaxDisruptedPodSize`: evictions not yet confirmed by the controller, at most.
pub const MAX_DISRUPTED_PODS: usize = 2000;

fn int(pdb: &Value, field: &str) -> i64 {
    pdb.pointer(&format!("/status/{field}"))
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

fn refused(pdb: &Value, cause: String, retry_after: u32) -> ApiError {
    let mut e = budget_violated(pdb);
    let mut details = json!({"causes": [{"reason": "DisruptionBudget", "message": cause}]});
    if retry_after > 0 {
        details["retryAfterSeconds"] = json!(retry_after);
    }
    e.details = Some(details);
    e
}

/// Whether an unready pod goes without taking a disruption: the budget's
/// `unhealthyPodEvictionPolicy` is `AlwaysAllow`, or (`IfHealthyBudget`, the default)
/// the budget has the healthy pods it needs.
pub fn unhealthy_may_go(pdb: &Value, pod_ready: bool) -> bool {
    if pod_ready || int(pdb, "observedGeneration") < generation(pdb) {
        return false;
    }
    str_at(pdb, "/spec/unhealthyPodEvictionPolicy") == "AlwaysAllow"
        || (int(pdb, "currentHealthy") >= int(pdb, "desiredHealthy")
            && int(pdb, "desiredHealthy") > 0)
}

fn generation(pdb: &Value) -> i64 {
    pdb.pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Takes one disruption from `pdb` for the eviction of `pod` at `now`, or the refusal.
pub fn take(pdb: &mut Value, pod: &Value, now: &str) -> Result<(), ApiError> {
    let name = str_at(pdb, "/metadata/name").to_string();
    if int(pdb, "observedGeneration") < generation(pdb) {
        let cause = format!("The disruption budget {name} is still being processed by the server.");
        return Err(refused(pdb, cause, 10));
    }
    let allowed = int(pdb, "disruptionsAllowed");
    let forbidden =
        |why: &str| ApiError::forbidden_request("policy", "poddisruptionbudget", &name, why);
    if allowed < 0 {
        return Err(forbidden("pdb disruptions allowed is negative"));
    }
    let disrupted = pdb
        .pointer("/status/disruptedPods")
        .and_then(Value::as_object)
        .map_or(0, |m| m.len());
    if disrupted > MAX_DISRUPTED_PODS {
        return Err(forbidden(
            "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
        ));
    }
    if allowed == 0 {
        let cause = format!(
            "The disruption budget {name} needs {} healthy pods and has {} currently",
            int(pdb, "desiredHealthy"),
            int(pdb, "currentHealthy")
        );
        return Err(refused(pdb, cause, 0));
    }
    pdb["status"]["disruptionsAllowed"] = json!(allowed - 1);
    if !pdb["status"]["disruptedPods"].is_object() {
        pdb["status"]["disruptedPods"] = json!({});
    }
    pdb["status"]["disruptedPods"][str_at(pod, "/metadata/name")] = json!(now);
    Ok(())
}
