use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crd_runtime::rbac::Policy;

fn event(id: &str, user: &str, verb: &str, object: Option<Value>, uri: &str, code: u16) -> String {
    let mut e = json!({
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
        "auditID": id, "stage": "ResponseComplete", "verb": verb, "requestURI": uri,
        "user": {"username": user, "groups": ["system:authenticated"]},
        "responseStatus": {"metadata": {}, "code": code},
    });
    if let Some(o) = object {
        e["objectRef"] = o;
    }
    e.to_string()
}

fn log() -> String {
    let sa = "system:serviceaccount:demo:robot";
    [
        event("1", sa, "list", Some(json!({"resource": "pods", "namespace": "demo", "apiVersion": "v1"})), "/api/v1/namespaces/demo/pods", 200),
        event("2", sa, "watch", Some(json!({"resource": "pods", "namespace": "demo", "apiVersion": "v1"})), "/api/v1/namespaces/demo/pods?watch=true", 200),
        event("3", sa, "get", Some(json!({"resource": "configmaps", "namespace": "demo", "name": "settings", "apiVersion": "v1"})), "/api/v1/namespaces/demo/configmaps/settings", 200),
        event("4", sa, "patch", Some(json!({"resource": "deployments", "namespace": "demo", "name": "web", "apiGroup": "apps", "apiVersion": "v1", "subresource": "status"})), "/apis/apps/v1/namespaces/demo/deployments/web/status", 200),
        event("5", sa, "list", Some(json!({"resource": "nodes", "apiVersion": "v1"})), "/api/v1/nodes", 403),
        event("6", sa, "get", None, "/healthz", 200),
        // Another stage of request 1: counted once.
        event("1", sa, "list", Some(json!({"resource": "pods", "namespace": "demo", "apiVersion": "v1"})), "/api/v1/namespaces/demo/pods", 200),
        // Another user.
        event("7", "alice", "delete", Some(json!({"resource": "pods", "namespace": "demo", "name": "x", "apiVersion": "v1"})), "/api/v1/namespaces/demo/pods/x", 200),
        event("8", sa, "list", Some(json!({"resource": "pods", "namespace": "demo", "apiVersion": "v1"})), "/api/v1/namespaces/demo/pods", 200),
    ]
    .join("\n")
}

const ROBOT: &str = "system:serviceaccount:demo:robot";

#[test]
fn requests_are_counted_once_per_audit_id_and_per_user() {
    let events = read_audit_log("audit.log", &log()).unwrap();
    let requests = requests_of(&events, ROBOT);
    let shown: Vec<(String, usize, bool)> = requests
        .iter()
        .map(|r| {
            (
                format!("{} {}", r.attributes.verb, r.attributes.combined_resource()),
                r.count,
                r.forbidden,
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            ("list pods".into(), 2, false),
            ("watch pods".into(), 1, false),
            ("get configmaps".into(), 1, false),
            ("patch deployments/status".into(), 1, false),
            ("list nodes".into(), 1, true),
            ("get ".into(), 1, false),
        ]
    );
    assert_eq!(requests[5].attributes.path, "/healthz");
    assert!(requests_of(&events, "nobody").is_empty());
}

#[test]
fn bad_lines_are_named() {
    let err = read_audit_log("audit.log", "\n{\"kind\":\"Event\"").unwrap_err();
    assert!(
        err.to_string().starts_with("audit.log:2: not JSON: "),
        "{err}"
    );
    let err = read_audit_log("a.log", r#"{"apiVersion":"v1","kind":"Pod"}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"a.log:1: not an audit event: apiVersion "v1", kind "Pod" (want audit.k8s.io/v1 Event)"#
    );
    let err = read_audit_log(
        "a.log",
        r#"{"apiVersion":"audit.k8s.io/v1","kind":"Event","verb":3}"#,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("a.log:1: bad event: invalid type: integer `3`"),
        "{err}"
    );
}

#[test]
fn impersonated_requests_count_for_the_impersonated_user() {
    let mut e: Value = serde_json::from_str(&event(
        "9",
        "admin",
        "get",
        Some(json!({"resource": "secrets", "namespace": "demo", "name": "s", "apiVersion": "v1"})),
        "/api/v1/namespaces/demo/secrets/s",
        403,
    ))
    .unwrap();
    e["impersonatedUser"] = json!({"username": "bob", "groups": ["dev"]});
    e["annotations"] = json!({"authorization.k8s.io/decision": "forbid"});
    let events = read_audit_log("a.log", &e.to_string()).unwrap();
    assert!(requests_of(&events, "admin").is_empty());
    let bob = requests_of(&events, "bob");
    assert_eq!(bob.len(), 1);
    assert!(bob[0].forbidden);
    assert_eq!(bob[0].attributes.user.groups, vec!["dev".to_string()]);
}

#[test]
fn minimal_roles_per_scope() {
    let events = read_audit_log("audit.log", &log()).unwrap();
    let requests = requests_of(&events, ROBOT);
    let mut options = RoleOptions::named("robot");
    options.bindings_for = Some(ROBOT.into());
    let roles = minimal_roles(&requests, &options);
    assert_eq!(
        serde_json::to_value(&roles).unwrap(),
        json!([
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
             "metadata": {"name": "robot"},
             "rules": [
                {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]},
                {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
             "metadata": {"name": "robot", "namespace": "demo"},
             "rules": [
                {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]},
                {"apiGroups": ["apps"], "resources": ["deployments/status"], "verbs": ["patch"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
             "metadata": {"name": "robot"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "robot"},
             "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "demo"}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": "robot", "namespace": "demo"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "robot"},
             "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "demo"}]}
        ])
    );
    options.resource_names = true;
    options.bindings_for = None;
    let roles = minimal_roles(&requests, &options);
    assert_eq!(
        roles[1]["rules"],
        json!([
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]},
            {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["settings"], "verbs": ["get"]},
            {"apiGroups": ["apps"], "resources": ["deployments/status"], "resourceNames": ["web"], "verbs": ["patch"]}
        ])
    );
}

fn policy_of(objects: &[Value]) -> Policy {
    let mut p = Policy::new();
    for o in objects {
        p.add(o).unwrap();
    }
    p
}

#[test]
fn check_lists_missing_and_unused_rules() {
    let events = read_audit_log("audit.log", &log()).unwrap();
    let requests = requests_of(&events, ROBOT);
    let policy = policy_of(&[json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "operator", "namespace": "demo"},
        "rules": [
            {"apiGroups": [""], "resources": ["pods", "configmaps"], "verbs": ["get", "list", "watch", "delete"]},
            {"apiGroups": ["apps"], "resources": ["deployments/status"], "verbs": ["patch"]}]})]);
    let report = check(&requests, &policy);
    assert_eq!(report.requests, 6);
    assert_eq!(report.roles, 1);
    let missing: Vec<&str> = report.missing.iter().map(|m| m.message.as_str()).collect();
    assert_eq!(
        missing,
        vec![
            r#"User "system:serviceaccount:demo:robot" cannot list resource "nodes" in API group "" at the cluster scope"#,
            r#"User "system:serviceaccount:demo:robot" cannot get path "/healthz""#,
        ]
    );
    assert!(report.missing[0].request.forbidden);
    let unused: Vec<String> = report
        .unused
        .iter()
        .map(|u| format!("{}: {}", u.role, u.rule.compact_string()))
        .collect();
    assert_eq!(
        unused,
        vec![
            r#"Role "demo/operator": {APIGroups:[""], Resources:["pods"], Verbs:["get" "delete"]}"#,
            r#"Role "demo/operator": {APIGroups:[""], Resources:["configmaps"], Verbs:["list" "watch" "delete"]}"#,
        ]
    );
    // With bindings, only the roles bound to the user count.
    let bound = policy_of(&[
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": "everything"},
               "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                         {"nonResourceURLs": ["*"], "verbs": ["*"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "someone-else"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "everything"},
               "subjects": [{"kind": "User", "name": "alice"}]}),
    ]);
    let report = check(&requests, &bound);
    assert_eq!(report.missing.len(), 6);
    assert_eq!(report.roles, 0);
}

fn arb_request() -> impl Strategy<Value = Request> {
    let ns = prop::sample::select(vec!["", "demo", "prod"]);
    let verb = prop::sample::select(vec![
        "get", "list", "watch", "create", "update", "patch", "delete",
    ]);
    let resource = prop::sample::select(vec![
        ("", "pods", ""),
        ("", "pods", "log"),
        ("apps", "deployments", ""),
        ("apps", "deployments", "status"),
        ("example.com", "widgets", ""),
    ]);
    let name = prop::sample::select(vec!["", "a", "b"]);
    let path = prop::sample::select(vec!["", "/healthz", "/metrics"]);
    (ns, verb, resource, name, path).prop_map(|(ns, verb, (group, resource, sub), name, path)| {
        let attributes = if path.is_empty() {
            crd_runtime::rbac::Attributes {
                user: crd_runtime::rbac::UserInfo::user("u"),
                verb: verb.into(),
                namespace: ns.into(),
                api_group: group.into(),
                resource: resource.into(),
                subresource: sub.into(),
                name: name.into(),
                resource_request: true,
                ..Default::default()
            }
        } else {
            crd_runtime::rbac::Attributes {
                user: crd_runtime::rbac::UserInfo::user("u"),
                verb: verb.into(),
                path: path.into(),
                ..Default::default()
            }
        };
        Request {
            attributes,
            count: 1,
            forbidden: false,
        }
    })
}

proptest! {
    /// The law the report rests on: the generated roles allow every request and
    /// hold nothing unused, with and without resource names.
    #[test]
    fn generated_roles_check_clean(requests in prop::collection::vec(arb_request(), 1..12), names: bool) {
        let mut options = RoleOptions::named("gen");
        options.resource_names = names;
        options.bindings_for = Some("u".into());
        let policy = policy_of(&minimal_roles(&requests, &options));
        let report = check(&requests, &policy);
        prop_assert!(report.missing.is_empty(), "{:?}", report.missing);
        prop_assert!(report.unused.is_empty(), "{:?}", report.unused);
    }
}
