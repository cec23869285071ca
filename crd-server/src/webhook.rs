//! A conversion webhook: `POST /convert` answers an `apiextensions.k8s.io/v1`
//! `ConversionReview` with a [`Converter`] (crd-runtime's hub-and-spoke conversion),
//! over HTTPS (rustls), as a CRD's `spec.conversion.webhook.clientConfig` points to.
//!
//! A body that is no `ConversionReview` gets `400` with a `Status`; a conversion that
//! fails (an unknown desired version, a `TryFrom` error) is a `Failure` result in a
//! `200` answer, as the API server expects.
//!
//! ```no_run
//! # async fn run(converter: crd_runtime::conversion::Converter<()>) -> Result<(), crd_server::StartError> {
//! use crd_server::webhook::{WebhookConfig, WebhookTls, serve_conversion};
//! let webhook = serve_conversion(
//!     converter,
//!     WebhookConfig {
//!         listen: "127.0.0.1:8443".parse().unwrap(),
//!         tls: WebhookTls::SelfSigned,
//!     },
//! )
//! .await?;
//! println!("caBundle: {}", webhook.ca_bundle().unwrap());
//! webhook.wait().await;
//! # Ok(()) }
//! ```

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use crd_runtime::conversion::{Converter, review};
use serde_json::json;
use tokio::net::TcpListener;

use crate::config::{StartError, TlsFiles};
use crate::tls::SelfSigned;

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
}

/// A running webhook; dropping it stops it.
pub struct RunningWebhook {
    addr: SocketAddr,
    ca_pem: Option<String>,
    task: tokio::task::JoinHandle<()>,
}

impl RunningWebhook {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `https://ADDR/convert`, for a CRD's `clientConfig.url`.
    pub fn url(&self) -> String {
        format!("https://{}/convert", self.addr)
    }

    /// The self-signed CA (PEM), when [`WebhookTls::SelfSigned`].
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// The CA base64-encoded, as a CRD's `clientConfig.caBundle` takes it.
    pub fn ca_bundle(&self) -> Option<String> {
        self.ca_pem
            .as_ref()
            .map(|pem| base64::engine::general_purpose::STANDARD.encode(pem))
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

/// The largest `ConversionReview` accepted (the API server's request limit).
const BODY_LIMIT: usize = 3 * 1024 * 1024;

/// The webhook's routes: `POST /convert`.
pub fn router<H: Send + Sync + 'static>(converter: Converter<H>) -> Router {
    Router::new()
        .route("/convert", post(convert::<H>))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(Arc::new(converter))
}

async fn convert<H: Send + Sync + 'static>(
    State(converter): State<Arc<Converter<H>>>,
    body: Bytes,
) -> Response {
    match review(&converter, &body) {
        Ok(answer) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::to_vec(&answer).unwrap_or_default(),
        )
            .into_response(),
        Err(e) => {
            let status = json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": e.to_string(), "reason": "BadRequest", "code": 400
            });
            (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                status.to_string(),
            )
                .into_response()
        }
    }
}

/// Starts the webhook in the background.
pub async fn serve_conversion<H: Send + Sync + 'static>(
    converter: Converter<H>,
    config: WebhookConfig,
) -> Result<RunningWebhook, StartError> {
    let (acceptor, ca_pem) = match &config.tls {
        WebhookTls::Files(files) => (crate::tls::load(files)?, None),
        WebhookTls::SelfSigned => {
            let generated = SelfSigned::generate()?;
            (generated.acceptor(), Some(generated.ca_pem))
        }
    };
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|source| StartError::Bind {
            addr: config.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind {
        addr: config.listen,
        source,
    })?;
    let task = tokio::spawn(crate::tls::serve(listener, acceptor, router(converter)));
    Ok(RunningWebhook { addr, ca_pem, task })
}
