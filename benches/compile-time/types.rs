//! The 20 benchmark CRD types, written once for both derives.
//!
//! Each crate includes this file with its own flavour feature on: `ours` (crd-derive) or
//! `kube-derive` (kube-derive 5 + schemars 1). Derives are imported under the neutral names
//! `Resource` (the `CustomResource` derive) and `Schema` (`CrdSchema` / `JsonSchema`) by the
//! including crate; attributes that differ between the two are written twice under
//! `cfg_attr`, so both crates compile exactly the same Rust types. kube-derive supports only
//! externally tagged enums, so the enums here are unit enums and externally tagged ones.
//! Defaults are `#[serde(default = ...)]` functions (which schemars turns into `default`);
//! crd-derive additionally writes the literal with `#[crd(default = ...)]`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Resource, Schema};

/// Default functions shared by both flavours.
mod defaults {
    pub fn one() -> i32 {
        1
    }
    pub fn three() -> i32 {
        3
    }
    pub fn port() -> u16 {
        8080
    }
    pub fn schedule() -> String {
        "5 0 * * *".into()
    }
    pub fn yes() -> bool {
        true
    }
}

/// How an object is exposed.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ServiceType {
    ClusterIP,
    NodePort,
    LoadBalancer,
}

/// The lifecycle phase shared by most statuses.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Phase {
    Pending,
    Running,
    Succeeded,
    Failed,
}

/// A standard Kubernetes condition.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[cfg_attr(feature = "ours", crd(min_length = 1, max_length = 316))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1, max = 316)))]
    pub r#type: String,
    pub status: String,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub last_transition_time: Option<String>,
    pub observed_generation: Option<i64>,
}

/// A common replicated-workload status.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    pub replicas: Option<i32>,
    pub ready_replicas: Option<i32>,
    pub label_selector: Option<String>,
    pub phase: Option<Phase>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// Resource requests or limits.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Resources {
    #[cfg_attr(feature = "ours", crd(pattern = r"^[0-9]+m?$"))]
    #[cfg_attr(feature = "kube-derive", schemars(regex(pattern = r"^[0-9]+m?$")))]
    pub cpu: Option<String>,
    #[cfg_attr(feature = "ours", crd(pattern = r"^[0-9]+(Ki|Mi|Gi)?$"))]
    #[cfg_attr(
        feature = "kube-derive",
        schemars(regex(pattern = r"^[0-9]+(Ki|Mi|Gi)?$"))
    )]
    pub memory: Option<String>,
}

/// An environment variable.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct EnvVar {
    #[cfg_attr(feature = "ours", crd(min_length = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub name: String,
    pub value: Option<String>,
    pub secret_ref: Option<SecretKeyRef>,
}

/// A key of a Secret.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SecretKeyRef {
    pub name: String,
    pub key: String,
}

/// A container to run.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    pub image: String,
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub env: Vec<EnvVar>,
    pub resources: Option<Resources>,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 65535))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 65535)))]
    pub port: Option<u16>,
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

// 5 --------------------------------------------------------------------------------------
/// How a certificate's key is generated.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum KeyAlgorithm {
    RSA,
    ECDSA,
    Ed25519,
}

/// An X.509 certificate issued by an issuer.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "pki.example.com", version = "v1", kind = "Certificate",
    namespaced, short_names = ["cert", "certs"], status = WorkloadStatus,
    printcolumn(name = "Issuer", type = "string", json_path = ".spec.issuerRef.name")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "pki.example.com",
        version = "v1",
        kind = "Certificate",
        namespaced,
        shortname = "cert",
        shortname = "certs",
        status = "WorkloadStatus",
        printcolumn(name = "Issuer", type_ = "string", json_path = ".spec.issuerRef.name")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CertificateSpec {
    #[cfg_attr(feature = "ours", crd(min_items = 1, max_items = 100))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1, max = 100)))]
    pub dns_names: Vec<String>,
    pub secret_name: String,
    pub issuer_ref: SecretKeyRef,
    pub algorithm: Option<KeyAlgorithm>,
    #[cfg_attr(feature = "ours", crd(minimum = 2048, maximum = 8192))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 2048, max = 8192)))]
    pub key_size: Option<i32>,
    pub duration: Option<String>,
}

// 6 --------------------------------------------------------------------------------------
/// A DNS record value.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum RecordValue {
    A { address: String },
    CNAME { target: String },
    TXT { text: Vec<String> },
    MX { host: String, priority: u16 },
}

/// A DNS record in a managed zone.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(
    feature = "ours",
    crd(
        group = "dns.example.com",
        version = "v1alpha1",
        kind = "DnsRecord",
        namespaced,
        printcolumn(name = "Zone", type = "string", json_path = ".spec.zone")
    )
)]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "dns.example.com",
        version = "v1alpha1",
        kind = "DnsRecord",
        namespaced,
        printcolumn(name = "Zone", type_ = "string", json_path = ".spec.zone")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct DnsRecordSpec {
    #[cfg_attr(feature = "ours", crd(max_length = 253))]
    #[cfg_attr(feature = "kube-derive", schemars(length(max = 253)))]
    pub zone: String,
    pub name: String,
    pub value: RecordValue,
    #[cfg_attr(feature = "ours", crd(minimum = 30, maximum = 86400))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 30, max = 86400)))]
    pub ttl: Option<u32>,
}

// 7 --------------------------------------------------------------------------------------
/// A backend of a route.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Backend {
    pub service: String,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 65535, default = 8080))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 65535)))]
    #[serde(default = "defaults::port")]
    pub port: u16,
    #[cfg_attr(feature = "ours", crd(minimum = 0, maximum = 100))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 0, max = 100)))]
    pub weight: Option<u8>,
}

/// An HTTP route to weighted backends.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "net.example.com", version = "v1", kind = "HttpRoute",
    namespaced, categories = ["net"],
    printcolumn(name = "Host", type = "string", json_path = ".spec.hostname")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "net.example.com",
        version = "v1",
        kind = "HttpRoute",
        namespaced,
        category = "net",
        printcolumn(name = "Host", type_ = "string", json_path = ".spec.hostname")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteSpec {
    pub hostname: String,
    #[cfg_attr(feature = "ours", crd(pattern = r"^/"))]
    #[cfg_attr(feature = "kube-derive", schemars(regex(pattern = r"^/")))]
    pub path_prefix: Option<String>,
    #[cfg_attr(feature = "ours", crd(min_items = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub backends: Vec<Backend>,
    #[serde(default)]
    pub request_headers: BTreeMap<String, String>,
    pub timeout_seconds: Option<u32>,
}

// 8 --------------------------------------------------------------------------------------
/// A message queue.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "messaging.example.com", version = "v1", kind = "Queue",
    namespaced, status = WorkloadStatus,
    printcolumn(name = "Durable", type = "boolean", json_path = ".spec.durable")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "messaging.example.com",
        version = "v1",
        kind = "Queue",
        namespaced,
        status = "WorkloadStatus",
        printcolumn(name = "Durable", type_ = "boolean", json_path = ".spec.durable")
    )
)]
#[serde(rename_all = "camelCase")]
pub struct QueueSpec {
    #[serde(default = "defaults::yes")]
    #[cfg_attr(feature = "ours", crd(default = true))]
    pub durable: bool,
    #[cfg_attr(feature = "ours", crd(minimum = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1)))]
    pub max_length: Option<u64>,
    pub dead_letter_queue: Option<String>,
    #[serde(default)]
    pub arguments: BTreeMap<String, String>,
}

// 9 --------------------------------------------------------------------------------------
/// A partitioned topic.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "messaging.example.com", version = "v1beta1", kind = "Topic",
    namespaced, status = WorkloadStatus,
    printcolumn(name = "Partitions", type = "integer", json_path = ".spec.partitions"),
    printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicationFactor")))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "messaging.example.com",
        version = "v1beta1",
        kind = "Topic",
        namespaced,
        status = "WorkloadStatus",
        printcolumn(name = "Partitions", type_ = "integer", json_path = ".spec.partitions"),
        printcolumn(
            name = "Replicas",
            type_ = "integer",
            json_path = ".spec.replicationFactor"
        )
    )
)]
#[serde(rename_all = "camelCase")]
pub struct TopicSpec {
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 1000))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 1000)))]
    pub partitions: i32,
    #[cfg_attr(feature = "ours", crd(minimum = 1, maximum = 5, default = 3))]
    #[cfg_attr(feature = "kube-derive", schemars(range(min = 1, max = 5)))]
    #[serde(default = "defaults::three")]
    pub replication_factor: i32,
    #[serde(default)]
    pub config: BTreeMap<String, String>,
}

// 10 -------------------------------------------------------------------------------------
/// A permission of a user.
#[derive(Schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Permission {
    pub resource: String,
    #[cfg_attr(feature = "ours", crd(min_items = 1))]
    #[cfg_attr(feature = "kube-derive", schemars(length(min = 1)))]
    pub verbs: Vec<String>,
}

/// A user of a messaging cluster.
#[derive(Resource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "kube-derive", derive(Schema))]
#[cfg_attr(feature = "ours", crd(group = "messaging.example.com", version = "v1", kind = "MessagingUser",
    namespaced, short_names = ["mu"]))]
#[cfg_attr(
    feature = "kube-derive",
    kube(
        group = "messaging.example.com",
        version = "v1",
        kind = "MessagingUser",
        namespaced,
        shortname = "mu"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct MessagingUserSpec {
    #[cfg_attr(feature = "ours", crd(pattern = r"^[a-z][a-z0-9-]{0,62}$"))]
    #[cfg_attr(
        feature = "kube-derive",
        schemars(regex(pattern = r"^[a-z][a-z0-9-]{0,62}$"))
    )]
    pub username: String,
    pub password_secret: SecretKeyRef,
    #[serde(default)]
    pub permissions: Vec<Permission>,
    #[serde(default)]
    pub tags: Vec<String>,
}

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
