//! Platform kinds: AccessBinding, SecretSync, FeatureFlag, Tenant, Bucket and
//! MaintenanceWindow (11, 14, 17–20).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Resources, WorkloadStatus};

use crate::{Resource, Schema};

// 11 -------------------------------------------------------------------------------------
/// A subject of a binding.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Subject {
    User { name: String },
    Group { name: String },
    ServiceAccount { name: String, namespace: String },
}

/// Grants a role to subjects.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(
    feature = "ours",
    crd(group = "auth.example.com", version = "v1", kind = "AccessBinding")
)]
#[cfg_attr(
    feature = "kube-derive",
    kube(group = "auth.example.com", version = "v1", kind = "AccessBinding")
)]
#[serde(rename_all = "camelCase")]
pub struct AccessBindingSpec {
    pub role: String,
    #[cfg_attr(feature = "ours", crd(min_items = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub subjects: Vec<Subject>,
    pub expires: Option<String>,
}

// 14 -------------------------------------------------------------------------------------
/// Copies secrets from an external store.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "secrets.example.com", version = "v1", kind = "SecretSync",
    namespaced, status = WorkloadStatus,
    printcolumn(name = "Store", type = "string", json_path = ".spec.store")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "secrets.example.com",
        version = "v1",
        kind = "SecretSync",
        namespaced,
        status = "WorkloadStatus",
        printcolumn(name = "Store", type_ = "string", json_path = ".spec.store")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct SecretSyncSpec {
    pub store: String,
    pub target: String,
    #[cfg_attr(feature = "ours", crd(min_properties = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub keys: BTreeMap<String, String>,
    pub refresh_interval: Option<String>,
}

// 17 -------------------------------------------------------------------------------------
/// A feature flag with targeting.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Targeting {
    #[serde(default)]
    pub users: Vec<String>,
    #[cfg_attr(feature = "ours", crd(minimum = 0, maximum = 100))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 0, max = 100)))]
    pub percentage: Option<f64>,
}

/// A feature flag.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "flags.example.com", version = "v1", kind = "FeatureFlag",
    namespaced, short_names = ["ff"],
    printcolumn(name = "Enabled", type = "boolean", json_path = ".spec.enabled")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "flags.example.com",
        version = "v1",
        kind = "FeatureFlag",
        namespaced,
        shortname = "ff",
        printcolumn(name = "Enabled", type_ = "boolean", json_path = ".spec.enabled")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct FeatureFlagSpec {
    pub enabled: bool,
    pub description: Option<String>,
    pub targeting: Option<Targeting>,
    #[serde(default)]
    pub variants: BTreeMap<String, String>,
}

// 18 -------------------------------------------------------------------------------------
/// A tenant's resource quota.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Quota {
    pub max_namespaces: Option<u32>,
    pub limits: Option<Resources>,
}

/// A tenant of a multi-tenant cluster.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "tenancy.example.com", version = "v1", kind = "Tenant",
    status = WorkloadStatus,
    printcolumn(name = "Owner", type = "string", json_path = ".spec.owner")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "tenancy.example.com",
        version = "v1",
        kind = "Tenant",
        status = "WorkloadStatus",
        printcolumn(name = "Owner", type_ = "string", json_path = ".spec.owner")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct TenantSpec {
    pub owner: String,
    #[serde(default)]
    pub admins: Vec<Subject>,
    pub quota: Option<Quota>,
    #[serde(default)]
    pub namespace_labels: BTreeMap<String, String>,
}

// 19 -------------------------------------------------------------------------------------
/// A lifecycle rule of a bucket.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleRule {
    pub prefix: String,
    #[cfg_attr(feature = "ours", crd(minimum = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1)))]
    pub expire_after_days: u32,
}

/// An object-storage bucket.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "storage.example.com", version = "v1", kind = "Bucket",
    namespaced, status = WorkloadStatus,
    printcolumn(name = "Region", type = "string", json_path = ".spec.region")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "storage.example.com",
        version = "v1",
        kind = "Bucket",
        namespaced,
        status = "WorkloadStatus",
        printcolumn(name = "Region", type_ = "string", json_path = ".spec.region")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct BucketSpec {
    #[cfg_attr(feature = "ours", crd(pattern = r"^[a-z0-9][a-z0-9.-]{2,62}$"))]
    #[cfg_attr(
        feature = "kube-derive",
        schemars(regex(pattern = r"^[a-z0-9][a-z0-9.-]{2,62}$"))
    )]
    pub bucket_name: String,
    pub region: String,
    #[serde(default)]
    pub versioning: bool,
    #[serde(default)]
    pub lifecycle: Vec<LifecycleRule>,
    #[serde(default)]
    pub cors_origins: Vec<String>,
}

// 20 -------------------------------------------------------------------------------------
/// A weekly time window.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    #[cfg_attr(feature = "ours", crd(minimum = 0, maximum = 6))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 0, max = 6)))]
    pub day: u8,
    #[cfg_attr(feature = "ours", crd(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))]
    #[cfg_attr(
        feature = "kube-derive",
        schemars(regex(pattern = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"))
    )]
    pub start: String,
    pub duration_minutes: u32,
}

/// A maintenance window during which controllers may disrupt workloads.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "ops.example.com", version = "v1", kind = "MaintenanceWindow",
    short_names = ["mw"],
    printcolumn(name = "Paused", type = "boolean", json_path = ".spec.paused")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "ops.example.com",
        version = "v1",
        kind = "MaintenanceWindow",
        shortname = "mw",
        printcolumn(name = "Paused", type_ = "boolean", json_path = ".spec.paused")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct MaintenanceWindowSpec {
    #[cfg_attr(feature = "ours", crd(min_items = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub windows: Vec<Window>,
    #[serde(default)]
    pub paused: bool,
    pub time_zone: Option<String>,
    #[serde(default)]
    pub selector: BTreeMap<String, String>,
}
