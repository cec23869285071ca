//! coordination.k8s.io/v1.

pub mod leases;

use crate::api::kinds::builtin::coordination::leases::Leases;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "coordination.k8s.io",
    version: "v1",
    plural: "leases",
    singular: "lease",
    kind: "Lease",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[],
    prefix: "/registry/leases/",
    codec: None,
    definition: "io.k8s.api.coordination.v1.Lease",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &Leases,
}];
