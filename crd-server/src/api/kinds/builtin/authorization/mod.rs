//! authorization.k8s.io/v1: the self access and rules reviews, which are created and
//! answered, never stored.

pub mod reviews;

use crate::api::kinds::builtin::authorization::reviews::{AccessReviews, RulesReviews};
use crate::api::kinds::builtin::{Spec, review};

pub(super) static KINDS: &[Spec] = &[
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
