//! Authentication and authorization webhooks, as kube-apiserver (and crd-server) call
//! them with `--authentication-token-webhook-config-file` and
//! `--authorization-webhook-config-file`: `POST /authenticate` answers an
//! `authentication.k8s.io/v1` TokenReview, `POST /authorize` an
//! `authorization.k8s.io/v1` SubjectAccessReview, each from a plain function. The
//! running webhook writes the kubeconfig the API server's flag takes
//! ([`RunningWebhook::kubeconfig`](super::RunningWebhook::kubeconfig)).
//!
//! A body that is no such review gets `400` with a `Status`, as for the other webhooks.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::routing::post;
use serde_json::{Value, json};

use super::{BODY_LIMIT, RunningWebhook, WebhookConfig, bad_request, json_ok};

/// A user, as a TokenReview answer names it and a SubjectAccessReview asks about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReviewUser {
    /// The user name.
    pub username: String,
    /// Its uid (may be empty).
    pub uid: String,
    /// Its groups.
    pub groups: Vec<String>,
    /// Its extra values by key.
    pub extra: BTreeMap<String, Vec<String>>,
}

/// What a token webhook answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenVerdict {
    /// The token is this user's.
    Authenticated(ReviewUser),
    /// The token is no one's (the reason goes to `status.error`).
    Unauthenticated(String),
}

/// The resource a SubjectAccessReview asks about (`resourceAttributes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceAttributes {
    /// The namespace (empty: cluster scope or all namespaces).
    pub namespace: String,
    /// The verb (`get`, `list`, `create`, ...).
    pub verb: String,
    /// The API group (empty: core).
    pub group: String,
    /// The API version.
    pub version: String,
    /// The resource (`pods`).
    pub resource: String,
    /// The subresource (`status`).
    pub subresource: String,
    /// The object's name (may be empty).
    pub name: String,
}

/// What a SubjectAccessReview asks: who, and either a resource or a path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessRequest {
    /// The user asking.
    pub user: ReviewUser,
    /// For a resource request.
    pub resource: Option<ResourceAttributes>,
    /// For a non-resource request: (path, verb).
    pub non_resource: Option<(String, String)>,
}

/// What an authorization webhook decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessVerdict {
    /// Allowed, with a reason.
    Allow(String),
    /// Refused outright, with a reason: later authorizers are not asked.
    Deny(String),
    /// No opinion: the next authorizer decides.
    NoOpinion(String),
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The review of `body` when it is `apiVersion`/`kind`.
fn review_of(body: &[u8], api_version: &str, kind: &str) -> Result<Value, String> {
    let review: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not a {kind}: {e}"))?;
    if review.get("apiVersion").and_then(Value::as_str) != Some(api_version)
        || review.get("kind").and_then(Value::as_str) != Some(kind)
    {
        return Err(format!("expected a {kind} of {api_version}"));
    }
    Ok(review)
}

/// The TokenReview answer to `body` from `handler` (`Err`: a 400's message).
pub fn token_review(
    handler: &dyn Fn(&str, &[String]) -> TokenVerdict,
    body: &[u8],
) -> Result<Value, String> {
    let review = review_of(body, "authentication.k8s.io/v1", "TokenReview")?;
    let spec = &review["spec"];
    let audiences = strings(&spec["audiences"]);
    let status = match handler(&text(spec, "token"), &audiences) {
        TokenVerdict::Authenticated(user) => json!({
            "authenticated": true,
            "user": {"username": user.username, "uid": user.uid, "groups": user.groups, "extra": user.extra},
            "audiences": audiences,
        }),
        TokenVerdict::Unauthenticated(error) => json!({"authenticated": false, "error": error}),
    };
    Ok(json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "status": status}))
}

/// The SubjectAccessReview answer to `body` from `handler` (`Err`: a 400's message).
pub fn access_review(
    handler: &dyn Fn(&AccessRequest) -> AccessVerdict,
    body: &[u8],
) -> Result<Value, String> {
    let review = review_of(body, "authorization.k8s.io/v1", "SubjectAccessReview")?;
    let spec = &review["spec"];
    let mut extra = BTreeMap::new();
    if let Some(map) = spec["extra"].as_object() {
        for (k, v) in map {
            extra.insert(k.clone(), strings(v));
        }
    }
    let r = &spec["resourceAttributes"];
    let nr = &spec["nonResourceAttributes"];
    let request = AccessRequest {
        user: ReviewUser {
            username: text(spec, "user"),
            uid: text(spec, "uid"),
            groups: strings(&spec["groups"]),
            extra,
        },
        resource: r.is_object().then(|| ResourceAttributes {
            namespace: text(r, "namespace"),
            verb: text(r, "verb"),
            group: text(r, "group"),
            version: text(r, "version"),
            resource: text(r, "resource"),
            subresource: text(r, "subresource"),
            name: text(r, "name"),
        }),
        non_resource: nr.is_object().then(|| (text(nr, "path"), text(nr, "verb"))),
    };
    let status = match handler(&request) {
        AccessVerdict::Allow(reason) => json!({"allowed": true, "reason": reason}),
        AccessVerdict::Deny(reason) => json!({"allowed": false, "denied": true, "reason": reason}),
        AccessVerdict::NoOpinion(reason) => json!({"allowed": false, "reason": reason}),
    };
    Ok(
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "status": status}),
    )
}

fn route(
    answer: impl Fn(&[u8]) -> Result<Value, String> + Send + Sync + 'static,
) -> axum::routing::MethodRouter {
    let answer = Arc::new(answer);
    post(move |body: Bytes| {
        let answer = Arc::clone(&answer);
        async move {
            match answer(&body) {
                Ok(v) => json_ok(v.to_string().into_bytes()),
                Err(e) => bad_request(e),
            }
        }
    })
    .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// `POST /authenticate` answering TokenReviews with `handler(token, audiences)`.
pub fn token_review_router(
    handler: impl Fn(&str, &[String]) -> TokenVerdict + Send + Sync + 'static,
) -> Router {
    Router::new().route(
        "/authenticate",
        route(move |body| token_review(&handler, body)),
    )
}

/// `POST /authorize` answering SubjectAccessReviews with `handler`.
pub fn access_review_router(
    handler: impl Fn(&AccessRequest) -> AccessVerdict + Send + Sync + 'static,
) -> Router {
    Router::new().route(
        "/authorize",
        route(move |body| access_review(&handler, body)),
    )
}

/// Starts a token webhook in the background; its [`url`](RunningWebhook::url) is
/// `https://ADDR/authenticate`, its [`kubeconfig`](RunningWebhook::kubeconfig) what
/// `--authentication-token-webhook-config-file` takes.
///
/// ```no_run
/// # async fn run() -> Result<(), crd_webhook::Error> {
/// use crd_webhook::{ReviewUser, TokenVerdict, WebhookConfig, WebhookTls, serve_token_review};
/// let webhook = serve_token_review(
///     |token: &str, _audiences: &[String]| match token {
///         "jane-token" => TokenVerdict::Authenticated(ReviewUser {
///             username: "jane".into(),
///             groups: vec!["dev".into()],
///             ..ReviewUser::default()
///         }),
///         _ => TokenVerdict::Unauthenticated("unknown token".into()),
///     },
///     WebhookConfig { listen: "127.0.0.1:9443".parse().unwrap(), tls: WebhookTls::SelfSigned },
/// )
/// .await?;
/// std::fs::write("authn.yaml", webhook.kubeconfig().unwrap()).unwrap();
/// # Ok(()) }
/// ```
pub async fn serve_token_review(
    handler: impl Fn(&str, &[String]) -> TokenVerdict + Send + Sync + 'static,
    config: WebhookConfig,
) -> Result<RunningWebhook, super::Error> {
    super::serve(token_review_router(handler), config, "/authenticate").await
}

/// Starts an authorization webhook in the background; its [`url`](RunningWebhook::url)
/// is `https://ADDR/authorize`, its [`kubeconfig`](RunningWebhook::kubeconfig) what
/// `--authorization-webhook-config-file` takes.
pub async fn serve_authorization(
    handler: impl Fn(&AccessRequest) -> AccessVerdict + Send + Sync + 'static,
    config: WebhookConfig,
) -> Result<RunningWebhook, super::Error> {
    super::serve(access_review_router(handler), config, "/authorize").await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reviews_are_answered_from_plain_functions() {
        let body = br#"{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"t","audiences":["api"]}}"#;
        let answer = token_review(
            &|token, _| {
                assert_eq!(token, "t");
                TokenVerdict::Authenticated(ReviewUser {
                    username: "jane".into(),
                    ..ReviewUser::default()
                })
            },
            body,
        )
        .unwrap();
        assert_eq!(answer["status"]["user"]["username"], "jane");
        assert_eq!(answer["status"]["audiences"], json!(["api"]));

        let body = br#"{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"jane","groups":["dev"],"resourceAttributes":{"verb":"delete","resource":"pods","namespace":"ns"}}}"#;
        let answer = access_review(
            &|r| match &r.resource {
                Some(a) if a.verb == "delete" && r.user.groups == ["dev"] => {
                    AccessVerdict::Deny("no deletes".into())
                }
                _ => AccessVerdict::NoOpinion(String::new()),
            },
            body,
        )
        .unwrap();
        assert_eq!(
            answer["status"],
            json!({"allowed": false, "denied": true, "reason": "no deletes"})
        );
        assert!(access_review(&|_| AccessVerdict::Allow(String::new()), b"{}").is_err());
    }
}
