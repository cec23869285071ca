//! scheduling.k8s.io/v1.

use super::super::policy::PriorityClasses;
use super::super::{NameRule, Spec};
use super::{ALL_VERBS, NONE};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "scheduling.k8s.io",
    version: "v1",
    plural: "priorityclasses",
    singular: "priorityclass",
    kind: "PriorityClass",
    namespaced: false,
    short_names: &["pc"],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[],
    prefix: "/registry/priorityclasses/",
    codec: None,
    definition: "io.k8s.api.scheduling.v1.PriorityClass",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &PriorityClasses,
}];
