//! The built-in kinds served, with the names, scope, verbs and storage keys
//! kube-apiserver's discovery and storage use for them: one file per API group.

mod admissionregistration;
mod coordination;
mod core;
mod events;
mod rbac;
mod reviews;

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

/// No field selectors beyond `metadata.name` and `metadata.namespace`.
pub(super) const NONE: &[(&str, &str)] = &[];

/// Every group's kinds, core first (discovery's order).
static GROUPS: &[&[Spec]] = &[
    core::KINDS,
    coordination::KINDS,
    events::KINDS,
    reviews::AUTHENTICATION,
    reviews::AUTHORIZATION,
    rbac::KINDS,
    admissionregistration::KINDS,
];

/// Every built-in kind this server serves.
pub fn catalog() -> impl Iterator<Item = &'static Spec> {
    GROUPS.iter().flat_map(|kinds| kinds.iter())
}
