//! Metadata of custom resource objects and lists: `metadata` of a derived root
//! (`CronTab`) and of its list (`CronTabList`).
//!
//! This module mirrors k8s-openapi's `apimachinery::pkg::apis::meta::v1`: same type
//! names, field names and (for everything but [`Time`] and [`FieldsV1`]) field types. With
//! the `kube` feature it *is* k8s-openapi's module (re-exported), so that derived roots
//! implement `kube::Resource` with no glue, and code written against it compiles both ways:
//!
//! ```
//! use crd_runtime::meta::ObjectMeta;
//! let meta = ObjectMeta {
//!     name: Some("daily".into()),
//!     namespace: Some("jobs".into()),
//!     ..Default::default()
//! };
//! assert_eq!(meta.name.as_deref(), Some("daily"));
//! ```
//!
//! Only the spelling of timestamps differs: without `kube`, [`Time`] keeps the RFC 3339
//! text as written; with it, k8s-openapi parses it. Code that only reads or writes names,
//! labels, annotations, finalizers, owner references and versions is feature-agnostic.
//!
//! The metadata of CRD manifests is a different type, [`crate::model::ObjectMeta`]: it
//! keeps unknown keys verbatim so that manifests round-trip without loss.

#[cfg(not(feature = "kube"))]
mod own;

#[cfg(not(feature = "kube"))]
pub use own::{FieldsV1, ListMeta, ManagedFieldsEntry, ObjectMeta, OwnerReference, Time};

#[cfg(feature = "kube")]
pub use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    FieldsV1, ListMeta, ManagedFieldsEntry, ObjectMeta, OwnerReference, Time,
};

/// The wire names of every `ObjectMeta` field, which printer columns and selectable
/// fields may point at (`.metadata.creationTimestamp`).
pub const OBJECT_META_FIELDS: &[&str] = &[
    "annotations",
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "finalizers",
    "generateName",
    "generation",
    "labels",
    "managedFields",
    "name",
    "namespace",
    "ownerReferences",
    "resourceVersion",
    "selfLink",
    "uid",
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_meta_fields_are_the_serialized_keys() {
        let full = ObjectMeta {
            annotations: Some(Default::default()),
            creation_timestamp: Some(
                serde_json::from_value(json!("2026-01-01T00:00:00Z")).unwrap(),
            ),
            deletion_grace_period_seconds: Some(1),
            deletion_timestamp: Some(
                serde_json::from_value(json!("2026-01-01T00:00:00Z")).unwrap(),
            ),
            finalizers: Some(vec![]),
            generate_name: Some(String::new()),
            generation: Some(1),
            labels: Some(Default::default()),
            managed_fields: Some(vec![]),
            name: Some(String::new()),
            namespace: Some(String::new()),
            owner_references: Some(vec![]),
            resource_version: Some(String::new()),
            self_link: Some(String::new()),
            uid: Some(String::new()),
        };
        let value = serde_json::to_value(full).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, OBJECT_META_FIELDS);
    }

    /// What a real API server returns for a custom resource (kubectl get -o json).
    fn server_metadata() -> serde_json::Value {
        json!({
            "name": "daily",
            "namespace": "jobs",
            "uid": "6c7d8b1e-3f1a-4a1e-9a52-1f0b5b0f2a11",
            "resourceVersion": "184467",
            "generation": 3,
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "labels": {"app": "cron"},
            "annotations": {"note": "x"},
            "finalizers": ["stable.example.com/cleanup"],
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "Deployment", "name": "d",
                "uid": "0b6f3d7e-0000-4000-8000-000000000001", "controller": true
            }],
            "managedFields": [{
                "manager": "kubectl", "operation": "Update", "apiVersion": "stable.example.com/v1",
                "time": "2024-05-01T10:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:replicas": {}}}
            }]
        })
    }

    #[test]
    fn object_meta_round_trips_a_server_response() {
        let want = server_metadata();
        let meta: ObjectMeta = serde_json::from_value(want.clone()).unwrap();
        assert_eq!(meta.name.as_deref(), Some("daily"));
        assert_eq!(meta.generation, Some(3));
        let refs = meta.owner_references.as_ref().unwrap();
        assert_eq!(
            (refs[0].kind.as_str(), refs[0].controller),
            ("Deployment", Some(true))
        );
        assert_eq!(serde_json::to_value(&meta).unwrap(), want);
    }

    #[test]
    fn list_meta_reads_continue_tokens() {
        let want = json!({"resourceVersion": "9", "continue": "abc", "remainingItemCount": 4});
        let meta: ListMeta = serde_json::from_value(want.clone()).unwrap();
        assert_eq!(meta.continue_.as_deref(), Some("abc"));
        assert_eq!(meta.remaining_item_count, Some(4));
        assert_eq!(serde_json::to_value(&meta).unwrap(), want);
    }

    #[test]
    fn empty_metadata_serializes_to_an_empty_object() {
        assert_eq!(
            serde_json::to_value(ObjectMeta::default()).unwrap(),
            json!({})
        );
    }
}
