//! The `authorizer` variable of admission policies answered by the server's RBAC
//! authorizer for the request's user: one ValidatingAdmissionPolicy, two users (reached
//! with kubectl `--as`), two answers; one MutatingAdmissionPolicy labelling what it
//! answered for each of two users (kube::Client with their tokens).

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use crd_server::{AuthConfig, AuthorizationMode, Config, StoreConfig};

const TOKENS: &str = "admin-token,admin,1000,system:masters\n";

/// alice and bob may create ConfigMaps in `default`; only alice may update Secrets.
/// The policy lets a ConfigMap be created only by who may update Secrets there (and
/// asks about the service account `robot`, which may not).
const SETUP: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: configmap-writer, namespace: default}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["create", "get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: secret-updater, namespace: default}
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: writers, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmap-writer}
subjects:
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: secret-updaters, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: secret-updater}
subjects:
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: secret-updaters-only}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('update').allowed()"
    message: "only who may update secrets may create configmaps"
    reason: Forbidden
  # The service account robot holds no role: the check answers for it, not the user.
  - expression: "!authorizer.serviceAccount('default', 'robot').group('').resource('secrets').namespace('default').check('update').allowed()"
    message: "robot may update secrets"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: secret-updaters-only}
spec:
  policyName: secret-updaters-only
  validationActions: [Deny]
"#;

const ADMIN: &[&str] = &["--insecure-skip-tls-verify", "--token", "admin-token"];

fn as_user(user: &str) -> Vec<String> {
    let mut creds: Vec<String> = ADMIN.iter().map(|s| s.to_string()).collect();
    creds.extend(["--as".to_string(), user.to_string()]);
    creds
}

fn k(url: &str, creds: &[String], args: &[&str]) -> (bool, String) {
    let mut all: Vec<&str> = creds.iter().map(String::as_str).collect();
    all.extend_from_slice(args);
    let out = support::kubectl(url, &all);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

const DENIED: &str = "only who may update secrets may create configmaps";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policies_ask_the_authorizer_for_the_requests_user() {
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
    let admin: Vec<String> = ADMIN.iter().map(|s| s.to_string()).collect();
    let setup = support::write(dir, "setup.yaml", SETUP);
    let (ok, out) = k(url, &admin, &["apply", "-f", &setup]);
    assert!(ok, "{out}");
    let (bob, alice) = (as_user("bob"), as_user("alice"));
    // The policy takes effect once the server has read it: bob is refused.
    let deadline = Instant::now() + Duration::from_secs(10);
    let refusal = loop {
        let (ok, out) = k(
            url,
            &bob,
            &["create", "configmap", "probe", "--dry-run=server"],
        );
        if !ok && out.contains(DENIED) {
            break out;
        }
        assert!(
            Instant::now() < deadline,
            "the policy never took effect: {out}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        refusal.contains(
            "configmaps \"probe\" is forbidden: ValidatingAdmissionPolicy 'secret-updaters-only' with binding 'secret-updaters-only' denied request: only who may update secrets may create configmaps"
        ),
        "{refusal}"
    );
    // alice may update secrets: her ConfigMap is created by the same policy.
    let (ok, out) = k(url, &alice, &["create", "configmap", "alices"]);
    assert!(ok, "{out}");
    let (ok, out) = k(url, &bob, &["create", "configmap", "bobs"]);
    assert!(!ok && out.contains(DENIED), "{out}");
    // The admin (system:masters) is allowed by the authorizer too.
    let (ok, out) = k(url, &admin, &["create", "configmap", "admins"]);
    assert!(ok, "{out}");
    // Granting bob the Secret updates changes the policy's answer.
    let (ok, out) = k(
        url,
        &admin,
        &[
            "create",
            "rolebinding",
            "bob-secrets",
            "--role=secret-updater",
            "--user=bob",
        ],
    );
    assert!(ok, "{out}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (ok, out) = k(url, &bob, &["create", "configmap", "bobs"]);
        if ok {
            break;
        }
        assert!(Instant::now() < deadline, "bob is still refused: {out}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A MutatingAdmissionPolicy (1.36) labels each new ConfigMap with what the authorizer
/// answers for its creator: whether they may update Secrets in its namespace.
const MUTATING: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label-secret-updaters}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"secret-updater":
          authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('update').allowed() ? "yes" : "no"}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label-secret-updaters}
spec:
  policyName: label-secret-updaters
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_policies_ask_the_authorizer_too() {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::PostParams;

    let version = crd_runtime::KubeVersion::new(36).expect("1.36");
    let server = crd_server::TestServer::builder()
        .rbac()
        .kube_version(version)
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let roles = SETUP
        .split("---")
        .filter(|doc| doc.contains("kind: Role"))
        .map(|doc| doc.replace("namespace: default", &format!("namespace: {ns}")))
        .collect::<Vec<_>>()
        .join("---");
    server.apply_yaml(&roles).await.expect("roles");
    server.apply_yaml(MUTATING).await.expect("policy");
    let as_user = |name: &str| {
        let uri: http::Uri = server.url().parse().expect("url");
        let mut config = kube::Config::new(uri);
        config.auth_info.token = Some(server.token_for_user(name, &[]).into());
        kube::Client::try_from(config).expect("client")
    };
    let label_of = |user: &'static str| {
        let api: kube::Api<ConfigMap> = kube::Api::namespaced(as_user(user), &ns);
        async move {
            let deadline = Instant::now() + Duration::from_secs(10);
            for n in 0.. {
                let cm: ConfigMap = serde_json::from_value(serde_json::json!({
                    "metadata": {"name": format!("{user}-{n}")}
                }))
                .expect("configmap");
                let made = api
                    .create(&PostParams::default(), &cm)
                    .await
                    .expect("create");
                let label = made
                    .metadata
                    .labels
                    .and_then(|l| l.get("secret-updater").cloned());
                if let Some(label) = label {
                    return label;
                }
                assert!(Instant::now() < deadline, "the policy never took effect");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            unreachable!("the loop returns or fails")
        }
    };
    assert_eq!(label_of("alice").await, "yes");
    assert_eq!(label_of("bob").await, "no");
}
