//! `--authorization-mode RBAC,Webhook` with `--authorization-webhook-config-file`, driven
//! with kubectl: a SubjectAccessReview webhook over HTTPS allows what RBAC does not,
//! denies outright (its reason in the 403), has no opinion (RBAC's refusal), answers
//! `kubectl auth can-i`, is cached, and, once unreachable, makes requests nothing else
//! allows a 500 as kube-apiserver's authorization filter answers an authorizer's error.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::State;
use base64::Engine as _;
use crd_server::{AuthConfig, AuthorizationMode, Config, StoreConfig};
use serde_json::{Value, json};

async fn review(
    State(calls): State<Arc<AtomicUsize>>,
    body: axum::body::Bytes,
) -> axum::Json<Value> {
    calls.fetch_add(1, Ordering::SeqCst);
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let spec = &request["spec"];
    let r = &spec["resourceAttributes"];
    let status = match (
        spec["user"].as_str(),
        r["verb"].as_str(),
        r["resource"].as_str(),
    ) {
        (Some("jane"), Some("list" | "get"), Some("namespaces")) => {
            json!({"allowed": true, "reason": "jane reads namespaces"})
        }
        (Some("jane"), Some("delete"), _) => {
            json!({"allowed": false, "denied": true, "reason": "deletes are frozen"})
        }
        _ => json!({"allowed": false}),
    };
    axum::Json(
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "status": status}),
    )
}

fn kubectl(url: &str, args: &[&str]) -> (bool, String) {
    let mut all = vec!["--insecure-skip-tls-verify", "--token", "jane-token"];
    all.extend_from_slice(args);
    let out = support::kubectl(url, &all);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_decides_after_rbac() {
    let tls = crd_server::tls::SelfSigned::generate().expect("certificate");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let calls = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new()
        .route("/authorize", axum::routing::post(review))
        .with_state(calls.clone());
    let webhook = tokio::spawn(crd_server::tls::serve(listener, tls.acceptor(), app));

    let dir = tempfile::tempdir().expect("tempdir");
    let ca = base64::engine::general_purpose::STANDARD.encode(&tls.ca_pem);
    let kubeconfig = dir.path().join("authz.yaml");
    std::fs::write(
        &kubeconfig,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: authz\n  cluster:\n    server: https://{addr}/authorize\n    certificate-authority-data: {ca}\n"),
    )
    .expect("kubeconfig");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, "jane-token,jane,1001,dev\n").expect("tokens");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(support::self_signed_tls(dir.path())),
        auth: AuthConfig {
            token_auth_file: Some(tokens),
            authorization_modes: vec![AuthorizationMode::Rbac, AuthorizationMode::Webhook],
            authorization_webhook_config_file: Some(kubeconfig),
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();

    let (u, c) = (url.clone(), calls.clone());
    tokio::task::spawn_blocking(move || {
        // RBAC gives jane nothing; the webhook allows reading namespaces.
        let (ok, out) = kubectl(&u, &["get", "namespace", "default", "-o", "name"]);
        assert!(ok, "{out}");
        assert_eq!(out.trim(), "namespace/default");
        let before = c.load(Ordering::SeqCst);
        let (ok, _) = kubectl(&u, &["get", "namespace", "default"]);
        assert!(ok);
        assert_eq!(c.load(Ordering::SeqCst), before, "the allowed answer is cached");

        // An explicit denial, with its reason.
        let (ok, out) = kubectl(&u, &["delete", "namespace", "default"]);
        assert!(!ok);
        assert!(
            out.contains("namespaces \"default\" is forbidden: User \"jane\" cannot delete resource \"namespaces\" in API group \"\" in the namespace \"default\": deletes are frozen"),
            "{out}"
        );
        // No opinion: refused, with RBAC's word.
        let (ok, out) = kubectl(&u, &["get", "configmaps", "-n", "default"]);
        assert!(!ok && out.contains("User \"jane\" cannot list resource \"configmaps\""), "{out}");

        // kubectl auth can-i asks the same chain.
        let (_, out) = kubectl(&u, &["auth", "can-i", "list", "namespaces"]);
        assert_eq!(out.lines().next(), Some("yes"), "{out}");
        let (_, out) = kubectl(&u, &["auth", "can-i", "delete", "namespaces"]);
        assert_eq!(out.lines().next(), Some("no - deletes are frozen"), "{out}");
    })
    .await
    .expect("kubectl");

    // kube::Client: allowed by the webhook, denied with its reason.
    let jane = crate::kube_client(&url, "jane-token");
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(jane);
    let ns = namespaces
        .get("default")
        .await
        .expect("the webhook allows it");
    assert_eq!(ns.metadata.name.as_deref(), Some("default"));
    match namespaces.delete("default", &Default::default()).await {
        Err(kube::Error::Api(s)) => {
            assert_eq!(s.code, 403);
            assert!(s.message.ends_with(": deletes are frozen"), "{}", s.message);
        }
        other => panic!("expected a 403, got {other:?}"),
    }

    // The webhook goes away: what nothing else allows is a 500, not a 403.
    webhook.abort();
    let _ = webhook.await;
    tokio::task::spawn_blocking(move || {
        let (ok, out) = kubectl(&url, &["get", "secrets", "-n", "default"]);
        assert!(!ok);
        assert!(
            out.contains(
                "Error from server (InternalError): Internal error occurred: Post \"https://"
            ) && out.contains("/authorize\""),
            "{out}"
        );
    })
    .await
    .expect("kubectl");
}

#[tokio::test]
async fn the_webhook_mode_needs_its_config_file() {
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        auth: AuthConfig {
            authorization_modes: vec![AuthorizationMode::Webhook],
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
        e.contains("authorization-mode Webhook's authorization config file not passed"),
        "{e}"
    );
}

/// Both webhooks written with crd-webhook's helpers (`crd_server::webhook`): a token is
/// jane's, jane may read namespaces and nothing else, through kubectl.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_helpers_serve_both_webhooks() {
    use crd_server::webhook::{
        AccessVerdict, ReviewUser, TokenVerdict, WebhookConfig, WebhookTls, serve_authorization,
        serve_token_review,
    };
    let config = || WebhookConfig {
        listen: "127.0.0.1:0".parse().expect("addr"),
        tls: WebhookTls::SelfSigned,
    };
    let authn = serve_token_review(
        |token: &str, _: &[String]| match token {
            "jane-token" => TokenVerdict::Authenticated(ReviewUser {
                username: "jane".into(),
                groups: vec!["dev".into()],
                ..ReviewUser::default()
            }),
            _ => TokenVerdict::Unauthenticated("unknown token".into()),
        },
        config(),
    )
    .await
    .expect("token webhook");
    let authz = serve_authorization(
        |request: &crd_server::webhook::AccessRequest| match &request.resource {
            Some(r)
                if request.user.username == "jane"
                    && r.resource == "namespaces"
                    && r.verb != "delete" =>
            {
                AccessVerdict::Allow("jane reads namespaces".into())
            }
            _ => AccessVerdict::NoOpinion(String::new()),
        },
        config(),
    )
    .await
    .expect("authorization webhook");
    let dir = tempfile::tempdir().expect("tempdir");
    let (authn_file, authz_file) = (dir.path().join("authn.yaml"), dir.path().join("authz.yaml"));
    std::fs::write(&authn_file, authn.kubeconfig().expect("kubeconfig")).expect("write");
    std::fs::write(&authz_file, authz.kubeconfig().expect("kubeconfig")).expect("write");
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: StoreConfig::InMemory,
        tls: Some(support::self_signed_tls(dir.path())),
        auth: AuthConfig {
            token_webhook_config_file: Some(authn_file),
            authorization_modes: vec![AuthorizationMode::Rbac, AuthorizationMode::Webhook],
            authorization_webhook_config_file: Some(authz_file),
            anonymous: false,
            ..AuthConfig::default()
        },
        ..Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let (ok, out) = kubectl(&url, &["get", "namespace", "default", "-o", "name"]);
        assert!(ok, "{out}");
        let (ok, out) = kubectl(&url, &["delete", "namespace", "default"]);
        assert!(
            !ok && out.contains("User \"jane\" cannot delete resource \"namespaces\""),
            "{out}"
        );
        let out = support::kubectl(
            &url,
            &[
                "--insecure-skip-tls-verify",
                "--token",
                "nobody",
                "get",
                "namespaces",
            ],
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("You must be logged in to the server")
        );
    })
    .await
    .expect("kubectl");
}
