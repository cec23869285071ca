//! What the generators of crd-server's k8s-pb tables share (tests/protobuf_tables.rs,
//! tests/patch_meta_data.rs): where k8s-pb's sources are, and the served kinds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The OpenAPI definitions of the stored built-in kinds both tables cover.
pub const SERVED_KINDS: &[&str] = &[
    "io.k8s.api.core.v1.ConfigMap",
    "io.k8s.api.core.v1.Secret",
    "io.k8s.api.core.v1.Service",
    "io.k8s.api.core.v1.ServiceAccount",
    "io.k8s.api.core.v1.Endpoints",
    "io.k8s.api.core.v1.Event",
    "io.k8s.api.core.v1.Pod",
    "io.k8s.api.core.v1.PersistentVolumeClaim",
    "io.k8s.api.core.v1.PersistentVolume",
    "io.k8s.api.core.v1.Node",
    "io.k8s.api.core.v1.LimitRange",
    "io.k8s.api.core.v1.ResourceQuota",
    "io.k8s.api.core.v1.Namespace",
    "io.k8s.api.apps.v1.Deployment",
    "io.k8s.api.apps.v1.StatefulSet",
    "io.k8s.api.apps.v1.DaemonSet",
    "io.k8s.api.apps.v1.ReplicaSet",
    "io.k8s.api.apps.v1.ControllerRevision",
    "io.k8s.api.batch.v1.Job",
    "io.k8s.api.batch.v1.CronJob",
    "io.k8s.api.coordination.v1.Lease",
    "io.k8s.api.events.v1.Event",
    "io.k8s.api.networking.v1.Ingress",
    "io.k8s.api.networking.v1.IngressClass",
    "io.k8s.api.networking.v1.NetworkPolicy",
    "io.k8s.api.discovery.v1.EndpointSlice",
    "io.k8s.api.policy.v1.PodDisruptionBudget",
    "io.k8s.api.rbac.v1.Role",
    "io.k8s.api.rbac.v1.RoleBinding",
    "io.k8s.api.rbac.v1.ClusterRole",
    "io.k8s.api.rbac.v1.ClusterRoleBinding",
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
    "io.k8s.api.autoscaling.v1.Scale",
    "io.k8s.api.scheduling.v1.PriorityClass",
    "io.k8s.api.storage.v1.StorageClass",
    "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration",
    "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration",
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy",
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding",
];

/// k8s-pb's `src/`, found through `cargo metadata` (it is a dev-dependency).
pub fn source_dir() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    let manifest = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "k8s-pb")
        .expect("k8s-pb is in the lock file (a dev-dependency of crd-server)")["manifest_path"]
        .as_str()
        .unwrap()
        .to_string();
    Path::new(&manifest).parent().unwrap().join("src")
}
