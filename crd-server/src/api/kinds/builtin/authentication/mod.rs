//! authentication.k8s.io/v1: SelfSubjectReview (`kubectl auth whoami`), created and
//! answered with the caller's user as the server authenticated it (after
//! impersonation), never stored.

use serde_json::{Value, json};

use crate::api::kinds::builtin::Spec;
use crate::api::kinds::builtin::authorization::reviews::with_status;
use crate::api::kinds::builtin::behaviour::*;

pub(super) static KINDS: &[Spec] = &[Spec::v1(
    "authentication.k8s.io",
    "selfsubjectreviews",
    "selfsubjectreview",
    "SelfSubjectReview",
    "io.k8s.api.authentication.v1.SelfSubjectReview",
    &SelfReviews,
)
.create_only()];

/// SelfSubjectReviews.
pub struct SelfReviews;

defaults!(SelfReviews: Defaulter, Validator, Preparer, Printer, Deleter, AllocateStrategy);

impl Serving for SelfReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        let user = crate::auth::context::user();
        Some(with_status(obj, json!({"userInfo": user})))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_a_request_the_user_is_the_servers_own() {
        let me = SelfReviews.answer_create(&json!({})).unwrap();
        assert_eq!(me["status"]["userInfo"]["username"], "system:admin");
        assert_eq!(
            me["status"]["userInfo"]["groups"],
            json!(["system:masters", "system:authenticated"])
        );
    }
}
