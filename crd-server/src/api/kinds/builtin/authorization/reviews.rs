//! The access and rules reviews (`kubectl auth can-i`, `--list`), answered by the
//! server's authorizer for the caller (SelfSubjectAccessReview,
//! SelfSubjectRulesReview) or for the user the review names (SubjectAccessReview,
//! LocalSubjectAccessReview), as kube-apiserver's review storage answers them. Their
//! protobuf bodies (what kubectl sends) are read by the generated tables.

use std::sync::Arc;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::rbac::{Attributes, UserInfo};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::object::str_at;
use crate::auth::context::{self, Caller};
use crate::auth::{Authorizer, Decision};

pub(crate) fn with_status(obj: &Value, status: Value) -> Value {
    let mut out = obj.clone();
    out["status"] = status;
    if out.get("metadata").is_none_or(Value::is_null) {
        out["metadata"] = json!({});
    }
    out
}

/// The caller of the request, or the server's single user outside one.
fn caller() -> Option<Arc<Caller>> {
    context::caller()
}

/// Which review a kind is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    /// The caller (`SelfSubjectAccessReview`).
    Caller,
    /// The user of `spec` (`SubjectAccessReview`).
    Subject,
    /// The user of `spec`, in the review's namespace (`LocalSubjectAccessReview`).
    Local,
}

/// SelfSubjectAccessReviews.
pub struct AccessReviews;
/// SubjectAccessReviews.
pub struct SubjectAccessReviews;
/// LocalSubjectAccessReviews.
pub struct LocalSubjectAccessReviews;

defaults!(AccessReviews: Defaulter, Preparer, Printer, Deleter, AllocateStrategy);
defaults!(SubjectAccessReviews: Defaulter, Preparer, Printer, Deleter, AllocateStrategy);
defaults!(LocalSubjectAccessReviews: Defaulter, Preparer, Printer, Deleter, AllocateStrategy);

fn attrs_at<'a>(obj: &'a Value, f: &str) -> Option<&'a Value> {
    obj.pointer(&format!("/spec/{f}")).filter(|v| !v.is_null())
}

/// `ValidateSelfSubjectAccessReviewSpec` and the subject checks of the others.
fn validate_review(who: Who, obj: &Value, errs: &mut ErrorList) {
    let spec = Path::new("spec");
    let non_resource = attrs_at(obj, "nonResourceAttributes");
    match (attrs_at(obj, "resourceAttributes"), non_resource) {
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
    if who == Who::Caller {
        return;
    }
    let user = str_at(obj, "/spec/user");
    let groups = obj.pointer("/spec/groups").and_then(Value::as_array);
    if user.is_empty() && groups.is_none_or(|g| g.is_empty()) {
        errs.push(FieldError::invalid(
            spec.child("user"),
            BadValue::Str(user.to_string()),
            "at least one of user or group must be specified",
        ));
    }
    if who == Who::Local {
        if let Some(nr) = non_resource {
            errs.push(FieldError::invalid(
                spec.child("nonResourceAttributes"),
                BadValue::from_json(nr),
                "disallowed on this kind of request",
            ));
        }
        let namespace = str_at(obj, "/metadata/namespace");
        let asked = str_at(obj, "/spec/resourceAttributes/namespace");
        if !asked.is_empty() && asked != namespace {
            errs.push(FieldError::invalid(
                spec.child("resourceAttributes").child("namespace"),
                BadValue::Str(asked.to_string()),
                format!("must match namespace: {namespace}"),
            ));
        }
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The user a review asks about.
fn subject_of(who: Who, obj: &Value, caller: Option<&Caller>) -> UserInfo {
    if who == Who::Caller {
        return caller
            .map(|c| c.user.clone())
            .unwrap_or_else(crate::auth::context::user);
    }
    let spec = &obj["spec"];
    UserInfo {
        name: spec["user"].as_str().unwrap_or("").to_string(),
        uid: spec["uid"].as_str().unwrap_or("").to_string(),
        groups: strings(spec.get("groups")),
        extra: spec["extra"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), strings(Some(v))))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The authorizer's attributes of a review's spec (`ResourceAttributesFrom`,
/// `NonResourceAttributesFrom`).
fn review_attributes(who: Who, obj: &Value, user: UserInfo) -> Attributes {
    let s = |v: &Value, f: &str| v[f].as_str().unwrap_or("").to_string();
    match attrs_at(obj, "resourceAttributes") {
        Some(r) => {
            let mut namespace = s(r, "namespace");
            if who == Who::Local {
                namespace = str_at(obj, "/metadata/namespace").to_string();
            }
            Attributes {
                user,
                verb: s(r, "verb"),
                namespace,
                api_group: s(r, "group"),
                api_version: s(r, "version"),
                resource: s(r, "resource"),
                subresource: s(r, "subresource"),
                name: s(r, "name"),
                resource_request: true,
                ..Attributes::default()
            }
        }
        None => {
            let nr = attrs_at(obj, "nonResourceAttributes")
                .cloned()
                .unwrap_or_default();
            Attributes {
                user,
                verb: s(&nr, "verb"),
                path: s(&nr, "path"),
                ..Attributes::default()
            }
        }
    }
}

/// Asks the caller's authorizer about an access review of kind `plural` before it is
/// answered, so that a `Webhook` authorization mode's verdict is in its cache: the
/// answer itself is synchronous and reads the webhook's cache only.
pub async fn prefetch(plural: &str, obj: &Value) {
    let who = match plural {
        "selfsubjectaccessreviews" => Who::Caller,
        "subjectaccessreviews" => Who::Subject,
        "localsubjectaccessreviews" => Who::Local,
        _ => return,
    };
    let Some(caller) = caller() else { return };
    let user = subject_of(who, obj, Some(&caller));
    let attrs = review_attributes(who, obj, user);
    caller.authorizer.decide(&attrs).await;
}

fn decide(authorizer: Option<&Authorizer>, attrs: &Attributes) -> (Decision, String) {
    match authorizer {
        Some(a) => a.authorize(attrs),
        None => (Decision::Allow, String::new()),
    }
}

fn answer(who: Who, obj: &Value) -> Value {
    let caller = caller();
    let user = subject_of(who, obj, caller.as_deref());
    let attrs = review_attributes(who, obj, user);
    let (decision, reason) = decide(caller.as_ref().map(|c| c.authorizer.as_ref()), &attrs);
    let mut status = json!({"allowed": decision == Decision::Allow});
    if decision == Decision::Deny {
        status["denied"] = json!(true);
    }
    if !reason.is_empty() {
        status["reason"] = json!(reason);
    }
    with_status(obj, status)
}

impl Validator for AccessReviews {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        validate_review(Who::Caller, obj, errs);
    }
}

impl Validator for SubjectAccessReviews {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        validate_review(Who::Subject, obj, errs);
    }
}

impl Validator for LocalSubjectAccessReviews {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        validate_review(Who::Local, obj, errs);
    }
}

impl Serving for AccessReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        Some(answer(Who::Caller, obj))
    }
}

impl Serving for SubjectAccessReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        Some(answer(Who::Subject, obj))
    }
}

impl Serving for LocalSubjectAccessReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        Some(answer(Who::Local, obj))
    }
}

/// SelfSubjectRulesReviews.
pub struct RulesReviews;

defaults!(RulesReviews: Defaulter, Validator, Preparer, Printer, Deleter, AllocateStrategy);

impl Serving for RulesReviews {
    fn answer_create(&self, obj: &Value) -> Option<Value> {
        let caller = caller();
        let namespace = str_at(obj, "/spec/namespace");
        let (rules, incomplete, error) = match &caller {
            Some(c) => c.authorizer.rules_now(&c.user, namespace),
            None => (Vec::new(), true, String::new()),
        };
        let (resources, non_resources) = crate::auth::rules_review(&rules);
        let mut status = json!({
            "resourceRules": resources,
            "nonResourceRules": non_resources,
            "incomplete": incomplete,
        });
        if !error.is_empty() {
            status["evaluationError"] = json!(error);
        }
        Some(with_status(obj, status))
    }
}

#[cfg(test)]
#[path = "reviews_tests.rs"]
mod tests;
