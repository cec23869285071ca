//! The `StaticSite` custom resource.

use std::collections::BTreeMap;

use crd_runtime::{CrdSchema, CustomResource};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use serde::{Deserialize, Serialize};

/// A static web site: pages served by `replicas` copies of a web server image.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(
    group = "sites.example.com",
    version = "v1",
    kind = "StaticSite",
    namespaced,
    short_names = ["site"],
    status = StaticSiteStatus,
    printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas"),
    printcolumn(name = "Ready", type = "string", json_path = ".status.conditions[?(@.type==\"Ready\")].status"),
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct StaticSiteSpec {
    /// The web server image; it serves `/usr/share/nginx/html`.
    #[crd(default = "nginx:1.27")]
    pub image: String,
    /// Copies of the web server.
    #[crd(minimum = 0, maximum = 20, default = 1)]
    pub replicas: i32,
    /// File name → content of the pages.
    #[serde(default)]
    pub pages: BTreeMap<String, String>,
}

/// What the operator last saw.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StaticSiteStatus {
    /// The `metadata.generation` the conditions describe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Copies of the web server available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_replicas: Option<i32>,
    /// `Ready`: every copy is available with the current pages.
    #[crd(list_type = "map", list_map_keys = ["type"])]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

impl StaticSite {
    /// The `Ready` condition, when reported.
    pub fn ready(&self) -> Option<&Condition> {
        self.status
            .as_ref()?
            .conditions
            .iter()
            .find(|c| c.type_ == "Ready")
    }
}
