//! `--authentication-token-webhook-config-file` with kubectl: a bearer token no other
//! authenticator takes is sent in a TokenReview to an HTTPS webhook named by a
//! kubeconfig; its user (name, uid, groups, extra) is who the request is, a token it
//! refuses is a 401, answers are cached for the TTL, and a webhook that is gone
//! authenticates nobody new.

use crate::support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use base64::Engine as _;
use crd_server::{AuthConfig, AuthorizationMode, Config, StoreConfig};
use serde_json::{Value, json};

/// What kubectl says of a 401.
const UNAUTHORIZED: &str = "You must be logged in to the server";

#[derive(Default)]
struct Seen {
    calls: AtomicUsize,
    /// The `Authorization` header of the last review (the kubeconfig user's token).
    authorization: Mutex<String>,
}

async fn review(
    State(seen): State<Arc<Seen>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> axum::Json<Value> {
    seen.calls.fetch_add(1, Ordering::SeqCst);
    *seen.authorization.lock().unwrap() = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let status = match request["spec"]["token"].as_str() {
        Some("jane-token") => json!({"authenticated": true, "user": {"username": "jane",
            "uid": "u-42", "groups": ["developers"], "extra": {"scopes": ["read"]}}}),
        _ => json!({"authenticated": false, "error": "unknown token"}),
    };
    axum::Json(
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "status": status}),
    )
}

/// kubectl over TLS (it sends no bearer token over plain HTTP) with `token`.
fn kubectl(url: &str, token: &str, args: &[&str]) -> (bool, String) {
    let mut all = vec!["--insecure-skip-tls-verify", "--token", token];
    all.extend_from_slice(args);
    let out = support::kubectl(url, &all);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_reviewed_by_the_webhook_and_cached() {
    let tls = crd_server::tls::SelfSigned::generate().expect("certificate");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Seen::default());
    let app = axum::Router::new()
        .route("/authenticate", axum::routing::post(review))
        .with_state(seen.clone());
    let webhook = tokio::spawn(crd_server::tls::serve(listener, tls.acceptor(), app));

    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("webhook.yaml");
    let ca = base64::engine::general_purpose::STANDARD.encode(&tls.ca_pem);
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: authn\n  cluster:\n    server: https://{addr}/authenticate\n    certificate-authority-data: {ca}\nusers:\n- name: apiserver\n  user:\n    token: apiserver-secret\ncontexts:\n- name: webhook\n  context: {{cluster: authn, user: apiserver}}\ncurrent-context: webhook\n"
        ),
    )
    .expect("kubeconfig");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(support::self_signed_tls(dir.path())),
        auth: AuthConfig {
            token_webhook_config_file: Some(kubeconfig),
            token_webhook_cache_ttl: Duration::from_secs(60),
            anonymous: false,
            authorization_modes: vec![AuthorizationMode::Rbac],
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();

    let (url2, seen2) = (url.clone(), seen.clone());
    tokio::task::spawn_blocking(move || {
        let (ok, out) = kubectl(&url2, "jane-token", &["auth", "whoami", "-o", "json"]);
        assert!(ok, "{out}");
        let who: Value = serde_json::from_str(&out).expect("whoami json");
        let user = &who["status"]["userInfo"];
        assert_eq!(user["username"], "jane");
        assert_eq!(user["uid"], "u-42");
        assert_eq!(
            user["groups"],
            json!(["developers", "system:authenticated"])
        );
        assert_eq!(user["extra"]["scopes"], json!(["read"]));
        assert_eq!(
            *seen2.authorization.lock().unwrap(),
            "Bearer apiserver-secret"
        );

        // Authenticated, but RBAC gives jane nothing: 403, not 401.
        let (ok, out) = kubectl(&url2, "jane-token", &["get", "namespaces"]);
        assert!(
            !ok && out.contains("User \"jane\" cannot list resource \"namespaces\""),
            "{out}"
        );
        // The answer was cached: one review for both requests.
        assert_eq!(seen2.calls.load(Ordering::SeqCst), 1);

        let (ok, out) = kubectl(&url2, "someone-else", &["get", "namespaces"]);
        assert!(!ok && out.contains(UNAUTHORIZED), "{out}");
        assert_eq!(seen2.calls.load(Ordering::SeqCst), 2);
    })
    .await
    .expect("kubectl");

    // kube::Client: the same user (a SelfSubjectReview), the same 403 and 401.
    let jane = crate::kube_client(&url, "jane-token");
    let review: serde_json::Value = jane
        .request(
            http::Request::post("/apis/authentication.k8s.io/v1/selfsubjectreviews")
                .header("content-type", "application/json")
                .body(
                    br#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#
                        .to_vec(),
                )
                .expect("request"),
        )
        .await
        .expect("selfsubjectreview");
    assert_eq!(review["status"]["userInfo"]["username"], "jane");
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(jane);
    match namespaces.list(&Default::default()).await {
        Err(kube::Error::Api(s)) => assert_eq!(s.code, 403, "{s:?}"),
        other => panic!("expected a 403, got {other:?}"),
    }
    let stranger = crate::kube_client(&url, "someone-else");
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(stranger);
    match namespaces.list(&Default::default()).await {
        Err(kube::Error::Api(s)) => assert_eq!((s.code, s.reason.as_str()), (401, "Unauthorized")),
        other => panic!("expected a 401, got {other:?}"),
    }

    // The webhook goes away: jane's cached answer still holds, a new token is refused.
    webhook.abort();
    let _ = webhook.await;
    tokio::task::spawn_blocking(move || {
        let (ok, out) = kubectl(&url, "jane-token", &["auth", "whoami"]);
        assert!(ok && out.contains("jane"), "{out}");
        let (ok, out) = kubectl(&url, "new-token", &["auth", "whoami"]);
        assert!(!ok && out.contains(UNAUTHORIZED), "{out}");
    })
    .await
    .expect("kubectl");
}

#[tokio::test]
async fn a_bad_webhook_config_is_refused_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("webhook.yaml");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: authn\n  cluster:\n    server: http://127.0.0.1:1/authenticate\n    certificate-authority-data: Zm9v\n").expect("write");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        auth: AuthConfig {
            token_webhook_config_file: Some(kubeconfig.clone()),
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let e = crd_server::start(config)
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.starts_with(&format!(
            "--authentication-token-webhook-config-file {}:",
            kubeconfig.display()
        )) && e.contains("the scheme must be https"),
        "{e}"
    );
}
