//! Monitoring kinds: AlertGroup and Dashboard (12, 13).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Resource, Schema};

// 12 -------------------------------------------------------------------------------------
/// How bad an alert is.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

/// One alerting rule.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AlertRule {
    pub alert: String,
    pub expr: String,
    pub r#for: Option<String>,
    pub severity: Severity,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// A group of alerting rules.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "monitoring.example.com", version = "v1", kind = "AlertGroup",
    namespaced, categories = ["monitoring"]))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "monitoring.example.com",
        version = "v1",
        kind = "AlertGroup",
        namespaced,
        category = "monitoring"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct AlertGroupSpec {
    pub interval: Option<String>,
    #[cfg_attr(feature = "ours", crd(min_items = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub rules: Vec<AlertRule>,
}

// 13 -------------------------------------------------------------------------------------
/// A panel of a dashboard.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Panel {
    pub title: String,
    pub query: String,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 24))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 24)))]
    pub width: u8,
    pub unit: Option<String>,
}

/// A monitoring dashboard.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "monitoring.example.com", version = "v1", kind = "Dashboard",
    namespaced, categories = ["monitoring"],
    printcolumn(name = "Folder", type = "string", json_path = ".spec.folder")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "monitoring.example.com",
        version = "v1",
        kind = "Dashboard",
        namespaced,
        category = "monitoring",
        printcolumn(name = "Folder", type_ = "string", json_path = ".spec.folder")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct DashboardSpec {
    pub folder: Option<String>,
    #[serde(default)]
    pub panels: Vec<Panel>,
    #[serde(default)]
    pub variables: BTreeMap<String, Vec<String>>,
    pub refresh: Option<String>,
}
