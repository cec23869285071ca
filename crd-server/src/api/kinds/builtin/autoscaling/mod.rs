//! autoscaling/v2.

pub mod autoscalers;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::autoscaling::autoscalers::Autoscalers;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "autoscaling",
    version: "v2",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    kind: "HorizontalPodAutoscaler",
    namespaced: true,
    short_names: &["hpa"],
    categories: &["all"],
    verbs: ALL_VERBS,
    subresources: &[Subresource::Status],
    prefix: "/registry/horizontalpodautoscalers/",
    codec: None,
    definition: "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &Autoscalers,
}];
