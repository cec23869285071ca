//! What an aggregated API server needs to trust the aggregator, as k8s.io/apiserver's
//! delegated authentication does it.
//!
//! Behind kube-aggregator (or crd-server), an extension API server does not see the
//! caller: the aggregator connects with a client certificate signed by the
//! *requestheader* CA (the front proxy's) and names the user in headers —
//! `X-Remote-User`, `X-Remote-Uid`, `X-Remote-Group` (one per group),
//! `X-Remote-Extra-<key>` (key percent-encoded). The API server publishes that CA, the
//! names its certificate may carry and the header names in the ConfigMap
//! `kube-system/extension-apiserver-authentication`, with its own `client-ca-file`.
//!
//! - [`RequestHeaderAuth`] holds those settings, read from the ConfigMap's `data`
//!   ([`RequestHeaderAuth::from_config_map_data`]) or given explicitly;
//! - [`serve_aggregated`] serves a router over rustls, asking for (not requiring) a
//!   client certificate, and authenticates every request: a certificate of the
//!   requestheader CA whose CommonName is allowed → the user of the headers; a
//!   certificate of the client CA → its CommonName and Organizations; anything else →
//!   `401` with a Kubernetes `Status`;
//! - handlers take the caller as an [`AuthenticatedUser`] (an axum extractor); the
//!   verified chain is [`ClientCertificates`], a request extension.
//!
//! Authorization is the server's: upstream asks the API server with a
//! SubjectAccessReview for the [`AuthenticatedUser`] (see `ReviewUser`'s `From`).

use std::collections::BTreeMap;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio_rustls::rustls::pki_types::CertificateDer;

use crate::ReviewUser;

mod headers;
mod serving;
#[cfg(test)]
mod tests;

pub use serving::{ClientCertificates, serve_aggregated};

/// The namespace of the ConfigMap the API server publishes its client CAs in.
pub const CONFIG_MAP_NAMESPACE: &str = "kube-system";
/// The name of that ConfigMap.
pub const CONFIG_MAP_NAME: &str = "extension-apiserver-authentication";

/// The group every authenticated user gets, as upstream's authenticated-group adder
/// gives it.
const AUTHENTICATED_GROUP: &str = "system:authenticated";

/// Whom an aggregated API server trusts: the authenticating proxy (the requestheader
/// CA, the CommonNames it may present and the headers it names the user in) and the
/// CA of clients that call it directly (`client-ca-file`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestHeaderAuth {
    /// The requestheader CA bundle (PEM): `requestheader-client-ca-file`.
    pub requestheader_ca_pem: Option<String>,
    /// The CommonNames the proxy's certificate may carry; empty: any.
    pub allowed_names: Vec<String>,
    /// The headers naming the user; the first with a value wins.
    pub username_headers: Vec<String>,
    /// The headers naming the user's uid; the first with a value wins.
    pub uid_headers: Vec<String>,
    /// The headers naming groups; every value of each counts.
    pub group_headers: Vec<String>,
    /// The prefixes of the headers carrying extra values (`X-Remote-Extra-`).
    pub extra_header_prefixes: Vec<String>,
    /// The CA bundle of clients authenticated by their own certificate (PEM):
    /// `client-ca-file`.
    pub client_ca_pem: Option<String>,
}

/// Why the trust settings are unusable; each names the ConfigMap key at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthConfigError {
    /// A header list is not a JSON array of strings.
    #[error("{key}: not a JSON array of strings: {reason}")]
    NotStringList {
        /// The ConfigMap key.
        key: String,
        /// What the JSON parser said.
        reason: String,
    },
    /// A CA bundle holds no usable certificate.
    #[error("{key}: {reason}")]
    BadCertificates {
        /// The ConfigMap key.
        key: String,
        /// Why.
        reason: String,
    },
    /// A requestheader CA without a header to read the user from.
    #[error(
        "requestheader-username-headers: names no header, but requestheader-client-ca-file is set"
    )]
    NoUsernameHeader,
    /// Neither CA: no client could ever be authenticated.
    #[error(
        "neither client-ca-file nor requestheader-client-ca-file is set: no client can be authenticated"
    )]
    NothingTrusted,
}

const CLIENT_CA: &str = "client-ca-file";
const REQUESTHEADER_CA: &str = "requestheader-client-ca-file";
const ALLOWED_NAMES: &str = "requestheader-allowed-names";
const USERNAME_HEADERS: &str = "requestheader-username-headers";
const UID_HEADERS: &str = "requestheader-uid-headers";
const GROUP_HEADERS: &str = "requestheader-group-headers";
const EXTRA_PREFIXES: &str = "requestheader-extra-headers-prefix";

impl RequestHeaderAuth {
    /// Trusts the proxy whose certificates `requestheader_ca_pem` signs, with the
    /// headers kube-apiserver is usually set up with: `X-Remote-User`, `X-Remote-Uid`,
    /// `X-Remote-Group`, `X-Remote-Extra-`; any CommonName; no client CA.
    pub fn new(requestheader_ca_pem: impl Into<String>) -> Self {
        let one = |s: &str| vec![s.to_string()];
        RequestHeaderAuth {
            requestheader_ca_pem: Some(requestheader_ca_pem.into()),
            allowed_names: Vec::new(),
            username_headers: one("X-Remote-User"),
            uid_headers: one("X-Remote-Uid"),
            group_headers: one("X-Remote-Group"),
            extra_header_prefixes: one("X-Remote-Extra-"),
            client_ca_pem: None,
        }
    }

    /// Only proxies whose certificate's CommonName is one of `names`.
    pub fn with_allowed_names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_names = names.into_iter().map(Into::into).collect();
        self
    }

    /// Also trusts clients with a certificate `client_ca_pem` signs.
    pub fn with_client_ca(mut self, client_ca_pem: impl Into<String>) -> Self {
        self.client_ca_pem = Some(client_ca_pem.into());
        self
    }

    /// The settings of the `extension-apiserver-authentication` ConfigMap's `data`:
    /// `client-ca-file`, `requestheader-client-ca-file` (PEM) and the JSON arrays
    /// `requestheader-allowed-names`, `-username-headers`, `-uid-headers`,
    /// `-group-headers`, `-extra-headers-prefix` (a missing one is empty).
    pub fn from_config_map_data(data: &BTreeMap<String, String>) -> Result<Self, AuthConfigError> {
        let list = |key: &str| -> Result<Vec<String>, AuthConfigError> {
            let Some(text) = data.get(key) else {
                return Ok(Vec::new());
            };
            serde_json::from_str(text).map_err(|e| AuthConfigError::NotStringList {
                key: key.to_string(),
                reason: e.to_string(),
            })
        };
        let auth = RequestHeaderAuth {
            requestheader_ca_pem: data.get(REQUESTHEADER_CA).cloned(),
            allowed_names: list(ALLOWED_NAMES)?,
            username_headers: list(USERNAME_HEADERS)?,
            uid_headers: list(UID_HEADERS)?,
            group_headers: list(GROUP_HEADERS)?,
            extra_header_prefixes: list(EXTRA_PREFIXES)?,
            client_ca_pem: data.get(CLIENT_CA).cloned(),
        };
        auth.validate()?;
        Ok(auth)
    }

    /// The ConfigMap `data` that says these settings, as the API server writes it.
    pub fn to_config_map_data(&self) -> BTreeMap<String, String> {
        let mut data = BTreeMap::new();
        if let Some(pem) = &self.client_ca_pem {
            data.insert(CLIENT_CA.to_string(), pem.clone());
        }
        if let Some(pem) = &self.requestheader_ca_pem {
            let json = |v: &Vec<String>| serde_json::Value::from(v.clone()).to_string();
            data.insert(REQUESTHEADER_CA.to_string(), pem.clone());
            data.insert(ALLOWED_NAMES.to_string(), json(&self.allowed_names));
            data.insert(USERNAME_HEADERS.to_string(), json(&self.username_headers));
            data.insert(UID_HEADERS.to_string(), json(&self.uid_headers));
            data.insert(GROUP_HEADERS.to_string(), json(&self.group_headers));
            data.insert(
                EXTRA_PREFIXES.to_string(),
                json(&self.extra_header_prefixes),
            );
        }
        data
    }

    /// Checks what serving needs: some CA, each bundle PEM certificates, and a username
    /// header with the requestheader CA.
    pub fn validate(&self) -> Result<(), AuthConfigError> {
        if self.requestheader_ca_pem.is_none() && self.client_ca_pem.is_none() {
            return Err(AuthConfigError::NothingTrusted);
        }
        if let Some(pem) = &self.client_ca_pem {
            pem_certificates(CLIENT_CA, pem)?;
        }
        if let Some(pem) = &self.requestheader_ca_pem {
            pem_certificates(REQUESTHEADER_CA, pem)?;
            if !self.username_headers.iter().any(|h| !h.trim().is_empty()) {
                return Err(AuthConfigError::NoUsernameHeader);
            }
        }
        Ok(())
    }
}

/// The certificates of the bundle under `key`: at least one.
fn pem_certificates(key: &str, pem: &str) -> Result<Vec<CertificateDer<'static>>, AuthConfigError> {
    let fail = |reason: String| AuthConfigError::BadCertificates {
        key: key.to_string(),
        reason,
    };
    let certs = rustls_pemfile::certs(&mut pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(format!("not a PEM certificate: {e}")))?;
    if certs.is_empty() {
        return Err(fail("holds no PEM certificate".to_string()));
    }
    Ok(certs)
}

/// The caller of a request, as the aggregator named it (or its own certificate did).
/// Handlers take it as an argument; a request that reaches one without it (a router
/// not served by [`serve_aggregated`]) gets `401`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthenticatedUser {
    /// The user name.
    pub name: String,
    /// Its uid (empty when the proxy sent none).
    pub uid: String,
    /// Its groups, `system:authenticated` included.
    pub groups: Vec<String>,
    /// Its extra values, keys lower-cased and percent-decoded.
    pub extra: BTreeMap<String, Vec<String>>,
}

impl AuthenticatedUser {
    /// Whether the user is in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }

    /// Adds `system:authenticated` when missing, as upstream does for every user.
    fn with_authenticated_group(mut self) -> Self {
        if !self.in_group(AUTHENTICATED_GROUP) {
            self.groups.push(AUTHENTICATED_GROUP.to_string());
        }
        self
    }
}

impl From<AuthenticatedUser> for ReviewUser {
    fn from(user: AuthenticatedUser) -> Self {
        ReviewUser {
            username: user.name,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for AuthenticatedUser {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<AuthenticatedUser>()
            .cloned()
            .ok_or_else(unauthorized)
    }
}

/// `401` with the `Status` kube-apiserver answers an unauthenticated request with.
fn unauthorized() -> Response {
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401
    });
    (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "application/json")],
        status.to_string(),
    )
        .into_response()
}
