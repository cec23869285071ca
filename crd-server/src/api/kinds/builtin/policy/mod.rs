//! policy/v1.

pub mod budgets;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::policy::budgets::DisruptionBudgets;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "policy",
    version: "v1",
    plural: "poddisruptionbudgets",
    singular: "poddisruptionbudget",
    kind: "PodDisruptionBudget",
    namespaced: true,
    short_names: &["pdb"],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[Subresource::Status],
    prefix: "/registry/poddisruptionbudgets/",
    codec: None,
    definition: "io.k8s.api.policy.v1.PodDisruptionBudget",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &DisruptionBudgets,
}];
