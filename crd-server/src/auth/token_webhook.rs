//! `--authentication-token-webhook-config-file`: bearer tokens no other authenticator
//! takes are sent to a webhook in an `authentication.k8s.io/v1` TokenReview, as
//! kube-apiserver's webhook token authenticator does. The file is a kubeconfig: its
//! cluster's `server` (HTTPS) and `certificate-authority(-data)`, and its user's
//! `token` if any. Answers — authenticated or not — are cached for
//! `--authentication-token-webhook-cache-ttl` (2m), keyed by the token's SHA-256, so a
//! token is not kept in memory; a webhook that cannot be reached or answers badly
//! authenticates nobody (401) and nothing is cached.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use crd_runtime::rbac::UserInfo;
use serde_json::{Value, json};

use super::ConfigError;
use super::answers::Answers;
use crate::webhook_client::{CallError, WebhookClient};

/// kube-apiserver's `--authentication-token-webhook-cache-ttl` default.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(120);

/// How long one review may take (the webhook client's default).
const TIMEOUT: Duration = Duration::from_secs(30);

/// A TokenReview webhook and its answers so far.
pub struct TokenWebhook {
    client: WebhookClient,
    /// `Authorization: Bearer` the kubeconfig's user sends, if any.
    bearer: Option<String>,
    ttl: Duration,
    /// Who each token was (`None`: nobody), by the token's SHA-256.
    cache: Answers<[u8; 32], Option<UserInfo>>,
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The named entry of a kubeconfig list (`clusters`, `users`): the current context's,
/// or the first.
fn entry<'a>(config: &'a Value, list: &str, name: Option<&str>) -> Option<&'a Value> {
    let items = config.get(list)?.as_array()?;
    let found = name.and_then(|n| items.iter().find(|i| field(i, "name") == Some(n)));
    found.or_else(|| items.first())
}

/// What a webhook's kubeconfig says: its cluster's server and CA (base64 PEM), and the
/// token its user sends.
pub struct Kubeconfig {
    pub server: String,
    pub ca: String,
    pub token: Option<String>,
}

impl Kubeconfig {
    /// Reads the kubeconfig at `path` (errors name `flag` and the file): the current
    /// context's cluster and user, or the first ones.
    pub fn read(path: &Path, flag: &str) -> Result<Kubeconfig, ConfigError> {
        let fail = |m: String| ConfigError(format!("{flag} {}: {m}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        let docs = crd_runtime::parse_documents(&path.display().to_string(), &text)
            .map_err(|e| fail(e.to_string()))?;
        let config = docs
            .into_iter()
            .next()
            .ok_or_else(|| fail("empty kubeconfig".into()))?;
        let context = field(&config, "current-context").and_then(|current| {
            config
                .get("contexts")?
                .as_array()?
                .iter()
                .find(|c| field(c, "name") == Some(current))
                .and_then(|c| c.get("context"))
        });
        let cluster = entry(
            &config,
            "clusters",
            context.and_then(|c| field(c, "cluster")),
        )
        .and_then(|c| c.get("cluster"))
        .ok_or_else(|| fail("no cluster".into()))?;
        let server = field(cluster, "server")
            .ok_or_else(|| fail("the cluster has no server".into()))?
            .to_string();
        let ca = match (
            field(cluster, "certificate-authority-data"),
            field(cluster, "certificate-authority"),
        ) {
            (Some(data), _) => data.to_string(),
            (None, Some(file)) => {
                let file = path.parent().unwrap_or(Path::new(".")).join(file);
                let pem = std::fs::read(&file)
                    .map_err(|e| fail(format!("certificate-authority {}: {e}", file.display())))?;
                base64::engine::general_purpose::STANDARD.encode(pem)
            }
            (None, None) => return Err(fail("the cluster has no certificate-authority".into())),
        };
        let user = entry(&config, "users", context.and_then(|c| field(c, "user")))
            .and_then(|u| u.get("user"));
        let token = user.and_then(|u| field(u, "token")).map(str::to_string);
        Ok(Kubeconfig { server, ca, token })
    }
}

impl TokenWebhook {
    /// Reads the kubeconfig at `path`.
    pub fn from_file(path: &Path, ttl: Duration) -> Result<TokenWebhook, ConfigError> {
        let flag = "--authentication-token-webhook-config-file";
        let config = Kubeconfig::read(path, flag)?;
        let client = WebhookClient::new(
            Some(&config.server),
            None,
            Some(&config.ca),
            "token webhook",
        )
        .map_err(|e| ConfigError(format!("{flag} {}: {e}", path.display())))?;
        Ok(TokenWebhook {
            client,
            bearer: config.token,
            ttl,
            cache: Answers::new(ttl),
        })
    }

    /// The user the webhook says `token` is, or `None`.
    pub async fn authenticate(&self, token: &str) -> Option<UserInfo> {
        let key: [u8; 32] = ring::digest::digest(&ring::digest::SHA256, token.as_bytes())
            .as_ref()
            .try_into()
            .ok()?;
        if let Some(user) = self.cache.get(&key, |_| self.ttl) {
            return user;
        }
        // Not cached: an unreachable webhook is asked again next time.
        let user = self.review(token).await.ok()?;
        self.cache.insert(key, user.clone());
        user
    }

    /// One TokenReview: `Ok(None)` when the webhook does not authenticate the token.
    async fn review(&self, token: &str) -> Result<Option<UserInfo>, String> {
        let review = json!({
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "metadata": {"creationTimestamp": null},
            "spec": {"token": token},
            "status": {"user": {}}
        });
        let body = serde_json::to_vec(&review).map_err(|e| e.to_string())?;
        let answer = self
            .client
            .post_with_bearer(None, body, TIMEOUT, self.bearer.as_deref())
            .await
            .map_err(|e| match e {
                CallError::Transport(m) => m,
                CallError::TimedOut => "timed out".to_string(),
                CallError::Status(code, _) => format!("the webhook answered {code}"),
            })?;
        let answer: Value = serde_json::from_slice(&answer).map_err(|e| e.to_string())?;
        user_of(&answer)
    }
}

/// The user of a TokenReview answer (`Ok(None)`: not authenticated).
fn user_of(answer: &Value) -> Result<Option<UserInfo>, String> {
    let kind = (field(answer, "apiVersion"), field(answer, "kind"));
    if kind != (Some("authentication.k8s.io/v1"), Some("TokenReview")) {
        return Err(format!(
            "not a TokenReview of authentication.k8s.io/v1: {kind:?}"
        ));
    }
    let status = answer.get("status").unwrap_or(&Value::Null);
    if status.get("authenticated") != Some(&Value::Bool(true)) {
        return Ok(None);
    }
    let user = status.get("user").unwrap_or(&Value::Null);
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let Some(name) = field(user, "username") else {
        // Authenticated as nobody: upstream treats it as not authenticated.
        return Ok(None);
    };
    let mut info = UserInfo::user(name);
    info.uid = field(user, "uid").unwrap_or("").to_string();
    info.groups = strings(user.get("groups"));
    if let Some(extra) = user.get("extra").and_then(Value::as_object) {
        for (k, v) in extra {
            info.extra.insert(k.clone(), strings(Some(v)));
        }
    }
    Ok(Some(info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_as_the_webhook_authenticator_reads_them() {
        let answer = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "status": {"authenticated": true, "user": {"username": "jane", "uid": "42",
                "groups": ["dev"], "extra": {"scopes": ["a", "b"]}}}});
        let user = user_of(&answer).unwrap().unwrap();
        assert_eq!((user.name.as_str(), user.uid.as_str()), ("jane", "42"));
        assert_eq!(user.groups, ["dev"]);
        assert_eq!(user.extra["scopes"], ["a", "b"]);
        let no = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "status": {"authenticated": false, "error": "expired"}});
        assert_eq!(user_of(&no), Ok(None));
        assert!(user_of(&json!({"kind": "Status"})).is_err());
    }

    #[test]
    fn a_kubeconfig_without_a_server_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("webhook.yaml");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {}\n",
        )
        .unwrap();
        let e = TokenWebhook::from_file(&path, DEFAULT_CACHE_TTL)
            .err()
            .unwrap();
        assert!(
            e.0.ends_with("webhook.yaml: the cluster has no server"),
            "{}",
            e.0
        );
    }
}
