//! The self reviews kubectl asks (`kubectl auth can-i`, `kubectl auth whoami`):
//! SelfSubjectAccessReview, SelfSubjectRulesReview and SelfSubjectReview, answered
//! for the server's single user, who holds `cluster-admin`: every access is allowed,
//! with the reason kube-apiserver's RBAC authorizer gives for it. Their protobuf
//! bodies (what kubectl sends) are read by the generated tables.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::rbac::bootstrap_policy::user_rules;

/// Why the single user may do anything, as the RBAC authorizer words it.
const ALLOWED: &str = "RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" to Group \"system:masters\"";

pub(crate) fn with_status(obj: &Value, status: Value) -> Value {
    let mut out = obj.clone();
    out["status"] = status;
    if out.get("metadata").is_none_or(Value::is_null) {
        out["metadata"] = json!({});
    }
    out
}

/// SelfSubjectAccessReviews.
pub struct AccessReviews;

defaults!(AccessReviews: Defaulter, Preparer, Printer, Deleter, AllocateStrategy);

impl Validator for AccessReviews {
    /// `ValidateSelfSubjectAccessReviewSpec`: exactly one kind of attributes.
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let spec = Path::new("spec");
        let attrs = |f: &str| obj.pointer(&format!("/spec/{f}")).filter(|v| !v.is_null());
        let non_resource = attrs("nonResourceAttributes");
        match (attrs("resourceAttributes"), non_resource) {
            (Some(_), Some(nr)) => errs.push(FieldError::invalid(
                spec.child("nonResourceAttributes"),
                BadValue::from_json(nr),
                "cannot be specified in combination with resourceAttributes",
            )),
            (None, None) => errs.push(FieldError::invalid(
                spec.child("resourceAttributes"),
                BadValue::Json(Value::Null),
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            )),
            _ => {}
        }
    }
}

impl Serving for AccessReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        Some(with_status(
            obj,
            json!({"allowed": true, "reason": ALLOWED}),
        ))
    }
}

/// SelfSubjectRulesReviews.
pub struct RulesReviews;

defaults!(RulesReviews: Defaulter, Validator, Preparer, Printer, Deleter, AllocateStrategy);

impl Serving for RulesReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        let (resources, non_resources) = user_rules();
        Some(with_status(
            obj,
            json!({
                "resourceRules": resources,
                "nonResourceRules": non_resources,
                "incomplete": false,
            }),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_access_is_allowed_and_attributes_are_checked() {
        let review =
            json!({"spec": {"resourceAttributes": {"verb": "create", "resource": "pods"}}});
        let answer = AccessReviews.answer_create(&review).unwrap();
        assert_eq!(answer["status"]["allowed"], true);
        let mut errs = ErrorList::new();
        AccessReviews.validate(&json!({"spec": {}}), None, &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified"
            ]
        );
    }
}
