//! authorization.k8s.io/v1: the self access and rules reviews, which are created and
//! answered, never stored.

pub mod reviews;

use crate::api::kinds::builtin::Spec;
use crate::api::kinds::builtin::authorization::reviews::AccessReviews;
use crate::api::kinds::builtin::authorization::reviews::RulesReviews;
use crate::api::kinds::builtin::review;

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
