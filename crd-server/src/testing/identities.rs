//! Testing as someone: a test server with RBAC on ([`TestServerBuilder::rbac`]),
//! clients that carry a user's or a service account's real credentials, and the
//! record of the requests each identity made (the audit events, `audit.k8s.io/v1`).

use http::Method;
use serde_json::{Value, json};

use super::objects::{self, RequestError};
use super::{TestServer, TestServerBuilder};
use crate::auth::AuthorizationMode;

impl TestServerBuilder {
    /// Authorizes requests with RBAC (`--authorization-mode=RBAC`) and records every
    /// request ([`TestServer::audit_events`]): the admin client ([`TestServer::client`])
    /// may do anything, the clients of [`TestServer::client_as_user`] and
    /// [`TestServer::client_as_service_account`] what their Roles allow.
    pub fn rbac(mut self) -> Self {
        self.auth.authorization_modes = vec![AuthorizationMode::Rbac];
        self.auth.audit_record = true;
        self
    }
}

impl TestServer {
    /// The admin's bearer token (`system:admin`, in `system:masters`): what
    /// [`client`](Self::client) carries, for `kubectl --token`.
    pub fn admin_token(&self) -> &str {
        &self.admin_token
    }

    /// A bearer token for a user in `groups` (and `system:authenticated`), for
    /// `kubectl --token`.
    pub fn token_for_user(&self, name: &str, groups: &[&str]) -> String {
        let token = uuid::Uuid::new_v4().simple().to_string();
        let user = crd_runtime::rbac::UserInfo {
            name: name.to_string(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            ..Default::default()
        };
        self.server
            .shared()
            .auth
            .authn
            .add_token(token.clone(), user);
        token
    }

    /// A service account's token (a TokenRequest, an hour long), the service account
    /// created first when it does not exist.
    pub async fn token_for_service_account(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<String, RequestError> {
        let path = format!("/api/v1/namespaces/{namespace}/serviceaccounts");
        let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount",
                        "metadata": {"name": name, "namespace": namespace}});
        match objects::send(
            &self.server,
            Method::POST,
            &path,
            "application/json",
            sa.to_string().into_bytes(),
        )
        .await
        {
            Ok(_) => {}
            Err(e) if e.code == 409 => {}
            Err(e) => return Err(e),
        }
        let request = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {"expirationSeconds": 3600}});
        let answer = objects::send(
            &self.server,
            Method::POST,
            &format!("{path}/{name}/token"),
            "application/json",
            request.to_string().into_bytes(),
        )
        .await?;
        Ok(answer
            .pointer("/status/token")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }

    /// Every audit event recorded so far (`audit.k8s.io/v1` Event objects; a server
    /// built with [`TestServerBuilder::rbac`] or an audit policy records them).
    pub fn audit_events(&self) -> Vec<Value> {
        self.server.shared().auth.audit.recorded()
    }

    /// The recorded events as an audit log's JSON lines (what `crd-gen rbac` and
    /// `crd_gen::rbac::read_audit_log` read).
    pub fn audit_log(&self) -> String {
        let mut out = String::new();
        for e in self.audit_events() {
            out.push_str(&e.to_string());
            out.push('\n');
        }
        out
    }

    /// The recorded events of the requests `user` made (or was impersonated in).
    pub fn requests_of(&self, user: &str) -> Vec<Value> {
        self.audit_events()
            .into_iter()
            .filter(|e| {
                let who = e.get("impersonatedUser").unwrap_or(&e["user"]);
                who["username"] == user
            })
            .collect()
    }

    /// A `kube::Client` that authenticates as `name` in `groups`.
    #[cfg(feature = "kube")]
    pub fn client_as_user(&self, name: &str, groups: &[&str]) -> kube::Client {
        self.client_with_token(Some(self.token_for_user(name, groups)))
    }

    /// A `kube::Client` that authenticates as the service account `namespace/name`
    /// with a token of its own (the service account is created when missing).
    #[cfg(feature = "kube")]
    pub async fn client_as_service_account(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<kube::Client, RequestError> {
        let token = self.token_for_service_account(namespace, name).await?;
        Ok(self.client_with_token(Some(token)))
    }

    /// A `kube::Client` carrying `token` (none: no credentials).
    #[cfg(feature = "kube")]
    pub(super) fn client_with_token(&self, token: Option<String>) -> kube::Client {
        let uri: http::Uri = self.url().parse().expect("the server's URL is a valid URI");
        let mut config = kube::Config::new(uri);
        config.auth_info.token = token.map(Into::into);
        kube::Client::try_from(config).expect("a plain-HTTP kube client needs no TLS")
    }
}
