//! crd-runtime's own mirror of k8s-openapi's `meta::v1` types (used without `kube`).
//!
//! The derives are exactly k8s-openapi's (`Clone, Debug, Default, PartialEq`) so that
//! turning the `kube` feature on never removes a trait impl user code relies on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Standard object metadata (`metadata` of every Kubernetes object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// `annotations`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    /// `creationTimestamp`, set by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<Time>,
    /// `deletionGracePeriodSeconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// `deletionTimestamp`, set by the server when deletion is requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    /// `finalizers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalizers: Option<Vec<String>>,
    /// `generateName`: a prefix the server completes when `name` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_name: Option<String>,
    /// `generation`: incremented by the server on every spec change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// `labels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// `managedFields` (server-side apply bookkeeping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_fields: Option<Vec<ManagedFieldsEntry>>,
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `namespace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `ownerReferences`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<OwnerReference>>,
    /// `resourceVersion`: the optimistic-concurrency token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// `selfLink` (deprecated, no longer set by servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_link: Option<String>,
    /// `uid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

/// `metadata` of a list response.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMeta {
    /// `continue`: the token for the next page of a paginated list.
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<String>,
    /// `remainingItemCount`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_item_count: Option<i64>,
    /// `resourceVersion` of the list (where a watch resumes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// `selfLink` (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_link: Option<String>,
}

/// An entry of `metadata.ownerReferences`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// `apiVersion` of the owner.
    pub api_version: String,
    /// `blockOwnerDeletion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
    /// `controller`: whether the owner is the managing controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `kind` of the owner.
    pub kind: String,
    /// `name` of the owner.
    pub name: String,
    /// `uid` of the owner.
    pub uid: String,
}

/// An entry of `metadata.managedFields`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    /// `apiVersion` the fields were written in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `fieldsType` (always `FieldsV1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields_type: Option<String>,
    /// `fieldsV1`: the field set.
    #[serde(default, rename = "fieldsV1", skip_serializing_if = "Option::is_none")]
    pub fields_v1: Option<FieldsV1>,
    /// `manager`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manager: Option<String>,
    /// `operation` (`Apply` or `Update`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// `subresource` (`status`, `scale`, or empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subresource: Option<String>,
    /// `time` of the last change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
}

/// A field set of server-side apply, kept as JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FieldsV1(pub Value);

/// An RFC 3339 timestamp (`2024-05-01T10:00:00Z`), kept as written.
///
/// k8s-openapi's `Time` (feature `kube`) holds a parsed timestamp instead; both
/// serialize to the same text for timestamps the API server writes.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Time(pub String);
