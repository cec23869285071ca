//! `--authorization-mode=...,Webhook` with `--authorization-webhook-config-file`: the
//! request's attributes go to a webhook in an `authorization.k8s.io/v1`
//! SubjectAccessReview, as kube-apiserver's webhook authorizer sends them. `allowed`
//! allows, `denied` refuses at once (later modes are not asked), neither is no
//! opinion. Answers are cached by the review's spec: allowed ones for
//! `--authorization-webhook-cache-authorized-ttl` (5m), the others for
//! `--authorization-webhook-cache-unauthorized-ttl` (30s). A webhook that cannot be
//! reached or answers badly has no opinion and an error: unless a later mode allows,
//! the request is a 500, as kube-apiserver's authorization filter answers an
//! authorizer's error.

use std::path::Path;
use std::time::Duration;

use crd_runtime::rbac::Attributes;
use serde_json::{Value, json};

use super::ConfigError;
use super::answers::Answers;
use super::token_webhook::Kubeconfig;
use crate::webhook_client::{CallError, WebhookClient};

/// `--authorization-webhook-cache-authorized-ttl`'s default.
pub const DEFAULT_AUTHORIZED_TTL: Duration = Duration::from_secs(300);
/// `--authorization-webhook-cache-unauthorized-ttl`'s default.
pub const DEFAULT_UNAUTHORIZED_TTL: Duration = Duration::from_secs(30);

const TIMEOUT: Duration = Duration::from_secs(30);
/// Attributes a caller controls beyond this many bytes are not cached (upstream's
/// guard against filling the cache).
const MAX_CACHED_ATTRIBUTES: usize = 10_000;

/// What the webhook said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allow(String),
    Deny(String),
    NoOpinion(String),
}

/// A SubjectAccessReview webhook and its cached answers.
pub struct AuthzWebhook {
    client: WebhookClient,
    bearer: Option<String>,
    url: String,
    authorized_ttl: Duration,
    unauthorized_ttl: Duration,
    cache: Answers<String, Verdict>,
}

/// The review's spec for `attrs` (also the cache key).
fn spec_of(attrs: &Attributes) -> Value {
    let user = &attrs.user;
    let mut spec = json!({"user": user.name, "groups": user.groups});
    if !user.uid.is_empty() {
        spec["uid"] = json!(user.uid);
    }
    if !user.extra.is_empty() {
        spec["extra"] = json!(user.extra);
    }
    if attrs.resource_request {
        let mut r =
            json!({"verb": attrs.verb, "version": attrs.api_version, "resource": attrs.resource});
        for (k, v) in [
            ("namespace", &attrs.namespace),
            ("group", &attrs.api_group),
            ("subresource", &attrs.subresource),
            ("name", &attrs.name),
        ] {
            if !v.is_empty() {
                r[k] = json!(v);
            }
        }
        spec["resourceAttributes"] = r;
    } else {
        spec["nonResourceAttributes"] = json!({"path": attrs.path, "verb": attrs.verb});
    }
    spec
}

impl AuthzWebhook {
    /// Reads the kubeconfig at `path`.
    pub fn from_file(
        path: &Path,
        authorized_ttl: Duration,
        unauthorized_ttl: Duration,
    ) -> Result<AuthzWebhook, ConfigError> {
        let config = Kubeconfig::read(path, "--authorization-webhook-config-file")?;
        let client = WebhookClient::new(
            Some(&config.server),
            None,
            Some(&config.ca),
            "authorization webhook",
        )
        .map_err(|e| {
            ConfigError(format!(
                "--authorization-webhook-config-file {}: {e}",
                path.display()
            ))
        })?;
        Ok(AuthzWebhook {
            client,
            bearer: config.token,
            url: config.server,
            authorized_ttl,
            unauthorized_ttl,
            cache: Answers::new(authorized_ttl.max(unauthorized_ttl)),
        })
    }

    /// The cached verdict on `attrs`, if it is still fresh.
    pub fn cached(&self, attrs: &Attributes) -> Option<Verdict> {
        let key = spec_of(attrs).to_string();
        self.cache.get(&key, |verdict| match verdict {
            Verdict::Allow(_) => self.authorized_ttl,
            _ => self.unauthorized_ttl,
        })
    }

    /// The webhook's verdict on `attrs`, or the error that kept it from one.
    pub async fn authorize(&self, attrs: &Attributes) -> Result<Verdict, String> {
        if let Some(v) = self.cached(attrs) {
            return Ok(v);
        }
        let spec = spec_of(attrs);
        let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                            "metadata": {"creationTimestamp": null}, "spec": spec, "status": {"allowed": false}});
        let body = serde_json::to_vec(&review).map_err(|e| e.to_string())?;
        let post = format!("Post \"{}\"", self.url);
        let answer = self
            .client
            .post_with_bearer(None, body, TIMEOUT, self.bearer.as_deref())
            .await
            .map_err(|e| match e {
                CallError::Transport(m) => format!("{post}: {m}"),
                CallError::TimedOut => format!(
                    "{post}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
                ),
                CallError::Status(code, body) => format!(
                    "the server responded with status {code}: {}",
                    String::from_utf8_lossy(&body).trim()
                ),
            })?;
        let answer: Value = serde_json::from_slice(&answer)
            .map_err(|e| format!("the answer is not a SubjectAccessReview: {e}"))?;
        let verdict = verdict_of(&answer)?;
        let attribute_bytes: usize = [
            &attrs.namespace,
            &attrs.verb,
            &attrs.api_group,
            &attrs.api_version,
            &attrs.resource,
            &attrs.subresource,
            &attrs.name,
            &attrs.path,
        ]
        .iter()
        .map(|s| s.len())
        .sum();
        if attribute_bytes < MAX_CACHED_ATTRIBUTES {
            self.cache.insert(spec.to_string(), verdict.clone());
        }
        Ok(verdict)
    }
}

/// The verdict of a SubjectAccessReview answer.
fn verdict_of(answer: &Value) -> Result<Verdict, String> {
    let kind = (
        answer.get("apiVersion").and_then(Value::as_str),
        answer.get("kind").and_then(Value::as_str),
    );
    if kind != (Some("authorization.k8s.io/v1"), Some("SubjectAccessReview")) {
        return Err(format!(
            "the answer is not a SubjectAccessReview of authorization.k8s.io/v1 ({}, {})",
            kind.0.unwrap_or(""),
            kind.1.unwrap_or("")
        ));
    }
    let status = answer.get("status").unwrap_or(&Value::Null);
    let flag = |k: &str| status.get(k).and_then(Value::as_bool).unwrap_or(false);
    let reason = status
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    Ok(match (flag("allowed"), flag("denied")) {
        (true, true) => {
            return Err(
                "webhook subject access review returned both allow and deny response".into(),
            );
        }
        (false, true) => Verdict::Deny(reason),
        (true, false) => Verdict::Allow(reason),
        (false, false) => Verdict::NoOpinion(reason),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_runtime::rbac::UserInfo;

    #[test]
    fn reviews_carry_the_attributes_and_answers_map_to_verdicts() {
        let attrs = Attributes {
            user: UserInfo::user("jane"),
            verb: "list".into(),
            namespace: "demo".into(),
            api_version: "v1".into(),
            resource: "pods".into(),
            resource_request: true,
            ..Attributes::default()
        };
        assert_eq!(
            spec_of(&attrs),
            json!({"user": "jane", "groups": ["system:authenticated"], "resourceAttributes":
                {"verb": "list", "version": "v1", "resource": "pods", "namespace": "demo"}})
        );
        let answer = |status: Value| json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "status": status});
        assert_eq!(
            verdict_of(&answer(json!({"allowed": true, "reason": "ok"}))),
            Ok(Verdict::Allow("ok".into()))
        );
        assert_eq!(
            verdict_of(&answer(
                json!({"allowed": false, "denied": true, "reason": "no"})
            )),
            Ok(Verdict::Deny("no".into()))
        );
        assert_eq!(
            verdict_of(&answer(json!({"allowed": false}))),
            Ok(Verdict::NoOpinion(String::new()))
        );
        assert!(verdict_of(&answer(json!({"allowed": true, "denied": true}))).is_err());
        assert!(verdict_of(&json!({"kind": "Status"})).is_err());
    }
}
