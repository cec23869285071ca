//! kube-scheduler's `VolumeBinding` plugin, as far as crd-server's volumes go: a Pod
//! whose PersistentVolumeClaims are missing, being deleted or unbound (for a class
//! that binds at once) is unschedulable with upstream's PreFilter message; one whose
//! unbound claims wait for their first consumer names the chosen node on them
//! (`volume.kubernetes.io/selected-node`) and is bound once they are.

use serde_json::Value;

use crate::api::object::{is_deleting, str_at};
use crate::controllers::cache::Informer;
use crate::controllers::volumes::class_of;

/// What the Pod's claims allow.
#[derive(Debug, PartialEq, Eq)]
pub enum Claims {
    /// Every claim is bound (or the Pod has none).
    Ready,
    /// These claims (by name) wait for the Pod's node to be chosen.
    WaitForNode(Vec<String>),
    /// The Pod cannot be scheduled: PreFilter's reason.
    Unschedulable(String),
}

/// The claim names of a Pod's volumes (its `persistentVolumeClaim` volumes, and the
/// `<pod>-<volume>` claims of its generic ephemeral volumes).
fn claim_names(pod: &Value) -> Vec<String> {
    let pod_name = str_at(pod, "/metadata/name");
    pod.pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| {
            if let Some(name) = v.pointer("/persistentVolumeClaim/claimName") {
                return name.as_str().map(str::to_string);
            }
            v.get("ephemeral")
                .map(|_| format!("{pod_name}-{}", str_at(v, "/name")))
        })
        .collect()
}

/// Where the Pod's claims stand.
pub fn check(pod: &Value, claims: &Informer, classes: &Informer) -> Claims {
    let ns = str_at(pod, "/metadata/namespace");
    let mut waiting = Vec::new();
    for name in claim_names(pod) {
        let Some(claim) = claims.get(ns, &name) else {
            return Claims::Unschedulable(format!("persistentvolumeclaim \"{name}\" not found"));
        };
        if is_deleting(&claim) {
            return Claims::Unschedulable(format!(
                "persistentvolumeclaim \"{name}\" is being deleted"
            ));
        }
        if !str_at(&claim, "/spec/volumeName").is_empty() {
            continue;
        }
        let class = classes.get("", class_of(&claim));
        let late =
            class.is_some_and(|c| str_at(&c, "/volumeBindingMode") == "WaitForFirstConsumer");
        if !late {
            return Claims::Unschedulable(
                "pod has unbound immediate PersistentVolumeClaims".into(),
            );
        }
        waiting.push(name);
    }
    if waiting.is_empty() {
        Claims::Ready
    } else {
        Claims::WaitForNode(waiting)
    }
}

/// `FitError`'s text for a PreFilter rejection (preemption cannot help it).
pub fn prefilter_error(total: usize, reason: &str) -> String {
    format!(
        "0/{total} nodes are available: {reason}. preemption: 0/{total} nodes are available: {total} Preemption is not helpful for scheduling."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pods_claims_are_its_claim_volumes_and_ephemeral_volumes() {
        let pod = serde_json::json!({"metadata": {"name": "web-0"}, "spec": {"volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
            {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}},
            {"name": "config", "configMap": {"name": "c"}}]}});
        assert_eq!(claim_names(&pod), ["data-web-0", "web-0-scratch"]);
        assert_eq!(
            prefilter_error(2, "pod has unbound immediate PersistentVolumeClaims"),
            "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
        );
    }
}
