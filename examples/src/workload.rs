//! A Deployment-like operator type whose spec and status embed k8s-openapi types with no
//! attribute (crd-runtime feature `kube`): a label selector, a pod template, resource
//! requirements, an `IntOrString` and `metav1.Condition`s.
//!
//! `Workload::crd()` is written to `examples/workload-crd.yaml` by the golden test
//! (`cargo test -p crd-toolkit-examples --features kube --test workload`).

use std::collections::BTreeMap;

use crd_runtime::{CrdSchema, CustomResource};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::{Deserialize, Serialize};

/// Runs `replicas` copies of a pod template.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(
    group = "apps.example.com",
    version = "v1",
    kind = "Workload",
    namespaced,
    short_names = ["wl"],
    status = WorkloadStatus,
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas"),
    printcolumn(name = "Ready", type = "integer", json_path = ".status.readyReplicas"),
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// Desired number of pods.
    #[crd(minimum = 0, default = 1)]
    pub replicas: i32,
    /// Which pods belong to this workload; must match the template's labels.
    pub selector: LabelSelector,
    /// The pods to run.
    pub template: PodTemplateSpec,
    /// Resources reserved for the workload as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// Pods that may be unavailable during an update: a number or a percentage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
}

/// Observed state of a Workload.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// Pods created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Pods ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
    /// The selector as a string, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The latest observations, one per condition type.
    #[crd(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

impl WorkloadSpec {
    /// A spec running `replicas` pods of `image`, labelled `app: name`.
    pub fn new(name: &str, image: &str, replicas: i32) -> Self {
        let labels = BTreeMap::from([("app".to_string(), name.to_string())]);
        WorkloadSpec {
            replicas,
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "main".into(),
                        image: Some(image.into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            resources: Some(ResourceRequirements {
                requests: Some(BTreeMap::from([(
                    "cpu".to_string(),
                    Quantity("500m".into()),
                )])),
                ..Default::default()
            }),
            max_unavailable: Some(IntOrString::String("25%".into())),
        }
    }
}
