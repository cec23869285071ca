//! What RBAC costs per request (bounded loops, loopback only): creates/s, gets/s and
//! lists/s of ConfigMaps on the embedded store by 32 concurrent HTTP/1.1 clients, on
//! three servers with the same objects (200 other Roles and RoleBindings besides the
//! bench user's): the default (`AlwaysAllow`, no authentication: every request is
//! `system:admin`), `--token-auth-file` with `AlwaysAllow` (a token user), and
//! `--token-auth-file` with `--authorization-mode=RBAC` (the same token user, allowed by
//! its Role). One run, side by side; the cost of RBAC is the last two columns' difference.
//! Then the RBAC decision alone (`crd_runtime::rbac::Policy`, what the server's
//! authorizer asks) over the same policy. `cargo bench -p crd-server --bench rbac
//! [-- N]` (N creates; gets are 4 × N, lists N / 2).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::json;
use support::{Http, concurrent, http};

#[path = "support/mod.rs"]
mod support;

const TOKENS: &str = "admin-token,admin,1,system:masters\nbench-token,bench,2,\n";
const NAMESPACE: &str = "default";
/// Roles and bindings besides the bench user's (a cluster with some policy in it).
const OTHER_POLICY: usize = 200;

async fn send(client: &Http, method: &str, url: &str, token: Option<&str>, body: Bytes) -> u16 {
    let mut req = http::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let resp = client
        .request(req.body(Full::new(body)).expect("request"))
        .await
        .expect("response");
    let code = resp.status().as_u16();
    resp.into_body().collect().await.expect("body");
    code
}

fn configmap(i: usize) -> Bytes {
    Bytes::from(
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": format!("cm-{i:06}"), "labels": {"bench": "rbac"}},
               "data": {"key": "value"}})
        .to_string(),
    )
}

/// The Role and RoleBinding of the bench user and `OTHER_POLICY` others, written as
/// the admin.
async fn seed_policy(client: &Http, base: &str, admin: Option<&str>) {
    let rbac = format!("{base}/apis/rbac.authorization.k8s.io/v1/namespaces/{NAMESPACE}");
    for i in 0..=OTHER_POLICY {
        let (role, user) = if i == OTHER_POLICY {
            ("bench".to_string(), "bench".to_string())
        } else {
            (format!("other-{i}"), format!("user-{i}"))
        };
        let body = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": role},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "create"]}]});
        let code = send(
            client,
            "POST",
            &format!("{rbac}/roles"),
            admin,
            Bytes::from(body.to_string()),
        )
        .await;
        assert_eq!(code, 201, "role {role}");
        let body = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": role},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]});
        let code = send(
            client,
            "POST",
            &format!("{rbac}/rolebindings"),
            admin,
            Bytes::from(body.to_string()),
        )
        .await;
        assert_eq!(code, 201, "binding {role}");
    }
}

/// How a server authenticates and authorizes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The default: no credentials, `AlwaysAllow`.
    Open,
    /// A token user, `AlwaysAllow`.
    TokenAllow,
    /// A token user, RBAC.
    TokenRbac,
}

/// (creates/s, gets/s, lists/s) of one server.
async fn run(mode: Mode, creates: usize) -> (f64, f64, f64) {
    let dir = tempfile::tempdir().expect("data dir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let mut config = crd_server::Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store: crd_server::StoreConfig::DataDir(dir.path().join("data")),
        ..crd_server::Config::default()
    };
    if mode != Mode::Open {
        config.auth.token_auth_file = Some(tokens);
    }
    if mode == Mode::TokenRbac {
        config.auth.authorization_modes = vec![crd_server::AuthorizationMode::Rbac];
    }
    let server = crd_server::start(config).await.expect("server");
    let base = server.url();
    let client = http();
    let token: Option<&'static str> = (mode != Mode::Open).then_some("bench-token");
    let admin = (mode != Mode::Open).then_some("admin-token");
    seed_policy(&client, &base, admin).await;
    if mode == Mode::TokenRbac {
        // The authorizer follows the policy it was just given.
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let path = format!("{base}/api/v1/namespaces/{NAMESPACE}/configmaps");

    let (c, p) = (client.clone(), path.clone());
    let create_rate = concurrent(creates, move |i| {
        let (c, p) = (c.clone(), p.clone());
        async move { assert_eq!(send(&c, "POST", &p, token, configmap(i)).await, 201) }
    })
    .await;
    let (c, p) = (client.clone(), path.clone());
    let get_rate = concurrent(creates * 4, move |i| {
        let (c, p) = (c.clone(), p.clone());
        async move {
            let url = format!("{p}/cm-{:06}", i % creates);
            assert_eq!(send(&c, "GET", &url, token, Bytes::new()).await, 200)
        }
    })
    .await;
    let (c, p) = (client.clone(), path.clone());
    let list_rate = concurrent(creates / 2, move |_| {
        let (c, p) = (c.clone(), p.clone());
        async move {
            let url = format!("{p}?limit=10&labelSelector=bench%3Drbac");
            assert_eq!(send(&c, "GET", &url, token, Bytes::new()).await, 200)
        }
    })
    .await;
    (create_rate, get_rate, list_rate)
}

/// The time of one RBAC decision for the bench user's GET over the same policy (its
/// binding last of 201 in the namespace).
fn decision_time() -> Duration {
    let mut policy = crd_runtime::rbac::Policy::new();
    let role = |name: &str| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "create"]}]})
    };
    let binding = |name: &str, user: &str| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]})
    };
    for i in 0..OTHER_POLICY {
        let name = format!("other-{i}");
        policy.add(&role(&name)).expect("role");
        policy
            .add(&binding(&name, &format!("user-{i}")))
            .expect("binding");
    }
    policy.add(&role("bench")).expect("role");
    policy.add(&binding("bench", "bench")).expect("binding");
    let attrs = crd_runtime::rbac::Attributes {
        user: crd_runtime::rbac::UserInfo::user("bench"),
        verb: "get".into(),
        namespace: NAMESPACE.into(),
        api_version: "v1".into(),
        resource: "configmaps".into(),
        name: "cm-000001".into(),
        resource_request: true,
        ..Default::default()
    };
    const DECISIONS: u32 = 100_000;
    let t0 = std::time::Instant::now();
    for _ in 0..DECISIONS {
        assert!(std::hint::black_box(&policy).authorize(&attrs).is_ok());
    }
    t0.elapsed() / DECISIONS
}

fn main() {
    let creates: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let open = run(Mode::Open, creates).await;
        let allow = run(Mode::TokenAllow, creates).await;
        let rbac = run(Mode::TokenRbac, creates).await;
        println!(
            "figure       AlwaysAllow, no auth   AlwaysAllow, token   RBAC, token   RBAC's cost per request"
        );
        for (name, o, a, r) in [
            ("creates/s", open.0, allow.0, rbac.0),
            ("gets/s", open.1, allow.1, rbac.1),
            ("lists/s", open.2, allow.2, rbac.2),
        ] {
            let cost_us = (1.0 / r - 1.0 / a) * 1e6;
            println!(
                "{name:<12} {o:>20.0} {a:>20.0} {r:>13.0}   {cost_us:>+8.1} µs ({:+.1} %)",
                (a / r - 1.0) * 100.0
            );
        }
    });
    println!(
        "RBAC decision alone (201 RoleBindings in the namespace): {:.2} µs",
        decision_time().as_secs_f64() * 1e6
    );
}
