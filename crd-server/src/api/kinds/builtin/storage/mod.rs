//! storage.k8s.io/v1.

pub mod classes;

use crate::api::kinds::builtin::storage::classes::StorageClasses;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "storage.k8s.io",
    version: "v1",
    plural: "storageclasses",
    singular: "storageclass",
    kind: "StorageClass",
    namespaced: false,
    short_names: &["sc"],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[],
    prefix: "/registry/storageclasses/",
    codec: None,
    definition: "io.k8s.api.storage.v1.StorageClass",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &StorageClasses,
}];
