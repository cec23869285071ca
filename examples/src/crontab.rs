//! The CronTab resource of the Kubernetes CRD task page, written in Rust.
//!
//! `CronTab::crd()` is semantically identical to
//! `shared/fixtures/crontab/crd-full.yaml` (the golden test checks it).

use crd_runtime::{CrdSchema, CustomResource};
use serde::{Deserialize, Serialize};

/// A cron job that runs an image.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(
    group = "stable.example.com",
    version = "v1",
    kind = "CronTab",
    namespaced,
    short_names = ["ct"],
    categories = ["all"],
    status = CronTabStatus,
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.labelSelector"
    ),
    printcolumn(
        name = "Spec",
        type = "string",
        json_path = ".spec.cronSpec",
        description = "The cron spec defining the interval a CronJob is run"
    ),
    printcolumn(
        name = "Replicas",
        type = "integer",
        json_path = ".spec.replicas",
        description = "The number of jobs launched by the CronJob"
    ),
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct CronTabSpec {
    /// The cron schedule, five fields.
    #[crd(
        pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$",
        default = "5 0 * * *"
    )]
    pub cron_spec: String,
    /// The image to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// How many jobs run at once.
    #[crd(minimum = 1, maximum = 10, default = 1)]
    pub replicas: i32,
}

/// Observed state of a CronTab.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CronTabStatus {
    /// Replicas currently running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// The label selector of the running pods, for the scale subresource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
}
