//! Workload kinds: CronTab, WebApp, Database, Backup, Cache and Pipeline (1–4, 15, 16),
//! with the enums only they use.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Container, Resources, SecretKeyRef, WorkloadStatus, defaults};

use crate::{Resource, Schema};

/// How an object is exposed.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ServiceType {
    ClusterIP,
    NodePort,
    LoadBalancer,
}

/// Where data comes from (externally tagged).
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    Git {
        url: String,
        revision: Option<String>,
    },
    S3 {
        bucket: String,
        key: String,
        region: Option<String>,
    },
    Http {
        url: String,
    },
}

// 1 --------------------------------------------------------------------------------------
/// A cron job that runs an image.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "stable.example.com", version = "v1", kind = "CronTab",
    namespaced, short_names = ["ct"], categories = ["all"], status = WorkloadStatus,
    scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas",
          label_selector_path = ".status.labelSelector"),
    printcolumn(name = "Spec", type = "string", json_path = ".spec.cronSpec"),
    printcolumn(name = "Age", type = "date", json_path = ".metadata.creationTimestamp")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "stable.example.com",
        version = "v1",
        kind = "CronTab",
        namespaced,
        shortname = "ct",
        category = "all",
        status = "WorkloadStatus",
        scale(
            spec_replicas_path = ".spec.replicas",
            status_replicas_path = ".status.replicas",
            label_selector_path = ".status.labelSelector"
        ),
        printcolumn(name = "Spec", type_ = "string", json_path = ".spec.cronSpec"),
        printcolumn(
            name = "Age",
            type_ = "date",
            json_path = ".metadata.creationTimestamp"
        )
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CronTabSpec {
    #[cfg_attr(
        feature = "ours",
        crd(
            pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$",
            default = "5 0 * * *"
        )
    )]
    #[cfg_attr(
        feature = "kube-derive",
        schemars(regex(pattern = r"^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$"))
    )]
    #[serde(default = "defaults::schedule")]
    pub cron_spec: String,
    pub image: Option<String>,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 10, default = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 10)))]
    #[serde(default = "defaults::one")]
    pub replicas: i32,
}

// 2 --------------------------------------------------------------------------------------
/// A stateless web application.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "apps.example.com", version = "v1", kind = "WebApp",
    namespaced, short_names = ["wa"], status = WorkloadStatus,
    scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"),
    printcolumn(name = "Image", type = "string", json_path = ".spec.container.image"),
    printcolumn(name = "Ready", type = "integer", json_path = ".status.readyReplicas")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "apps.example.com",
        version = "v1",
        kind = "WebApp",
        namespaced,
        shortname = "wa",
        status = "WorkloadStatus",
        scale(
            spec_replicas_path = ".spec.replicas",
            status_replicas_path = ".status.replicas"
        ),
        printcolumn(name = "Image", type_ = "string", json_path = ".spec.container.image"),
        printcolumn(name = "Ready", type_ = "integer", json_path = ".status.readyReplicas")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct WebAppSpec {
    pub container: Container,
    #[cfg_attr(feature = "ours", crd(minimum = 0, maximum = 100, default = 3))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 0, max = 100)))]
    #[serde(default = "defaults::three")]
    pub replicas: i32,
    pub service_type: Option<ServiceType>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[cfg_attr(feature = "ours", crd(max_items = 16))]
    #[cfg_attr(feature = "kube-derive", schemars(length(max = 16)))]
    #[serde(default)]
    pub hosts: Vec<String>,
}

// 3 --------------------------------------------------------------------------------------
/// A managed PostgreSQL cluster.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Storage {
    #[cfg_attr(feature = "ours", crd(pattern = r"^[0-9]+(Mi|Gi|Ti)$"))]
    #[cfg_attr(
        feature = "kube-derive",
        schemars(regex(pattern = r"^[0-9]+(Mi|Gi|Ti)$"))
    )]
    pub size: String,
    pub storage_class: Option<String>,
}

/// A PostgreSQL cluster.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "db.example.com", version = "v1", kind = "Database",
    namespaced, short_names = ["pgdb"], categories = ["databases"], status = WorkloadStatus,
    scale(spec_replicas_path = ".spec.instances", status_replicas_path = ".status.replicas"),
    printcolumn(name = "Version", type = "string", json_path = ".spec.version"),
    printcolumn(name = "Instances", type = "integer", json_path = ".spec.instances")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "db.example.com",
        version = "v1",
        kind = "Database",
        namespaced,
        shortname = "pgdb",
        category = "databases",
        status = "WorkloadStatus",
        scale(
            spec_replicas_path = ".spec.instances",
            status_replicas_path = ".status.replicas"
        ),
        printcolumn(name = "Version", type_ = "string", json_path = ".spec.version"),
        printcolumn(name = "Instances", type_ = "integer", json_path = ".spec.instances")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseSpec {
    #[cfg_attr(feature = "ours", crd(pattern = r"^1[3-7]$"))]
    #[cfg_attr(feature = "kube-derive", schemars(regex(pattern = r"^1[3-7]$")))]
    pub version: String,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 9, default = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 9)))]
    #[serde(default = "defaults::one")]
    pub instances: i32,
    pub storage: Storage,
    pub resources: Option<Resources>,
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
    pub superuser_secret: Option<SecretKeyRef>,
}

// 4 --------------------------------------------------------------------------------------
/// A scheduled backup of a database.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "db.example.com", version = "v1", kind = "Backup",
    namespaced, status = WorkloadStatus,
    printcolumn(name = "Database", type = "string", json_path = ".spec.database"),
    printcolumn(name = "Phase", type = "string", json_path = ".status.phase")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "db.example.com",
        version = "v1",
        kind = "Backup",
        namespaced,
        status = "WorkloadStatus",
        printcolumn(name = "Database", type_ = "string", json_path = ".spec.database"),
        printcolumn(name = "Phase", type_ = "string", json_path = ".status.phase")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    pub database: String,
    #[serde(default = "defaults::schedule")]
    #[cfg_attr(feature = "ours", crd(default = "5 0 * * *"))]
    pub schedule: String,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 365))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 365)))]
    pub retention_days: Option<u32>,
    pub destination: Source,
}

// 15 -------------------------------------------------------------------------------------
/// An in-memory cache cluster.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "cache.example.com", version = "v1", kind = "Cache",
    namespaced, status = WorkloadStatus,
    scale(spec_replicas_path = ".spec.shards", status_replicas_path = ".status.replicas")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "cache.example.com",
        version = "v1",
        kind = "Cache",
        namespaced,
        status = "WorkloadStatus",
        scale(
            spec_replicas_path = ".spec.shards",
            status_replicas_path = ".status.replicas"
        )
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CacheSpec {
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 64, default = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 64)))]
    #[serde(default = "defaults::one")]
    pub shards: i32,
    pub memory: String,
    pub eviction_policy: Option<String>,
    pub resources: Option<Resources>,
    #[serde(default = "defaults::yes")]
    #[cfg_attr(feature = "ours", crd(default = true))]
    pub tls: bool,
}

// 16 -------------------------------------------------------------------------------------
/// A step of a pipeline.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub name: String,
    pub container: Container,
    #[serde(default)]
    pub depends_on: Vec<String>,
    pub retries: Option<u8>,
}

/// A CI pipeline of container steps.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "ci.example.com", version = "v1", kind = "Pipeline",
    namespaced, short_names = ["pl"], status = WorkloadStatus,
    printcolumn(name = "Phase", type = "string", json_path = ".status.phase")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "ci.example.com",
        version = "v1",
        kind = "Pipeline",
        namespaced,
        shortname = "pl",
        status = "WorkloadStatus",
        printcolumn(name = "Phase", type_ = "string", json_path = ".status.phase")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct PipelineSpec {
    pub source: Source,
    #[cfg_attr(feature = "ours", crd(min_items = 1, max_items = 50))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1, max = 50)))]
    pub steps: Vec<Step>,
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    pub service_account: Option<String>,
}
