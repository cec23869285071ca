//! Serving an aggregated API server: rustls asks every client for a certificate of
//! either trusted CA (and accepts none), each connection's verified chain is inserted
//! into its requests, and a middleware authenticates each request before the router.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, UnixTime};

use super::headers;
use super::{
    AuthConfigError, AuthenticatedUser, CLIENT_CA, REQUESTHEADER_CA, RequestHeaderAuth,
    pem_certificates, unauthorized,
};
use crate::{Error, RunningWebhook, WebhookConfig, serving_certificate, tls};

/// The client certificate chain the TLS handshake verified (leaf first), a request
/// extension of every request on that connection.
#[derive(Clone, Debug)]
pub struct ClientCertificates(pub Arc<[CertificateDer<'static>]>);

type Verifier = Arc<dyn rustls::server::danger::ClientCertVerifier>;

/// A [`RequestHeaderAuth`] ready to check certificates: one verifier per CA (to know
/// which signed a chain) and one over both for the handshake.
pub(super) struct Authenticator {
    auth: RequestHeaderAuth,
    proxies: Option<Verifier>,
    clients: Option<Verifier>,
    pub(super) handshake: Verifier,
}

/// A verifier that asks for a certificate `certs` signed and lets clients send none.
fn verifier(key: &str, certs: &[CertificateDer<'static>]) -> Result<Verifier, AuthConfigError> {
    let fail = |reason: String| AuthConfigError::BadCertificates {
        key: key.to_string(),
        reason,
    };
    let mut roots = rustls::RootCertStore::empty();
    for cert in certs {
        roots
            .add(cert.clone())
            .map_err(|e| fail(format!("not a CA certificate: {e}")))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .allow_unauthenticated()
        .build()
        .map_err(|e| fail(e.to_string()))
}

impl Authenticator {
    pub(super) fn new(auth: RequestHeaderAuth) -> Result<Self, AuthConfigError> {
        auth.validate()?;
        let bundle = |key: &str, pem: &Option<String>| {
            pem.as_deref().map(|p| pem_certificates(key, p)).transpose()
        };
        let proxy_certs = bundle(REQUESTHEADER_CA, &auth.requestheader_ca_pem)?;
        let client_certs = bundle(CLIENT_CA, &auth.client_ca_pem)?;
        let all: Vec<_> = proxy_certs
            .iter()
            .chain(&client_certs)
            .flatten()
            .cloned()
            .collect();
        Ok(Authenticator {
            proxies: proxy_certs
                .map(|c| verifier(REQUESTHEADER_CA, &c))
                .transpose()?,
            clients: client_certs.map(|c| verifier(CLIENT_CA, &c)).transpose()?,
            handshake: verifier("client CAs", &all)?,
            auth,
        })
    }

    /// The user of a request that came with `certs` and `headers`, or `None` (`401`).
    pub(super) fn authenticate(
        &self,
        certs: Option<&ClientCertificates>,
        headers: &axum::http::HeaderMap,
    ) -> Option<AuthenticatedUser> {
        let (leaf, intermediates) = certs?.0.split_first()?;
        let now = UnixTime::now();
        let signed_by = |v: &Option<Verifier>| {
            v.as_ref()
                .is_some_and(|v| v.verify_client_cert(leaf, intermediates, now).is_ok())
        };
        if signed_by(&self.proxies) {
            let cn = subject(leaf)?.0;
            // A proxy certificate with a CommonName not allowed is refused outright,
            // as upstream does, rather than tried as a client certificate.
            if !self.auth.allowed_names.is_empty() && !self.auth.allowed_names.contains(&cn) {
                return None;
            }
            if let Some(user) = headers::user_of(&self.auth, headers) {
                return Some(user.with_authenticated_group());
            }
        }
        if signed_by(&self.clients) {
            let (name, groups) = subject(leaf)?;
            if name.is_empty() {
                return None;
            }
            let user = AuthenticatedUser {
                name,
                groups,
                ..AuthenticatedUser::default()
            };
            return Some(user.with_authenticated_group());
        }
        None
    }
}

/// The CommonName and Organizations of a certificate's subject.
pub(super) fn subject(cert: &CertificateDer<'_>) -> Option<(String, Vec<String>)> {
    use x509_parser::prelude::FromDer;
    let (_, parsed) = x509_parser::certificate::X509Certificate::from_der(cert.as_ref()).ok()?;
    let subject = parsed.subject();
    let cn = subject
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .unwrap_or_default()
        .to_string();
    let orgs = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok().map(str::to_string))
        .collect();
    Some((cn, orgs))
}

/// Authenticates the request, then hands it on without the identity headers.
async fn authenticate(
    State(authenticator): State<Arc<Authenticator>>,
    mut request: Request,
    next: Next,
) -> Response {
    let certs = request.extensions().get::<ClientCertificates>();
    let Some(user) = authenticator.authenticate(certs, request.headers()) else {
        return unauthorized();
    };
    headers::strip(&authenticator.auth, request.headers_mut());
    request.extensions_mut().insert(user);
    next.run(request).await
}

/// Serves `app` over HTTPS as an aggregated API server trusting `auth`: every request
/// is authenticated first (`401` with a `Status` otherwise) and its handler may take an
/// [`AuthenticatedUser`]. The serving certificate is `config.tls`'s; an aggregator
/// verifies it as `NAME.NAMESPACE.svc` of the APIService's Service, so a self-signed
/// one should be [`WebhookTls::SelfSignedFor`](crate::WebhookTls::SelfSignedFor) that
/// name.
pub async fn serve_aggregated(
    app: Router,
    auth: RequestHeaderAuth,
    config: WebhookConfig,
) -> Result<RunningWebhook, Error> {
    let authenticator = Authenticator::new(auth).map_err(|e| Error::Tls(e.to_string()))?;
    let (certs, key, ca_pem) = serving_certificate(&config.tls)?;
    let acceptor = tls::acceptor(certs, key, Some(authenticator.handshake.clone()))?;
    let app = app.layer(axum::middleware::from_fn_with_state(
        Arc::new(authenticator),
        authenticate,
    ));
    let (listener, addr) = crate::bind(config.listen).await?;
    let task = tokio::spawn(tls::serve_connections(listener, acceptor, app, |conn| {
        conn.peer_certificates()
            .map(|chain| ClientCertificates(chain.to_vec().into()))
    }));
    Ok(RunningWebhook {
        addr,
        ca_pem,
        path: "/",
        task,
    })
}
