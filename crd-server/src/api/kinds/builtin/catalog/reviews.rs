//! authentication.k8s.io/v1 and authorization.k8s.io/v1: the self reviews, which are
//! created and answered, never stored.

use super::super::reviews::{AccessReviews, RulesReviews, SelfReviews};
use super::super::{Behaviour, Spec};
use super::NONE;

const CREATE: &[&str] = &["create"];

/// One create-only cluster-scoped kind.
const fn review(
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

pub(super) static AUTHENTICATION: &[Spec] = &[review(
    "authentication.k8s.io",
    "selfsubjectreviews",
    "selfsubjectreview",
    "SelfSubjectReview",
    "io.k8s.api.authentication.v1.SelfSubjectReview",
    &SelfReviews,
)];

pub(super) static AUTHORIZATION: &[Spec] = &[
    review(
        "authorization.k8s.io",
        "selfsubjectaccessreviews",
        "selfsubjectaccessreview",
        "SelfSubjectAccessReview",
        "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
        &AccessReviews,
    ),
    review(
        "authorization.k8s.io",
        "selfsubjectrulesreviews",
        "selfsubjectrulesreview",
        "SelfSubjectRulesReview",
        "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
        &RulesReviews,
    ),
];
