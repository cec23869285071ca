//! apiregistration.k8s.io/v1: the APIServices of kube-aggregator.

pub mod apiservices;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::apiregistration::apiservices::ApiServices;
use crate::api::kinds::builtin::{ALL_VERBS, NONE, NameRule, Spec};

pub(super) static KINDS: &[Spec] = &[Spec {
    group: "apiregistration.k8s.io",
    version: "v1",
    plural: "apiservices",
    singular: "apiservice",
    kind: "APIService",
    namespaced: false,
    short_names: &[],
    categories: &["api-extensions"],
    verbs: ALL_VERBS,
    subresources: &[Subresource::Status],
    prefix: "/registry/apiregistration.k8s.io/apiservices/",
    codec: None,
    definition: "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
    name_rule: Some(NameRule::PathSegment),
    field_selectors: NONE,
    behaviour: &ApiServices,
}];
