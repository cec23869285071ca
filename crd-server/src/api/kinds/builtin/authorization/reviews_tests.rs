use std::sync::Arc;

use super::*;
use crate::auth::rbac_fixtures::{rbac_authorizer, role, user_binding};

async fn authorizer(objects: &[(String, Value)]) -> Arc<Authorizer> {
    let matches = crate::api::selectors::label::aggregation_matches;
    Arc::new(rbac_authorizer(objects, matches).await)
}

fn rbac_objects() -> Vec<(String, Value)> {
    vec![
        role(
            "demo",
            "reader",
            json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]),
        ),
        user_binding("demo", "alice-reads", "reader", "alice"),
    ]
}

async fn as_caller<T>(user: UserInfo, authorizer: Arc<Authorizer>, f: impl FnOnce() -> T) -> T {
    let caller = Arc::new(Caller { user, authorizer });
    context::scope(caller, async move { f() }).await
}

#[tokio::test]
async fn access_reviews_are_answered_by_the_authorizer() {
    let authz = authorizer(&rbac_objects()).await;
    let review = |verb: &str| json!({"spec": {"resourceAttributes": {"namespace": "demo", "verb": verb, "resource": "pods"}}});
    let alice = UserInfo::user("alice");
    let allowed = as_caller(alice.clone(), authz.clone(), || {
        AccessReviews.answer_create(&review("list"))
    })
    .await
    .unwrap();
    assert_eq!(
        allowed["status"],
        json!({"allowed": true, "reason": "RBAC: allowed by RoleBinding \"alice-reads/demo\" of Role \"reader\" to User \"alice\""})
    );
    let refused = as_caller(alice, authz.clone(), || {
        AccessReviews.answer_create(&review("delete"))
    })
    .await
    .unwrap();
    assert_eq!(refused["status"], json!({"allowed": false}));
    // A SubjectAccessReview asks about the user it names, whoever asks.
    let sar = json!({"spec": {"user": "alice", "resourceAttributes": {"namespace": "demo", "verb": "get", "resource": "pods"}}});
    let answer = as_caller(UserInfo::user("bob"), authz.clone(), || {
        SubjectAccessReviews.answer_create(&sar)
    })
    .await
    .unwrap();
    assert_eq!(answer["status"]["allowed"], true);
    // A local review is in its own namespace.
    let lsar = json!({"metadata": {"namespace": "other"}, "spec": {"user": "alice", "resourceAttributes": {"verb": "get", "resource": "pods"}}});
    let answer = as_caller(UserInfo::user("bob"), authz, || {
        LocalSubjectAccessReviews.answer_create(&lsar)
    })
    .await
    .unwrap();
    assert_eq!(answer["status"]["allowed"], false);
}

#[tokio::test]
async fn rules_reviews_list_the_callers_rules() {
    let authz = authorizer(&rbac_objects()).await;
    let answer = as_caller(UserInfo::user("alice"), authz, || {
        RulesReviews.answer_create(&json!({"spec": {"namespace": "demo"}}))
    })
    .await
    .unwrap();
    assert_eq!(
        answer["status"]["resourceRules"],
        json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}])
    );
    assert_eq!(answer["status"]["incomplete"], false);
}

#[test]
fn reviews_are_checked_as_upstream_checks_them() {
    assert_eq!(
        errors_of(&AccessReviews, &json!({"spec": {}}), None),
        [
            "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified"
        ]
    );
    assert_eq!(
        errors_of(
            &SubjectAccessReviews,
            &json!({"spec": {"nonResourceAttributes": {"path": "/x", "verb": "get"}}}),
            None
        ),
        ["spec.user: Invalid value: \"\": at least one of user or group must be specified"]
    );
    assert_eq!(
        errors_of(
            &LocalSubjectAccessReviews,
            &json!({"metadata": {"namespace": "demo"}, "spec": {"user": "a", "resourceAttributes": {"namespace": "x", "verb": "get", "resource": "pods"}}}),
            None
        ),
        ["spec.resourceAttributes.namespace: Invalid value: \"x\": must match namespace: demo"]
    );
}
