//! The built-in kinds served, with the names, scope, verbs and storage keys
//! kube-apiserver's discovery and storage use for them: one file per API group.

mod admissionregistration;
mod apps;
mod autoscaling;
mod batch;
mod coordination;
mod core;
mod discovery;
mod events;
mod networking;
mod policy;
mod rbac;
mod reviews;
mod scheduling;
mod storage;

use super::Spec;

/// The verbs of a built-in kind with every verb, as its discovery lists them.
pub(super) const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// The verbs of a kind without `deletecollection` (Services, as kube-apiserver 1.37
/// lists them).
pub(super) const ALL_BUT_COLLECTION: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// No field selectors beyond `metadata.name` and `metadata.namespace`.
pub(super) const NONE: &[(&str, &str)] = &[];

/// Every group's kinds, core first (discovery's order).
static GROUPS: &[&[Spec]] = &[
    core::KINDS,
    apps::KINDS,
    batch::KINDS,
    coordination::KINDS,
    events::KINDS,
    discovery::KINDS,
    networking::KINDS,
    policy::KINDS,
    autoscaling::KINDS,
    scheduling::KINDS,
    storage::KINDS,
    reviews::AUTHENTICATION,
    reviews::AUTHORIZATION,
    rbac::KINDS,
    admissionregistration::KINDS,
];

/// Every built-in kind this server serves.
pub fn catalog() -> impl Iterator<Item = &'static Spec> {
    GROUPS.iter().flat_map(|kinds| kinds.iter())
}
