use serde_json::json;

use super::*;
use crate::auth::rbac_fixtures::{rbac_authorizer, role as stored_role, user_binding};

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    PolicyRule {
        api_groups: v(groups),
        resources: v(resources),
        verbs: v(verbs),
        ..PolicyRule::default()
    }
}

async fn authorizer() -> Authorizer {
    let objects = [
        stored_role(
            "demo",
            "pod-reader",
            json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]),
        ),
        stored_role(
            "demo",
            "pod-admin",
            json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["*"]}]),
        ),
        stored_role(
            "demo",
            "rbac-writer",
            json!([{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"], "verbs": ["create", "update"]}]),
        ),
        user_binding("demo", "bob", "pod-reader", "bob"),
        user_binding("demo", "bob-writes", "rbac-writer", "bob"),
    ];
    // No aggregated roles here: no selector matches.
    rbac_authorizer(&objects, |_, _| false).await
}

fn role(rules: Value) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
           "metadata": {"name": "new", "namespace": "demo"}, "rules": rules})
}

fn write<'a>(resource: &'a str, obj: &'a Value) -> Write<'a> {
    Write {
        resource,
        namespace: "demo",
        url_name: "",
        obj,
        old: None,
    }
}

#[test]
fn compacted_rules_merge_verbs_of_one_group_and_resource() {
    let missing = vec![
        rule(&[""], &["pods"], &["create"]),
        rule(&["apps"], &["deployments"], &["get"]),
        rule(&[""], &["pods"], &["delete"]),
    ];
    assert_eq!(
        compact_rules(&missing),
        vec![
            rule(&[""], &["pods"], &["create", "delete"]),
            rule(&["apps"], &["deployments"], &["get"]),
        ]
    );
    // Rules with names stay as they are.
    let mut named = rule(&[""], &["secrets"], &["get"]);
    named.resource_names = vec!["a".into()];
    assert_eq!(compact_rules(std::slice::from_ref(&named)), vec![named]);
}

#[test]
fn the_message_lists_the_missing_rules_sorted_as_upstream() {
    let user = UserInfo::user("bob");
    let missing = vec![
        rule(&[""], &["secrets"], &["get"]),
        rule(&["apps"], &["deployments"], &["list"]),
        rule(&[""], &["secrets"], &["list"]),
    ];
    assert_eq!(
        escalation_message(&user, &missing, &[]),
        "user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n\
         {APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\"]}\n\
         {APIGroups:[\"apps\"], Resources:[\"deployments\"], Verbs:[\"list\"]}"
    );
    assert!(
        escalation_message(
            &user,
            &missing,
            &["role.rbac.authorization.k8s.io \"x\" not found".into()]
        )
        .ends_with("; resolution errors: [role.rbac.authorization.k8s.io \"x\" not found]")
    );
}

#[tokio::test]
async fn a_role_may_only_grant_what_its_writer_holds() {
    let authz = authorizer().await;
    let bob = UserInfo::user("bob");
    let held = role(json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]));
    assert_eq!(
        check_write(&authz, &bob, &write("roles", &held)).await,
        Ok(())
    );
    let more = role(
        json!([{"apiGroups": [""], "resources": ["pods", "secrets"], "verbs": ["get", "delete"]}]),
    );
    let Err(Refusal::Forbidden(msg)) = check_write(&authz, &bob, &write("roles", &more)).await
    else {
        panic!("escalation allowed");
    };
    assert!(
        msg.ends_with(
            "not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n\
         {APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"delete\"]}"
        ),
        "{msg}"
    );
    // The privileged group is never checked.
    let mut root = UserInfo::user("root");
    root.groups.push(MASTERS.into());
    assert_eq!(
        check_write(&authz, &root, &write("roles", &more)).await,
        Ok(())
    );
}

#[tokio::test]
async fn a_binding_needs_the_roles_rules_or_the_bind_verb() {
    let authz = authorizer().await;
    let bob = UserInfo::user("bob");
    let binding = |name: &str| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "b", "namespace": "demo"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
               "subjects": [{"kind": "User", "name": "carol", "apiGroup": "rbac.authorization.k8s.io"}]})
    };
    let reader = binding("pod-reader");
    assert_eq!(
        check_write(&authz, &bob, &write("rolebindings", &reader)).await,
        Ok(())
    );
    let admin = binding("pod-admin");
    let refused = check_write(&authz, &bob, &write("rolebindings", &admin)).await;
    assert!(
        matches!(&refused, Err(Refusal::Forbidden(m)) if m.ends_with("{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"*\"]}")),
        "{refused:?}"
    );
    let missing = binding("nope");
    assert_eq!(
        check_write(&authz, &bob, &write("rolebindings", &missing)).await,
        Err(Refusal::RoleNotFound("roles", "nope".into()))
    );
}

#[test]
fn owner_references_and_finalizers_alone_are_not_checked() {
    let old = json!({"metadata": {"name": "r", "resourceVersion": "3"}, "rules": []});
    let gc =
        json!({"metadata": {"name": "r", "finalizers": ["x"], "ownerReferences": []}, "rules": []});
    assert!(only_gc_fields_change(&gc, &old));
    let changed = json!({"metadata": {"name": "r"}, "rules": [{"verbs": ["get"]}]});
    assert!(!only_gc_fields_change(&changed, &old));
}
