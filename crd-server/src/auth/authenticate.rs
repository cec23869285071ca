//! The authentication chain, in kube-apiserver's order: an authenticating proxy's
//! headers (`--requestheader-*`), a verified client certificate, then the bearer token (the token file's and `--token-file`'s static
//! tokens, then service-account JWTs of this issuer whose service account — and bound
//! object — still exist), then the token webhook's TokenReview, then anonymous. A bearer token that no authenticator takes
//! is a 401, never anonymous. Every authenticated user gets `system:authenticated`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

use crd_runtime::rbac::{AUTHENTICATED, UserInfo};
use http::HeaderMap;
use serde_json::Value;

use super::jwt::{self, Claims, Invalid};
use super::keys::Issuer;
use super::x509::ClientCertificate;
use super::{ADMIN, ANONYMOUS, AuthConfig, AuthorizationMode, MASTERS, UNAUTHENTICATED};
use crate::auth::ConfigError;
use crate::store::Store;

/// The extra key of a service-account token's id.
pub const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// Who sent a request, from its credentials.
pub struct Authenticator {
    tokens: HashMap<String, UserInfo>,
    /// Tokens added while serving (a test server's users).
    added: RwLock<HashMap<String, UserInfo>>,
    issuer: Arc<Issuer>,
    store: Arc<dyn Store>,
    anonymous: bool,
    /// Nothing is authenticated: a request without credentials is the single user.
    open: bool,
    /// `--authentication-token-webhook-config-file`: asked last about a bearer token.
    webhook: Option<super::token_webhook::TokenWebhook>,
    /// `--requestheader-*`: who an authenticating proxy's headers name.
    request_header: super::RequestHeaderConfig,
}

/// The single user of a server that authenticates nobody (and of `--token-file`).
pub fn admin() -> UserInfo {
    admin_user().clone()
}

/// [`admin`], made once: the hot path lends it rather than building it per request.
pub fn admin_user() -> &'static UserInfo {
    static ADMIN_USER: LazyLock<UserInfo> = LazyLock::new(|| UserInfo {
        name: ADMIN.to_string(),
        groups: vec![MASTERS.to_string(), AUTHENTICATED.to_string()],
        ..UserInfo::default()
    });
    &ADMIN_USER
}

/// The anonymous user.
fn anonymous_user() -> &'static UserInfo {
    static ANONYMOUS_USER: LazyLock<UserInfo> = LazyLock::new(|| UserInfo {
        name: ANONYMOUS.to_string(),
        groups: vec![UNAUTHENTICATED.to_string()],
        ..UserInfo::default()
    });
    &ANONYMOUS_USER
}

/// `AuthenticatedGroupAdder`: `system:authenticated` unless the user is in it or in
/// `system:unauthenticated`.
fn with_authenticated(mut user: UserInfo) -> UserInfo {
    if !user
        .groups
        .iter()
        .any(|g| g == AUTHENTICATED || g == UNAUTHENTICATED)
    {
        user.groups.push(AUTHENTICATED.to_string());
    }
    user
}

impl Authenticator {
    /// The chain `config` describes.
    pub fn new(
        config: &AuthConfig,
        legacy_token: Option<&str>,
        issuer: Arc<Issuer>,
        store: Arc<dyn Store>,
    ) -> Result<Authenticator, ConfigError> {
        let mut tokens = match &config.token_auth_file {
            Some(path) => super::token_file::read(path)
                .map_err(|e| ConfigError(format!("--token-auth-file: {e}")))?,
            None => HashMap::new(),
        };
        for token in config
            .admin_tokens
            .iter()
            .map(String::as_str)
            .chain(legacy_token)
        {
            tokens.insert(token.to_string(), admin());
        }
        let always_allow = config
            .authorization_modes
            .contains(&AuthorizationMode::AlwaysAllow);
        let open = always_allow && !config.authenticates() && legacy_token.is_none();
        // kube-apiserver turns anonymous off under AlwaysAllow: anyone could do anything.
        let anonymous = config.anonymous && !always_allow;
        let webhook = config
            .token_webhook_config_file
            .as_deref()
            .map(|path| {
                super::token_webhook::TokenWebhook::from_file(path, config.token_webhook_cache_ttl)
            })
            .transpose()?;
        Ok(Authenticator {
            webhook,
            request_header: config.request_header.clone(),
            tokens,
            added: RwLock::new(HashMap::new()),
            issuer,
            store,
            anonymous,
            open,
        })
    }

    /// Adds a token for `user` (a test server's client of that user).
    pub fn add_token(&self, token: String, user: UserInfo) {
        self.added
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(token, user);
    }

    /// The user of a request, or `None` (401).
    pub async fn authenticate(
        &self,
        headers: &HeaderMap,
        cert: Option<&ClientCertificate>,
    ) -> Option<Cow<'static, UserInfo>> {
        if let Some(cn) = cert.and_then(|c| c.proxy.as_deref()) {
            use super::request_header::{Proxied, user_of};
            match user_of(&self.request_header, cn, headers) {
                Proxied::User(user) => return Some(Cow::Owned(with_authenticated(user))),
                // `x509: subject with cn=... is not in the allowed list`: a 401.
                Proxied::Refused => return None,
                Proxied::NoUser => {}
            }
        }
        if let Some(user) = cert.and_then(|c| c.user.as_ref().clone()) {
            return Some(Cow::Owned(with_authenticated(user)));
        }
        let bearer = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .filter(|t| !t.is_empty());
        match bearer {
            Some(token) => self
                .token_user(token)
                .await
                .map(|u| Cow::Owned(with_authenticated(u))),
            None if self.open => Some(Cow::Borrowed(admin_user())),
            None if self.anonymous => Some(Cow::Borrowed(anonymous_user())),
            None => None,
        }
    }

    async fn token_user(&self, token: &str) -> Option<UserInfo> {
        if let Some(user) = self.tokens.get(token) {
            return Some(user.clone());
        }
        if let Some(user) = self
            .added
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(token)
        {
            return Some(user.clone());
        }
        let now = chrono::Utc::now().timestamp();
        match jwt::verify(&self.issuer, token, now) {
            Ok(claims) => return self.service_account_user(&claims).await,
            // A token of this issuer that fails its checks goes to nobody else.
            Err(Invalid::Rejected(_)) => return None,
            Err(Invalid::NotOurs) => {}
        }
        match &self.webhook {
            Some(webhook) => webhook.authenticate(token).await,
            None => None,
        }
    }

    /// The service account of verified claims, if it (and the object the token is
    /// bound to) still exists with the same uid.
    async fn service_account_user(&self, claims: &Claims) -> Option<UserInfo> {
        let k = &claims.kubernetes;
        let (ns, sa) = crd_runtime::rbac::split_service_account(&claims.sub)?;
        if ns != k.namespace || sa != k.serviceaccount.name {
            return None;
        }
        let exists = |prefix: &'static str, name: String, uid: String| {
            let key = format!("/registry/{prefix}/{ns}/{name}");
            async move {
                let kv = self.store.get(&key).await.ok()??;
                let obj: Value = serde_json::from_slice(&kv.value).ok()?;
                (obj.pointer("/metadata/uid").and_then(Value::as_str) == Some(uid.as_str()))
                    .then_some(())
            }
        };
        exists(
            "serviceaccounts",
            k.serviceaccount.name.clone(),
            k.serviceaccount.uid.clone(),
        )
        .await?;
        let mut user = UserInfo::service_account(ns, sa);
        user.uid = k.serviceaccount.uid.clone();
        user.extra
            .insert(CREDENTIAL_ID.into(), vec![format!("JTI={}", claims.jti)]);
        if let Some(pod) = &k.pod {
            exists("pods", pod.name.clone(), pod.uid.clone()).await?;
            user.extra.insert(
                "authentication.kubernetes.io/pod-name".into(),
                vec![pod.name.clone()],
            );
            user.extra.insert(
                "authentication.kubernetes.io/pod-uid".into(),
                vec![pod.uid.clone()],
            );
        }
        if let Some(secret) = &k.secret {
            exists("secrets", secret.name.clone(), secret.uid.clone()).await?;
        }
        Some(user)
    }
}
