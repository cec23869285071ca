//! RBAC's escalation prevention with the real kubectl against a server in RBAC mode:
//! a user may only write Roles whose rules they hold (or `escalate`), and only bind
//! roles whose rules they hold (or `bind`), with kube-apiserver's 403 texts. The user
//! is `bob`, reached by impersonation (`--as`) from a token in `system:masters`.

mod support;

use std::path::Path;

use crd_server::{AuthConfig, AuthorizationMode, Config, StoreConfig};

const TOKENS: &str = "admin-token,admin,1000,system:masters\n";

const SETUP: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: default}
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: rbac-writer, namespace: default}
rules:
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["create", "update", "patch", "get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-reads, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects: [{kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-writes-rbac, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: rbac-writer}
subjects: [{kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: clusterrole-writer}
rules:
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: secrets-admin}
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: configmaps-admin}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bob-writes-clusterroles}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: clusterrole-writer}
subjects: [{kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}]
"#;

const TOO_MUCH: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: too-much, namespace: default}
rules:
- apiGroups: [""]
  resources: ["pods", "secrets"]
  verbs: ["get", "delete"]
"#;

const HELD: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: held, namespace: default}
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list"]
"#;

/// Lets bob bind the `secrets-admin` ClusterRole in `default`, and escalate Roles there.
const GRANTS: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: delegation, namespace: default}
rules:
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles"]
  resourceNames: ["secrets-admin"]
  verbs: ["bind"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles"]
  verbs: ["escalate"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-delegates, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: delegation}
subjects: [{kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}]
"#;

// kubectl sends tokens over TLS only.
const ADMIN: &[&str] = &["--insecure-skip-tls-verify", "--token", "admin-token"];
const BOB: &[&str] = &[
    "--insecure-skip-tls-verify",
    "--token",
    "admin-token",
    "--as",
    "bob",
];

fn k(url: &str, creds: &[&str], args: &[&str]) -> (bool, String) {
    let mut all = creds.to_vec();
    all.extend_from_slice(args);
    let out = support::kubectl(url, &all);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn ok(url: &str, creds: &[&str], args: &[&str]) -> String {
    let (success, text) = k(url, creds, args);
    assert!(success, "kubectl {creds:?} {args:?} failed: {text}");
    text
}

fn refused(url: &str, creds: &[&str], args: &[&str]) -> String {
    let (success, text) = k(url, creds, args);
    assert!(!success, "kubectl {creds:?} {args:?} should fail: {text}");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_and_bindings_cannot_grant_more_than_their_writer_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(support::self_signed_tls(dir.path())),
        auth: AuthConfig {
            token_auth_file: Some(tokens),
            authorization_modes: vec![AuthorizationMode::Rbac],
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();
    let dir = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || walk(&url, &dir))
        .await
        .expect("walk");
}

fn walk(url: &str, dir: &Path) {
    let file = |name: &str, text: &str| support::write(dir, name, text);
    ok(url, ADMIN, &["apply", "-f", &file("setup.yaml", SETUP)]);

    // A Role with rules bob holds is created; one with more is refused, listing
    // what is missing as kube-apiserver does (compacted, sorted).
    ok(url, BOB, &["create", "-f", &file("held.yaml", HELD)]);
    let too_much = file("too-much.yaml", TOO_MUCH);
    let out = refused(url, BOB, &["create", "-f", &too_much]);
    assert!(
        out.contains(
            "roles.rbac.authorization.k8s.io \"too-much\" is forbidden: user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n\
             {APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n\
             {APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"delete\"]}"
        ),
        "{out}"
    );
    // An update that adds rules is checked too.
    let out = refused(
        url,
        BOB,
        &[
            "patch",
            "role",
            "held",
            "--type=json",
            "-p",
            r#"[{"op":"add","path":"/rules/-","value":{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]}}]"#,
        ],
    );
    assert!(
        out.contains("roles.rbac.authorization.k8s.io \"held\" is forbidden: user \"bob\"")
            && out.contains("{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"get\"]}"),
        "{out}"
    );

    // Binding a role bob does not hold is refused; a role he holds is bound.
    let out = refused(
        url,
        BOB,
        &[
            "create",
            "rolebinding",
            "carol-secrets",
            "--clusterrole=secrets-admin",
            "--user=carol",
        ],
    );
    assert!(
        out.contains("rolebindings.rbac.authorization.k8s.io \"carol-secrets\" is forbidden: user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:"),
        "{out}"
    );
    ok(
        url,
        BOB,
        &[
            "create",
            "rolebinding",
            "carol-reads",
            "--role=pod-reader",
            "--user=carol",
        ],
    );
    // A binding to a role that does not exist: the role is not found.
    let out = refused(
        url,
        BOB,
        &[
            "create",
            "rolebinding",
            "ghost",
            "--role=ghost",
            "--user=carol",
        ],
    );
    assert!(
        out.contains("roles.rbac.authorization.k8s.io \"ghost\" not found"),
        "{out}"
    );

    // An aggregation rule can gather anything: cluster-admin only.
    let out = refused(
        url,
        BOB,
        &[
            "create",
            "clusterrole",
            "gathers",
            "--aggregation-rule=team=a",
        ],
    );
    assert!(
        out.contains("clusterroles.rbac.authorization.k8s.io \"gathers\" is forbidden: must have cluster-admin privileges to use the aggregationRule"),
        "{out}"
    );

    // `bind` on the ClusterRole and `escalate` on roles lift the checks.
    ok(url, ADMIN, &["apply", "-f", &file("grants.yaml", GRANTS)]);
    ok(
        url,
        BOB,
        &[
            "create",
            "rolebinding",
            "carol-secrets",
            "--clusterrole=secrets-admin",
            "--user=carol",
        ],
    );
    ok(url, BOB, &["create", "-f", &too_much]);
    // The bind grant names `secrets-admin` only.
    let out = refused(
        url,
        BOB,
        &[
            "create",
            "rolebinding",
            "carol-configmaps",
            "--clusterrole=configmaps-admin",
            "--user=carol",
        ],
    );
    assert!(
        out.contains("is attempting to grant RBAC permissions not currently held"),
        "{out}"
    );
    // The privileged group is never checked.
    ok(
        url,
        ADMIN,
        &[
            "create",
            "clusterrole",
            "gathers",
            "--aggregation-rule=team=a",
        ],
    );
}
