//! Who is calling, and what they may do: kube-apiserver's authentication chain
//! (client certificates, a static token file, service-account tokens, anonymous),
//! impersonation, the authorizers (`AlwaysAllow`, `AlwaysDeny`, `RBAC`) and the audit
//! log. The filter in front of every API path that uses them is
//! `crate::api::auth_filter`.
//!
//! The configuration ([`AuthConfig`]) takes kube-apiserver's flags; [`Auth`] is what a
//! running server holds. The request's identity travels with the request's task
//! ([`context`]) so that admission, the reviews and the RBAC write checks see it.

mod answers;
pub(crate) mod audit;
mod authenticate;
pub(crate) mod authorize;
pub(crate) mod authz_webhook;
pub(crate) mod context;
pub(crate) mod escalation;
pub(crate) mod impersonate;
pub(crate) mod jwt;
pub(crate) mod keys;
#[cfg(test)]
pub(crate) mod rbac_fixtures;
mod rbac_follow;
pub(crate) mod request_header;
pub(crate) mod token_file;
pub(crate) mod token_webhook;
pub(crate) mod x509;

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

pub(crate) use authenticate::{Authenticator, admin_user};
pub(crate) use authorize::{Authorizer, Decision};
pub(crate) use rbac_follow::{LabelMatcher, aggregate, review_rules as rules_review};

use crate::store::Store;

/// The default `--service-account-issuer`: the in-cluster name of the API server, as
/// kubeadm and kind configure it.
pub const DEFAULT_ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The user every request is made as when the server authenticates nobody (no token
/// file, client CA or `--token-file`, and `AlwaysAllow`): crd-server's single user.
pub const ADMIN: &str = "system:admin";
/// Whoever is in this group may do anything (kube-apiserver's privileged group).
pub const MASTERS: &str = "system:masters";
/// The anonymous user and its group.
pub const ANONYMOUS: &str = "system:anonymous";
/// Every unauthenticated request's group.
pub const UNAUTHENTICATED: &str = "system:unauthenticated";

/// Marks a request sent in-process by the server itself (a test server's seeding): it
/// is the server's single user. Only server code can attach it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Internal;

/// A configuration this module cannot start with: the flag and what is wrong, as the
/// server's start error shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An authorization mode of `--authorization-mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthorizationMode {
    /// Every request is allowed (the default).
    AlwaysAllow,
    /// Every request is refused (but `system:masters`).
    AlwaysDeny,
    /// Roles, ClusterRoles and their bindings decide.
    Rbac,
    /// A SubjectAccessReview webhook decides (`--authorization-webhook-config-file`).
    Webhook,
}

impl FromStr for AuthorizationMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "AlwaysAllow" => Ok(AuthorizationMode::AlwaysAllow),
            "AlwaysDeny" => Ok(AuthorizationMode::AlwaysDeny),
            "RBAC" => Ok(AuthorizationMode::Rbac),
            "Webhook" => Ok(AuthorizationMode::Webhook),
            other => Err(format!(
                "authorization-mode {other:?} is not a valid mode (valid modes: AlwaysAllow, AlwaysDeny, RBAC, Webhook)"
            )),
        }
    }
}

/// `--authorization-mode`'s comma list (each mode once, as kube-apiserver checks it).
pub fn parse_authorization_modes(list: &str) -> Result<Vec<AuthorizationMode>, String> {
    let mut modes = Vec::new();
    for name in list.split(',').map(str::trim) {
        let mode: AuthorizationMode = name.parse()?;
        if modes.contains(&mode) {
            return Err(format!(
                "authorization-mode {name:?} has mode specified more than once"
            ));
        }
        modes.push(mode);
    }
    Ok(modes)
}

/// kube-apiserver's `--requestheader-*` flags: requests over a connection whose client
/// certificate `client_ca_file` signed (and whose CommonName is in `allowed_names`, when
/// any) are the user the headers name.
#[derive(Clone, Debug, Default)]
pub struct RequestHeaderConfig {
    /// `--requestheader-client-ca-file`: the CAs of the proxy's client certificate.
    pub client_ca_file: Option<PathBuf>,
    /// `--requestheader-allowed-names`: the CommonNames a proxy certificate may have
    /// (empty: any).
    pub allowed_names: Vec<String>,
    /// `--requestheader-username-headers` (e.g. `X-Remote-User`): the first one set is
    /// the user name.
    pub username_headers: Vec<String>,
    /// `--requestheader-uid-headers`: the first one set is the user's uid.
    pub uid_headers: Vec<String>,
    /// `--requestheader-group-headers`: every value of each is a group.
    pub group_headers: Vec<String>,
    /// `--requestheader-extra-headers-prefix`: `PREFIX-KEY: value` is the extra `key`.
    pub extra_headers_prefix: Vec<String>,
}

/// How a server authenticates, authorizes and audits (kube-apiserver's flags).
#[derive(Clone, Debug)]
pub struct AuthConfig {
    /// `--token-auth-file`: CSV lines `token,user,uid,"group1,group2"`.
    pub token_auth_file: Option<PathBuf>,
    /// `--client-ca-file`: client certificates signed by these CAs authenticate (CN:
    /// the user, O: the groups). Needs TLS.
    pub client_ca_file: Option<PathBuf>,
    /// `--anonymous-auth`: requests without credentials are `system:anonymous`
    /// (default), or refused with 401.
    pub anonymous: bool,
    /// `--service-account-issuer`: the `iss` of the tokens this server issues.
    pub service_account_issuer: String,
    /// `--service-account-signing-key-file`: the private key tokens are signed with
    /// (PEM, RSA or ECDSA P-256); a P-256 key is generated at start when none is given.
    pub service_account_signing_key_file: Option<PathBuf>,
    /// `--service-account-key-file`: more keys whose tokens are accepted (PEM public or
    /// private keys).
    pub service_account_key_files: Vec<PathBuf>,
    /// `--api-audiences`: the audiences a token must name (default: the issuer).
    pub api_audiences: Vec<String>,
    /// `--authorization-mode`, in order.
    pub authorization_modes: Vec<AuthorizationMode>,
    /// `--audit-log-path`: a file, or `-` for standard output.
    pub audit_log_path: Option<PathBuf>,
    /// `--audit-policy-file`: an `audit.k8s.io/v1` Policy (without one, nothing is
    /// logged, as kube-apiserver does).
    pub audit_policy_file: Option<PathBuf>,
    /// Keep every audit event in memory (a [`TestServer`](crate::TestServer)'s record),
    /// at the `Metadata` level when no policy is given.
    pub audit_record: bool,
    /// `--requestheader-*`: an authenticating proxy.
    pub request_header: RequestHeaderConfig,
    /// `--authorization-webhook-config-file`: a kubeconfig naming the SubjectAccessReview
    /// webhook of the `Webhook` authorization mode.
    pub authorization_webhook_config_file: Option<PathBuf>,
    /// `--authorization-webhook-cache-authorized-ttl` (5m) and
    /// `--authorization-webhook-cache-unauthorized-ttl` (30s).
    pub authorization_webhook_cache_ttls: (std::time::Duration, std::time::Duration),
    /// `--authentication-token-webhook-config-file`: a kubeconfig naming a TokenReview
    /// webhook asked about bearer tokens no other authenticator takes.
    pub token_webhook_config_file: Option<PathBuf>,
    /// `--authentication-token-webhook-cache-ttl`: how long its answers are kept (2m).
    pub token_webhook_cache_ttl: std::time::Duration,
    /// Tokens that authenticate as `system:admin` in `system:masters` (what the test
    /// server's admin client carries). Unlike `--token-file`'s, they do not make
    /// credentials necessary.
    pub admin_tokens: Vec<String>,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            token_auth_file: None,
            client_ca_file: None,
            anonymous: true,
            service_account_issuer: DEFAULT_ISSUER.to_string(),
            service_account_signing_key_file: None,
            service_account_key_files: Vec::new(),
            api_audiences: Vec::new(),
            authorization_modes: vec![AuthorizationMode::AlwaysAllow],
            audit_log_path: None,
            audit_policy_file: None,
            audit_record: false,
            admin_tokens: Vec::new(),
            token_webhook_config_file: None,
            request_header: RequestHeaderConfig::default(),
            authorization_webhook_config_file: None,
            authorization_webhook_cache_ttls: (
                authz_webhook::DEFAULT_AUTHORIZED_TTL,
                authz_webhook::DEFAULT_UNAUTHORIZED_TTL,
            ),
            token_webhook_cache_ttl: token_webhook::DEFAULT_CACHE_TTL,
        }
    }
}

impl AuthConfig {
    /// Whether any credential is configured besides service-account tokens: without
    /// one, under `AlwaysAllow`, a request without credentials is the single user.
    fn authenticates(&self) -> bool {
        self.token_auth_file.is_some()
            || self.client_ca_file.is_some()
            || self.request_header.client_ca_file.is_some()
            || self.token_webhook_config_file.is_some()
    }
}

/// What a running server knows of its callers.
pub(crate) struct Auth {
    /// Who is calling.
    pub authn: Authenticator,
    /// What they may do.
    pub authz: Arc<Authorizer>,
    /// Where requests are recorded.
    pub audit: audit::Auditor,
    /// The signing key and issuer (TokenRequest, discovery).
    pub issuer: Arc<keys::Issuer>,
    /// The caller of every request of a server that authenticates nobody, made once.
    pub admin_caller: Arc<context::Caller>,
}

impl Auth {
    /// Reads the configured files and starts following what the authorizer needs.
    /// `token` is `--token-file`'s: the single user's token, which makes credentials
    /// necessary.
    pub(crate) async fn start(
        config: &AuthConfig,
        token: Option<&str>,
        store: Arc<dyn Store>,
        matches: LabelMatcher,
    ) -> Result<Auth, ConfigError> {
        let issuer = Arc::new(keys::Issuer::load(config)?);
        let webhook = config
            .authorization_webhook_config_file
            .as_deref()
            .filter(|_| {
                config
                    .authorization_modes
                    .contains(&AuthorizationMode::Webhook)
            })
            .map(|path| {
                let (allowed, refused) = config.authorization_webhook_cache_ttls;
                authz_webhook::AuthzWebhook::from_file(path, allowed, refused)
            })
            .transpose()?;
        let authz = Arc::new(
            Authorizer::start(&config.authorization_modes, webhook, store.clone(), matches).await?,
        );
        let authn = Authenticator::new(config, token, issuer.clone(), store)?;
        let audit = audit::Auditor::open(config)?;
        let admin_caller = Arc::new(context::Caller {
            user: authenticate::admin(),
            authorizer: authz.clone(),
        });
        Ok(Auth {
            authn,
            authz,
            audit,
            issuer,
            admin_caller,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_modes_parse_as_kube_apiserver_checks_them() {
        let cases: [(&str, Result<Vec<AuthorizationMode>, String>); 3] = [
            (
                "RBAC,AlwaysAllow",
                Ok(vec![
                    AuthorizationMode::Rbac,
                    AuthorizationMode::AlwaysAllow,
                ]),
            ),
            (
                "Node",
                Err("authorization-mode \"Node\" is not a valid mode (valid modes: AlwaysAllow, AlwaysDeny, RBAC, Webhook)".into()),
            ),
            (
                "RBAC,RBAC",
                Err("authorization-mode \"RBAC\" has mode specified more than once".into()),
            ),
        ];
        for (flag, want) in cases {
            assert_eq!(parse_authorization_modes(flag), want, "{flag}");
        }
    }
}
