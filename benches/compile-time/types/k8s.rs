//! 21 (feature `k8s`): an operator kind whose spec and status embed k8s-openapi types — a
//! label selector, a pod template, resource requirements, an int-or-string and conditions —
//! as kube-rs operators write them. crd-derive reads their schemas through crd-runtime's
//! feature `kube`; kube-derive through k8s-openapi's `schemars` impls.

use k8s_openapi::api::core::v1::{PodTemplateSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::{Deserialize, Serialize};

use crate::{Resource, Schema};

/// Runs `replicas` copies of a pod template.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "apps.example.com", version = "v1",
    kind = "Workload", namespaced, status = OperatorStatus,
    printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "apps.example.com",
        version = "v1",
        kind = "Workload",
        namespaced,
        status = "OperatorStatus",
        printcolumn(name = "Replicas", type_ = "integer", json_path = ".spec.replicas")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct OperatorSpec {
    pub replicas: i32,
    pub selector: LabelSelector,
    pub template: PodTemplateSpec,
    pub resources: Option<ResourceRequirements>,
    pub max_unavailable: Option<IntOrString>,
}

/// Observed state: conditions as metav1 defines them.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct OperatorStatus {
    pub ready_replicas: Option<i32>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}
