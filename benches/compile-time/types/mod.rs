//! The 20 benchmark CRD types, written once for both derives.
//!
//! Each crate includes this module tree (this file and its submodules) with its own flavour
//! feature on: `ours` (crd-derive) or `kube-derive` (kube-derive 5 + schemars 1). Derives are
//! imported under the neutral names `Resource` (the `CustomResource` derive) and `Schema`
//! (`CrdSchema` / `JsonSchema`) by the including crate; attributes that differ between the two
//! are written twice under `cfg_attr`, so both crates compile exactly the same Rust types.
//! kube-derive supports only externally tagged enums, so the enums here are unit enums and
//! externally tagged ones. Defaults are `#[serde(default = ...)]` functions (which schemars
//! turns into `default`); crd-derive additionally writes the literal with
//! `#[crd(default = ...)]`.
//!
//! This file holds the pieces several kinds share (default functions, status, containers,
//! secret references); the 20 root kinds live in themed submodules, numbered 1–20 in comments,
//! and are all re-exported here, so `types::*` names every kind.

use serde::{Deserialize, Serialize};

use crate::Schema;

mod messaging;
mod monitoring;
mod networking;
mod platform;
mod workloads;
#[cfg(feature = "k8s")]
mod k8s;

pub use messaging::*;
pub use monitoring::*;
pub use networking::*;
pub use platform::*;
pub use workloads::*;
#[cfg(feature = "k8s")]
pub use k8s::*;

/// The CRDs of all 20 kinds, in order (`Vec<crd type>`), for both crates: each calls it
/// with its own `CustomResourceExt` in scope.
macro_rules! all_crds {
    () => {
        vec![
            $crate::types::CronTab::crd(),
            $crate::types::WebApp::crd(),
            $crate::types::Database::crd(),
            $crate::types::Backup::crd(),
            $crate::types::Certificate::crd(),
            $crate::types::DnsRecord::crd(),
            $crate::types::HttpRoute::crd(),
            $crate::types::Queue::crd(),
            $crate::types::Topic::crd(),
            $crate::types::MessagingUser::crd(),
            $crate::types::AccessBinding::crd(),
            $crate::types::AlertGroup::crd(),
            $crate::types::Dashboard::crd(),
            $crate::types::SecretSync::crd(),
            $crate::types::Cache::crd(),
            $crate::types::Pipeline::crd(),
            $crate::types::FeatureFlag::crd(),
            $crate::types::Tenant::crd(),
            $crate::types::Bucket::crd(),
            $crate::types::MaintenanceWindow::crd(),
        ]
    };
}
pub(crate) use all_crds;

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
