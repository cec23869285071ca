//! authorization.k8s.io/v1: the access and rules reviews, which are created and
//! answered by the server's authorizer, never stored.

pub mod reviews;

use crate::api::kinds::builtin::Spec;
use crate::api::kinds::builtin::authorization::reviews::{
    AccessReviews, LocalSubjectAccessReviews, RulesReviews, SubjectAccessReviews,
};

pub(super) static KINDS: &[Spec] = &[
    Spec {
        namespaced: true,
        ..Spec::v1(
            "authorization.k8s.io",
            "localsubjectaccessreviews",
            "localsubjectaccessreview",
            "LocalSubjectAccessReview",
            "io.k8s.api.authorization.v1.LocalSubjectAccessReview",
            &LocalSubjectAccessReviews,
        )
        .create_only()
    },
    Spec::v1(
        "authorization.k8s.io",
        "selfsubjectaccessreviews",
        "selfsubjectaccessreview",
        "SelfSubjectAccessReview",
        "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
        &AccessReviews,
    )
    .create_only(),
    Spec::v1(
        "authorization.k8s.io",
        "selfsubjectrulesreviews",
        "selfsubjectrulesreview",
        "SelfSubjectRulesReview",
        "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
        &RulesReviews,
    )
    .create_only(),
    Spec::v1(
        "authorization.k8s.io",
        "subjectaccessreviews",
        "subjectaccessreview",
        "SubjectAccessReview",
        "io.k8s.api.authorization.v1.SubjectAccessReview",
        &SubjectAccessReviews,
    )
    .create_only(),
];
