//! The built-in kinds served, with the names, scope, verbs and storage keys
//! kube-apiserver's discovery and storage use for them: each API group's folder lists
//! its own (`core::KINDS`, `apps::KINDS`, …); this is their order.

use crate::api::kinds::builtin::Spec;

/// Every group's kinds, core first (discovery's order).
static GROUPS: &[&[Spec]] = &[
    super::core::KINDS,
    super::apps::KINDS,
    super::batch::KINDS,
    super::coordination::KINDS,
    super::events::KINDS,
    super::discovery::KINDS,
    super::networking::KINDS,
    super::policy::KINDS,
    super::autoscaling::KINDS,
    super::scheduling::KINDS,
    super::storage::KINDS,
    super::storagemigration::KINDS,
    super::authentication::KINDS,
    super::authorization::KINDS,
    super::rbac::KINDS,
    super::admissionregistration::KINDS,
    super::apiregistration::KINDS,
];

/// Every built-in kind this server serves.
pub fn catalog() -> impl Iterator<Item = &'static Spec> {
    GROUPS.iter().flat_map(|kinds| kinds.iter())
}
