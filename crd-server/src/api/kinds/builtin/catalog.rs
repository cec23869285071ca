//! The built-in kinds served, with the names, scope, verbs and storage keys
//! kube-apiserver's discovery and storage use for them: each API group's folder lists
//! its own (`core::KINDS`, `apps::KINDS`, …); this is their order, and what the
//! groups' lists share.

use crate::api::kinds::builtin::{Behaviour, Spec};

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
    super::authentication::KINDS,
    super::authorization::KINDS,
    super::rbac::KINDS,
    super::admissionregistration::KINDS,
];

/// Every built-in kind this server serves.
pub fn catalog() -> impl Iterator<Item = &'static Spec> {
    GROUPS.iter().flat_map(|kinds| kinds.iter())
}

const CREATE: &[&str] = &["create"];

/// One create-only cluster-scoped kind.
pub(super) const fn review(
    group: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    definition: &'static str,
    behaviour: &'static dyn Behaviour,
) -> Spec {
    Spec {
        group,
        version: "v1",
        plural,
        singular,
        kind,
        namespaced: false,
        short_names: &[],
        categories: &[],
        verbs: CREATE,
        subresources: &[],
        // Never stored: only `create` is served, and answered.
        prefix: "",
        codec: None,
        definition,
        name_rule: None,
        field_selectors: NONE,
        behaviour,
    }
}
