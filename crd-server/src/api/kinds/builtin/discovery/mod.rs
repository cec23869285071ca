//! discovery.k8s.io/v1.

pub mod endpointslices;

use crate::api::kinds::builtin::discovery::endpointslices::EndpointSlices;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "discovery.k8s.io",
    version: "v1",
    plural: "endpointslices",
    singular: "endpointslice",
    kind: "EndpointSlice",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: ALL_VERBS,
    subresources: &[],
    prefix: "/registry/endpointslices/",
    codec: None,
    definition: "io.k8s.api.discovery.v1.EndpointSlice",
    name_rule: Some(NameRule::DnsSubdomain),
    field_selectors: NONE,
    behaviour: &EndpointSlices,
}];
