//! Webhooks for Kubernetes operators, served over HTTPS (rustls), without an API
//! server in the dependency tree (no crd-server, no storage): what an operator's
//! binary links. crd-server re-exports this crate as `crd_server::webhook`.
//!
//! - [`serve_conversion`]: a conversion webhook (`ConversionReview`, `POST /convert`);
//! - [`serve_admission`]: an admission webhook (`AdmissionReview` v1 and v1beta1, any
//!   path), with helpers to read typed objects and answer with a JSON patch;
//! - [`serve_token_review`] and [`serve_authorization`]: the authentication (TokenReview,
//!   `POST /authenticate`) and authorization (SubjectAccessReview, `POST /authorize`)
//!   webhooks of `--authentication-token-webhook-config-file` and
//!   `--authorization-webhook-config-file`;
//! - [`aggregated::serve_aggregated`]: an aggregated API server behind kube-aggregator
//!   (or crd-server), authenticating the aggregator's client certificate and the user
//!   it names in `X-Remote-*` headers ([`aggregated::RequestHeaderAuth`], read from the
//!   `extension-apiserver-authentication` ConfigMap).
//!
//! Both share the plumbing here: where to listen ([`WebhookConfig`]), which certificate
//! ([`WebhookTls`]: PEM files or a fresh self-signed CA), and the running server
//! ([`RunningWebhook`]: its URL and the `caBundle` to put in a configuration).
//! [`serve_router`] serves any axum router the same way, e.g. [`AdmissionRoutes`]: a
//! validating and a mutating handler on two paths.
//!
//! As the API server expects: an admission answer carries the review's `apiVersion`
//! and the request's `uid`; a failed conversion is a `Failure` result in a `200`
//! answer; a body that is no review gets `400` with a `Status`, one over 3 MiB (the
//! API server's own limit) `413`, and a panicking admission handler `500`.

#![deny(missing_docs)]

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::json;
use tokio::net::TcpListener;

use crate::tls::SelfSigned;

mod admission;
pub mod aggregated;
mod auth;
mod conversion;
pub mod tls;

pub use admission::{
    AdmissionHandler, AdmissionRequestExt, AdmissionRoutes, ObjectError, admission_route,
    admission_router, json_patch_ops, mutate_object, serve_admission,
};
pub use auth::{
    AccessRequest, AccessVerdict, ResourceAttributes, ReviewUser, TokenVerdict, access_review,
    access_review_router, serve_authorization, serve_token_review, token_review,
    token_review_router,
};
pub use conversion::{router, serve_conversion};

/// A certificate chain and its private key, as PEM files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// Certificate chain.
    pub cert: PathBuf,
    /// Private key.
    pub key: PathBuf,
}

/// Why a webhook did not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The certificate could not be read or made.
    #[error("{0}")]
    Tls(String),
}

/// Where the webhook listens and with which certificate.
#[derive(Clone, Debug)]
pub struct WebhookConfig {
    /// Address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// The serving certificate.
    pub tls: WebhookTls,
}

/// The serving certificate of a webhook.
#[derive(Clone, Debug)]
pub enum WebhookTls {
    /// PEM files.
    Files(TlsFiles),
    /// A fresh CA and a certificate it signed for `127.0.0.1`, `::1` and `localhost`;
    /// the CA is [`RunningWebhook::ca_pem`].
    SelfSigned,
    /// [`SelfSigned`](Self::SelfSigned), the certificate also valid for these DNS names
    /// (e.g. `metrics.default.svc`, which an API server checks a Service's certificate
    /// against).
    SelfSignedFor(Vec<String>),
}

/// A running webhook; dropping it stops it.
pub struct RunningWebhook {
    addr: SocketAddr,
    ca_pem: Option<String>,
    path: &'static str,
    task: tokio::task::JoinHandle<()>,
}

impl RunningWebhook {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The webhook's URL for a configuration's `clientConfig.url`:
    /// `https://ADDR/convert` for [`serve_conversion`], `https://ADDR/` for
    /// [`serve_admission`] and [`serve_router`].
    pub fn url(&self) -> String {
        self.url_for(self.path)
    }

    /// `https://ADDR` followed by `path` (e.g. `/validate`).
    pub fn url_for(&self, path: &str) -> String {
        format!("https://{}{path}", self.addr)
    }

    /// The self-signed CA (PEM), when [`WebhookTls::SelfSigned`].
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// The CA base64-encoded, as a `clientConfig.caBundle` takes it.
    pub fn ca_bundle(&self) -> Option<String> {
        self.ca_pem
            .as_ref()
            .map(|pem| base64::engine::general_purpose::STANDARD.encode(pem))
    }

    /// A kubeconfig naming this webhook ([`url`](Self::url), the self-signed CA as
    /// `certificate-authority-data`), as `--authentication-token-webhook-config-file`
    /// and `--authorization-webhook-config-file` take it; `None` with PEM files of your
    /// own (whose CA this webhook does not know).
    pub fn kubeconfig(&self) -> Option<String> {
        let ca = self.ca_bundle()?;
        Some(format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: webhook\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\nusers:\n- name: api-server\n  user: {{}}\ncontexts:\n- name: webhook\n  context:\n    cluster: webhook\n    user: api-server\ncurrent-context: webhook\n",
            self.url()
        ))
    }

    /// Serves until the process ends.
    pub async fn wait(mut self) {
        let _ = (&mut self.task).await;
    }
}

impl Drop for RunningWebhook {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The largest review accepted: the API server's own request body limit (3 MiB).
const BODY_LIMIT: usize = 3 * 1024 * 1024;

/// `200` with a JSON body.
fn json_ok(body: Vec<u8>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// `400` with a `metav1.Status` saying why the body was refused.
fn bad_request(message: String) -> Response {
    let status = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": message, "reason": "BadRequest", "code": 400
    });
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        status.to_string(),
    )
        .into_response()
}

/// Serves `app` over HTTPS in the background, with the certificate of `config`: the
/// plumbing of [`serve_conversion`] and [`serve_admission`], for routers that combine
/// several handlers ([`AdmissionRoutes`]).
pub async fn serve_router(app: Router, config: WebhookConfig) -> Result<RunningWebhook, Error> {
    serve(app, config, "/").await
}

async fn serve(
    app: Router,
    config: WebhookConfig,
    path: &'static str,
) -> Result<RunningWebhook, Error> {
    let (certs, key, ca_pem) = serving_certificate(&config.tls)?;
    let acceptor = tls::acceptor(certs, key, None)?;
    let (listener, addr) = bind(config.listen).await?;
    let task = tokio::spawn(tls::serve(listener, acceptor, app));
    Ok(RunningWebhook {
        addr,
        ca_pem,
        path,
        task,
    })
}

/// The serving certificate chain and key of `tls`, and the CA when self-signed.
type ServingCertificate = (
    Vec<tokio_rustls::rustls::pki_types::CertificateDer<'static>>,
    tokio_rustls::rustls::pki_types::PrivateKeyDer<'static>,
    Option<String>,
);

fn serving_certificate(tls: &WebhookTls) -> Result<ServingCertificate, Error> {
    let generated = match tls {
        WebhookTls::Files(files) => {
            let (certs, key) = tls::read_pem(files).map_err(Error::Tls)?;
            return Ok((certs, key, None));
        }
        WebhookTls::SelfSigned => SelfSigned::generate()?,
        WebhookTls::SelfSignedFor(names) => SelfSigned::generate_for(names)?,
    };
    let (certs, key) = generated.chain_and_key();
    Ok((certs, key, Some(generated.ca_pem)))
}

/// A listener on `listen` and the address it got.
async fn bind(listen: SocketAddr) -> Result<(TcpListener, SocketAddr), Error> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|source| Error::Bind {
            addr: listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| Error::Bind {
        addr: listen,
        source,
    })?;
    Ok((listener, addr))
}
