//! A conversion webhook: `POST /convert` answers an `apiextensions.k8s.io/v1`
//! `ConversionReview` with a [`Converter`] (crd-runtime's hub-and-spoke conversion),
//! over HTTPS (rustls), as a CRD's `spec.conversion.webhook.clientConfig` points to.
//!
//! A body that is no `ConversionReview` gets `400` with a `Status`; a conversion that
//! fails (an unknown desired version, a `TryFrom` error) is a `Failure` result in a
//! `200` answer, as the API server expects.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::response::Response;
use axum::routing::post;
use crd_runtime::conversion::{Converter, review};

use super::{BODY_LIMIT, RunningWebhook, WebhookConfig, bad_request, json_ok};

/// The conversion webhook's routes: `POST /convert`.
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
        Ok(answer) => json_ok(serde_json::to_vec(&answer).unwrap_or_default()),
        Err(e) => bad_request(e.to_string()),
    }
}

/// Starts the conversion webhook in the background; its
/// [`url`](RunningWebhook::url) is `https://ADDR/convert`.
///
/// ```no_run
/// # async fn run(converter: crd_runtime::conversion::Converter<()>) -> Result<(), crd_webhook::Error> {
/// use crd_webhook::{WebhookConfig, WebhookTls, serve_conversion};
/// let webhook = serve_conversion(
///     converter,
///     WebhookConfig {
///         listen: "127.0.0.1:8443".parse().unwrap(),
///         tls: WebhookTls::SelfSigned,
///     },
/// )
/// .await?;
/// println!("caBundle: {}", webhook.ca_bundle().unwrap());
/// webhook.wait().await;
/// # Ok(()) }
/// ```
pub async fn serve_conversion<H: Send + Sync + 'static>(
    converter: Converter<H>,
    config: WebhookConfig,
) -> Result<RunningWebhook, super::Error> {
    super::serve(router(converter), config, "/convert").await
}
