//! Messaging kinds: Queue, Topic and MessagingUser (8–10).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{SecretKeyRef, WorkloadStatus, defaults};

use crate::{Resource, Schema};

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
