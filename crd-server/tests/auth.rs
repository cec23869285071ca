//! Who is calling, with the real kubectl over TLS (kubectl sends credentials only over
//! TLS): static tokens (`--token-auth-file`), client certificates made with openssl
//! (`--client-ca-file`), anonymous requests, RBAC's refusals with kube-apiserver's
//! Status, impersonation (`--as`), `kubectl auth can-i` / `auth whoami`, a
//! SubjectAccessReview, `kubectl create token` and the service-account issuer's
//! discovery documents; and bad configuration refused at start.

mod support;

use std::path::Path;
use std::process::Command;

use crd_server::{AuthConfig, AuthorizationMode, Config, StoreConfig, TlsFiles};
use serde_json::{Value, json};

use support::openssl;

/// The server's certificate (rcgen), a client CA and carol's client certificate
/// (CN=carol, O=dev), both made with openssl.
fn pki(dir: &Path) -> TlsFiles {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("certificate");
    let (cert_file, key_file) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&cert_file, cert.cert.pem()).expect("write cert");
    std::fs::write(&key_file, cert.signing_key.serialize_pem()).expect("write key");
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "1",
            "-subj",
            "/CN=test-client-ca",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "carol.key",
            "-out",
            "carol.csr",
            "-subj",
            "/CN=carol/O=dev",
        ],
    );
    std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\n").expect("ext");
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "carol.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "carol.crt",
            "-days",
            "1",
            "-extfile",
            "client.ext",
        ],
    );
    TlsFiles {
        cert: cert_file,
        key: key_file,
    }
}

const TOKENS: &str = "admin-token,admin,1000,system:masters\nalice-token,alice,1001,\"dev,ops\"\n";

const RBAC: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: readers
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pod-reader
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
- kind: ServiceAccount
  name: robot
  namespace: default
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: robot
  namespace: default
"#;

const SAR: &str = r#"
apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: alice
  groups: ["dev"]
  resourceAttributes:
    namespace: default
    verb: list
    resource: pods
"#;

const AUDIT_POLICY: &str = r#"
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/version"]
- level: Metadata
"#;

/// What kubectl says of a 401.
const UNAUTHORIZED: &str = "You must be logged in to the server (the server has asked for the client to provide credentials)";

/// kubectl over TLS with the given credentials: (success, stdout, stderr).
fn k(url: &str, creds: &[&str], args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["--insecure-skip-tls-verify"];
    all.extend_from_slice(creds);
    all.extend_from_slice(args);
    let out = support::kubectl(url, &all);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(url: &str, creds: &[&str], args: &[&str]) -> String {
    let (success, out, err) = k(url, creds, args);
    assert!(success, "kubectl {creds:?} {args:?} failed: {out}{err}");
    out
}

fn err(url: &str, creds: &[&str], args: &[&str]) -> String {
    let (success, out, err) = k(url, creds, args);
    assert!(!success, "kubectl {creds:?} {args:?} should fail: {out}");
    err
}

/// The JSON body of a GET without credentials.
fn curl(url: &str) -> Value {
    let out = Command::new("curl")
        .args(["-sk", url])
        .output()
        .unwrap_or_else(|e| panic!("cannot run curl ({e}); it must be installed"));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{url}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn whoami(url: &str, creds: &[&str]) -> Value {
    let out = ok(url, creds, &["auth", "whoami", "-o", "json"]);
    serde_json::from_str::<Value>(&out).expect("whoami json")["status"]["userInfo"].clone()
}

fn can_i(url: &str, creds: &[&str], args: &[&str]) -> String {
    let mut all = vec!["auth", "can-i"];
    all.extend_from_slice(args);
    k(url, creds, &all).1.trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_are_authenticated_and_authorized_by_rbac_with_kubectl() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tls = pki(dir.path());
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(tls),
        auth: AuthConfig {
            token_auth_file: Some(tokens),
            client_ca_file: Some(dir.path().join("ca.crt")),
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
    let admin: &[&str] = &["--token", "admin-token"];
    let alice: &[&str] = &["--token", "alice-token"];
    let rbac = support::write(dir, "rbac.yaml", RBAC);
    ok(url, admin, &["apply", "-f", &rbac]);

    // Static tokens, with kube-apiserver's refusal.
    ok(url, alice, &["get", "pods", "-n", "default"]);
    let e = err(url, alice, &["get", "secrets", "-n", "default"]);
    assert!(
        e.contains(r#"Error from server (Forbidden): secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default""#),
        "{e}"
    );
    let me = whoami(url, alice);
    assert_eq!(me["username"], "alice");
    assert_eq!(me["uid"], "1001");
    assert_eq!(me["groups"], json!(["dev", "ops", "system:authenticated"]));
    assert_eq!(can_i(url, alice, &["list", "pods", "-n", "default"]), "yes");
    assert_eq!(can_i(url, alice, &["delete", "nodes"]), "no");
    let e = err(url, &["--token", "forged"], &["get", "pods"]);
    assert!(e.contains(UNAUTHORIZED), "{e}");

    // A client certificate: CN the user, O the groups.
    let carol = [
        "--client-certificate",
        &dir.join("carol.crt").display().to_string(),
        "--client-key",
        &dir.join("carol.key").display().to_string(),
    ]
    .map(|s| s.to_string());
    let carol: Vec<&str> = carol.iter().map(String::as_str).collect();
    let me = whoami(url, &carol);
    assert_eq!(me["username"], "carol");
    assert_eq!(me["groups"], json!(["dev", "system:authenticated"]));
    let e = err(url, &carol, &["get", "pods", "-n", "default"]);
    assert!(
        e.contains(r#"User "carol" cannot list resource "pods""#),
        "{e}"
    );

    // No credentials: the anonymous user (kubectl would prompt for credentials).
    let status = curl(&format!("{url}/api/v1/namespaces/default/pods"));
    assert_eq!(status["code"], 403, "{status}");
    assert_eq!(
        status["message"],
        r#"pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default""#
    );
    assert_eq!(status["details"], json!({"kind": "pods"}));

    // Impersonation: checked with the `impersonate` verb, then the request is the
    // impersonated user's.
    let e = err(
        url,
        admin,
        &[
            "--as=system:serviceaccount:demo:default",
            "get",
            "secrets",
            "-n",
            "default",
        ],
    );
    assert!(
        e.contains(r#"secrets is forbidden: User "system:serviceaccount:demo:default" cannot list resource "secrets" in API group "" in the namespace "default""#),
        "{e}"
    );
    // (`get --raw`: kubectl's discovery client words a refused discovery `unknown`.)
    let e = err(
        url,
        alice,
        &[
            "--as=bob",
            "get",
            "--raw",
            "/api/v1/namespaces/default/pods",
        ],
    );
    assert!(
        e.contains(r#"users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope"#),
        "{e}"
    );
    assert_eq!(can_i(url, admin, &["delete", "nodes", "--as=bob"]), "no");
    assert_eq!(
        can_i(url, admin, &["list", "pods", "-n", "default", "--as=alice"]),
        "yes"
    );
    let me = whoami(url, &[admin, &["--as=bob", "--as-group=qa"]].concat());
    assert_eq!(me["username"], "bob");
    assert_eq!(me["groups"], json!(["qa", "system:authenticated"]));

    // A SubjectAccessReview, answered by the same authorizer.
    let sar = support::write(dir, "sar.yaml", SAR);
    let answer: Value =
        serde_json::from_str(&ok(url, admin, &["create", "-f", &sar, "-o", "json"])).unwrap();
    assert_eq!(answer["status"]["allowed"], true, "{answer}");
    assert!(
        answer["status"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains(r#"RBAC: allowed by RoleBinding "readers/default" of Role "pod-reader" to User "alice""#)),
        "{answer}"
    );

    // Service-account tokens: TokenRequest, the discovery documents, refusals.
    let token = ok(
        url,
        admin,
        &["create", "token", "robot", "--duration", "20m"],
    );
    let robot: &[&str] = &["--token", token.trim()];
    let me = whoami(url, robot);
    assert_eq!(me["username"], "system:serviceaccount:default:robot");
    assert_eq!(
        me["groups"],
        json!([
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated"
        ])
    );
    ok(url, robot, &["get", "pods", "-n", "default"]);
    let discovery: Value = serde_json::from_str(&ok(
        url,
        robot,
        &["get", "--raw", "/.well-known/openid-configuration"],
    ))
    .unwrap();
    assert_eq!(discovery["issuer"], crd_server::auth::DEFAULT_ISSUER);
    let jwks: Value =
        serde_json::from_str(&ok(url, robot, &["get", "--raw", "/openid/v1/jwks"])).unwrap();
    assert_eq!(jwks["keys"][0]["kty"], "EC", "{jwks}");
    let e = err(url, alice, &["create", "token", "robot"]);
    assert!(
        e.contains(r#"serviceaccounts "robot" is forbidden: User "alice" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default""#),
        "{e}"
    );
    let other = ok(
        url,
        admin,
        &[
            "create",
            "token",
            "robot",
            "--audience",
            "https://vault.example",
        ],
    );
    let e = err(
        url,
        &["--token", other.trim()],
        &["get", "pods", "-n", "default"],
    );
    assert!(e.contains(UNAUTHORIZED), "{e}");
    ok(
        url,
        admin,
        &["delete", "serviceaccount", "robot", "-n", "default"],
    );
    let e = err(url, robot, &["get", "pods", "-n", "default"]);
    assert!(e.contains(UNAUTHORIZED), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_deny_and_anonymous_off_refuse_as_kube_apiserver() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tls = pki(dir.path());
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let policy = dir.path().join("audit-policy.yaml");
    std::fs::write(&policy, AUDIT_POLICY).expect("policy");
    let log = dir.path().join("audit.log");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(tls),
        auth: AuthConfig {
            token_auth_file: Some(tokens),
            anonymous: false,
            // RBAC allows discovery (system:discovery); AlwaysDeny gives its reason.
            authorization_modes: vec![AuthorizationMode::Rbac, AuthorizationMode::AlwaysDeny],
            audit_log_path: Some(log.clone()),
            audit_policy_file: Some(policy),
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let e = err(&url, &["--token", "alice-token"], &["get", "pods", "-n", "default"]);
        assert!(
            e.contains(r#"pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": Everything is forbidden."#),
            "{e}"
        );
        // system:masters is allowed whatever the modes say.
        ok(&url, &["--token", "admin-token"], &["get", "pods", "-n", "default"]);
        // Without credentials (kubectl would prompt for them: curl asks instead).
        let status = curl(&format!("{url}/api/v1/namespaces/default/pods"));
        assert_eq!(
            (&status["code"], &status["reason"], &status["message"]),
            (&json!(401), &json!("Unauthorized"), &json!("Unauthorized")),
            "{status}"
        );
    })
    .await
    .expect("kubectl");
    // The audit log: one JSON line per event, with the authorizer's decision.
    let text = std::fs::read_to_string(&log).expect("audit log");
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
        .collect();
    let list_pods = |user: &str| {
        events
            .iter()
            .find(|e| {
                e["user"]["username"] == user
                    && e["verb"] == "list"
                    && e["objectRef"]["resource"] == "pods"
            })
            .unwrap_or_else(|| panic!("no list of pods by {user} in {text}"))
    };
    let denied = list_pods("alice");
    assert_eq!(denied["apiVersion"], "audit.k8s.io/v1");
    assert_eq!(denied["kind"], "Event");
    assert_eq!(denied["level"], "Metadata");
    assert_eq!(denied["stage"], "ResponseComplete");
    assert_eq!(denied["objectRef"]["namespace"], "default");
    assert_eq!(denied["responseStatus"]["code"], 403);
    assert_eq!(
        denied["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );
    assert_eq!(
        denied["annotations"]["authorization.k8s.io/reason"],
        "Everything is forbidden."
    );
    let allowed = list_pods("admin");
    assert_eq!(
        allowed["annotations"]["authorization.k8s.io/decision"],
        "allow"
    );
    assert_eq!(allowed["responseStatus"]["code"], 200);
    // `omitStages: [RequestReceived]`, and discovery is not logged (level None).
    assert!(
        events.iter().all(|e| e["stage"] != "RequestReceived"),
        "{text}"
    );
    assert!(events.iter().all(|e| e["requestURI"] != "/api"), "{text}");
}

#[tokio::test]
async fn bad_configuration_is_refused_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, "t1,alice\n").expect("tokens");
    let base = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        ..Config::default()
    };
    let start_err = |auth: AuthConfig| {
        let config = Config {
            auth,
            ..base.clone()
        };
        async move {
            crd_server::start(config)
                .await
                .err()
                .expect("refused")
                .to_string()
        }
    };
    let e = start_err(AuthConfig {
        token_auth_file: Some(tokens.clone()),
        ..AuthConfig::default()
    })
    .await;
    assert!(
        e.contains(&format!(
            "--token-auth-file: token file '{}' must have at least 3 columns (token, user name, user uid), found 2 (line 1)",
            tokens.display()
        )),
        "{e}"
    );
    let e = start_err(AuthConfig {
        client_ca_file: Some(dir.path().join("ca.crt")),
        ..AuthConfig::default()
    })
    .await;
    assert!(
        e.contains("--client-ca-file requires --tls-cert-file"),
        "{e}"
    );
    let policy = dir.path().join("audit.yaml");
    std::fs::write(
        &policy,
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n",
    )
    .unwrap();
    let e = start_err(AuthConfig {
        audit_policy_file: Some(policy),
        audit_log_path: Some(dir.path().join("audit.log")),
        ..AuthConfig::default()
    })
    .await;
    assert!(
        e.contains("rules[0].level: Unsupported value: \"Everything\""),
        "{e}"
    );
    assert_eq!(
        crd_server::auth::parse_authorization_modes("RBAC,Node").unwrap_err(),
        "authorization-mode \"Node\" is not a valid mode (valid modes: AlwaysAllow, AlwaysDeny, RBAC, Webhook)"
    );
}
