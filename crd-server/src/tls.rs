//! TLS for the API server: its serving certificate from PEM files, and an axum router
//! served over rustls. (Webhooks' TLS, with a self-signed CA for tests, is crd-webhook's.)

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::{StartError, TlsFiles};

/// A fresh CA and a loopback serving certificate it signed (crd-webhook's).
pub use crd_webhook::tls::SelfSigned;

/// A TLS acceptor from PEM files.
pub fn load(files: &TlsFiles) -> Result<TlsAcceptor, StartError> {
    load_with_clients(files, None)
}

/// A TLS acceptor from PEM files that asks clients for a certificate `clients`
/// verifies (`--client-ca-file`).
pub(crate) fn load_with_clients(
    files: &TlsFiles,
    clients: Option<Arc<dyn rustls::server::danger::ClientCertVerifier>>,
) -> Result<TlsAcceptor, StartError> {
    let (certs, key) = crd_webhook::tls::read_pem(files).map_err(StartError::Config)?;
    acceptor(certs, key, clients)
}

fn acceptor(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    clients: Option<Arc<dyn rustls::server::danger::ClientCertVerifier>>,
) -> Result<TlsAcceptor, StartError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StartError::Config(format!("TLS: {e}")))?;
    let builder = match clients {
        Some(verifier) => builder.with_client_cert_verifier(verifier),
        None => builder.with_no_client_auth(),
    };
    let config = builder
        .with_single_cert(certs, key)
        .map_err(|e| StartError::Config(format!("TLS: {e}")))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Serves `app` over TLS on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, acceptor: TlsAcceptor, app: axum::Router) {
    serve_with_clients(listener, acceptor, app, None).await
}

/// [`serve`], each connection's client certificate read by `cas` (which the acceptor
/// verified it against).
pub(crate) async fn serve_with_clients(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    app: axum::Router,
    cas: Option<crate::auth::x509::ClientCas>,
) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let acceptor = acceptor.clone();
        let app = app.clone();
        let cas = cas.clone();
        connections.spawn(async move {
            // A failed handshake only ends that connection.
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            // What the verified client certificate says, for every request of the
            // connection.
            let cert = match (&cas, tls.get_ref().1.peer_certificates()) {
                (Some(cas), Some(certs)) => cas.classify(certs),
                _ => crate::auth::x509::ClientCertificate::default(),
            };
            let app = tower::ServiceExt::map_request(app, move |mut req: http::Request<_>| {
                req.extensions_mut().insert(cert.clone());
                req
            });
            let service = hyper_util::service::TowerToHyperService::new(app);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                .await;
        });
        while connections.try_join_next().is_some() {}
    }
}
