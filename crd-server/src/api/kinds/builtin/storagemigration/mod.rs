//! storagemigration.k8s.io/v1 (served from 1.37, where the API is GA; its alpha and beta
//! versions are off in a default kube-apiserver).

pub mod migrations;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::storagemigration::migrations::Migrations;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "storagemigration.k8s.io",
    version: "v1",
    plural: "storageversionmigrations",
    singular: "storageversionmigration",
    kind: "StorageVersionMigration",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[Subresource::Status],
    prefix: "/registry/storageversionmigrations/",
    codec: None,
    definition: "io.k8s.api.storagemigration.v1.StorageVersionMigration",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &Migrations,
}];
