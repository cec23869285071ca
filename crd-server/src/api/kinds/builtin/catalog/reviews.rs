//! authentication.k8s.io/v1 and authorization.k8s.io/v1: the self reviews, which are
//! created and answered, never stored.

use super::super::reviews::{
    ACCESS_REVIEW, AccessReviews, RULES_REVIEW, RulesReviews, SELF_REVIEW, SelfReviews,
};
use super::super::{Behaviour, Spec};
use super::NONE;
use crate::api::protobuf::Message;

const CREATE: &[&str] = &["create"];

/// One create-only cluster-scoped kind.
const fn review(
    group: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    definition: &'static str,
    proto: &'static Message,
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
        proto: Some(proto),
        behaviour,
    }
}

pub(super) static AUTHENTICATION: &[Spec] = &[review(
    "authentication.k8s.io",
    "selfsubjectreviews",
    "selfsubjectreview",
    "SelfSubjectReview",
    "io.k8s.api.authentication.v1.SelfSubjectReview",
    &SELF_REVIEW,
    &SelfReviews,
)];

pub(super) static AUTHORIZATION: &[Spec] = &[
    review(
        "authorization.k8s.io",
        "selfsubjectaccessreviews",
        "selfsubjectaccessreview",
        "SelfSubjectAccessReview",
        "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
        &ACCESS_REVIEW,
        &AccessReviews,
    ),
    review(
        "authorization.k8s.io",
        "selfsubjectrulesreviews",
        "selfsubjectrulesreview",
        "SelfSubjectRulesReview",
        "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
        &RULES_REVIEW,
        &RulesReviews,
    ),
];
