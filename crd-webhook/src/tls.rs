//! TLS for webhooks (and crd-server, which serves its API with the same pieces):
//! serving certificates from PEM files, a self-signed CA with a loopback serving
//! certificate (for tests and development), and an axum router served over rustls.
//! The serving of aggregated API servers ([`crate::aggregated`]) adds a client
//! certificate verifier and hands each connection's certificates to the router.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::{Error, TlsFiles};

/// A TLS acceptor from PEM files.
pub fn load(files: &TlsFiles) -> Result<TlsAcceptor, Error> {
    let (certs, key) = read_pem(files).map_err(Error::Tls)?;
    acceptor(certs, key, None)
}

/// The certificate chain and private key of `files`, read and checked (crd-server's
/// API serving reads its files with this too); the error names the file.
pub fn read_pem(
    files: &TlsFiles,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), String> {
    let read =
        |p: &PathBuf| std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let cert_pem = read(&files.cert)?;
    let key_pem = read(&files.key)?;
    let certs: Vec<_> = rustls_pemfile::certs(&mut cert_pem.as_slice())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: not a PEM certificate: {e}", files.cert.display()))?;
    if certs.is_empty() {
        return Err(format!("{}: holds no certificate", files.cert.display()));
    }
    let key = rustls_pemfile::private_key(&mut key_pem.as_slice())
        .map_err(|e| format!("{}: not a PEM private key: {e}", files.key.display()))?
        .ok_or_else(|| format!("{}: holds no private key", files.key.display()))?;
    Ok((certs, key))
}

/// A TLS acceptor serving `certs`; with `clients`, it asks clients for a certificate
/// that verifier checks.
pub(crate) fn acceptor(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    clients: Option<Arc<dyn rustls::server::danger::ClientCertVerifier>>,
) -> Result<TlsAcceptor, Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(format!("TLS: {e}")))?;
    let builder = match clients {
        Some(verifier) => builder.with_client_cert_verifier(verifier),
        None => builder.with_no_client_auth(),
    };
    let config = builder
        .with_single_cert(certs, key)
        .map_err(|e| Error::Tls(format!("TLS: {e}")))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A CA and a serving certificate it signed, for `127.0.0.1`, `::1`, `localhost` and
/// any DNS names asked for ([`generate_for`](Self::generate_for)).
pub struct SelfSigned {
    /// The CA certificate (PEM): what a client trusts (a CRD's `caBundle`, base64).
    pub ca_pem: String,
    /// The serving certificate (PEM).
    pub cert_pem: String,
    /// The serving certificate's private key (PEM, PKCS#8).
    pub key_pem: String,
    acceptor: TlsAcceptor,
    cert_der: CertificateDer<'static>,
    key_der: Vec<u8>,
}

impl SelfSigned {
    /// A fresh CA and serving certificate (rcgen, ECDSA P-256).
    pub fn generate() -> Result<SelfSigned, Error> {
        Self::generate_for(&[])
    }

    /// A fresh CA and a serving certificate valid for `dns_names` as well as loopback:
    /// e.g. `metrics.default.svc`, the name an API server verifies a Service's
    /// certificate against.
    pub fn generate_for(dns_names: &[String]) -> Result<SelfSigned, Error> {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
        let fail = |e: rcgen::Error| Error::Tls(format!("TLS: cannot create a certificate: {e}"));
        let ca_key = KeyPair::generate().map_err(fail)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "crd-toolkit self-signed CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = ca_params.self_signed(&ca_key).map_err(fail)?;
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().map_err(fail)?;
        let mut names = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
        ];
        names.extend(dns_names.iter().cloned());
        let mut params = CertificateParams::new(names).map_err(fail)?;
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        let cert = params.signed_by(&key, &issuer).map_err(fail)?;
        let key_der = key.serialize_der();
        let pkcs8 = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key_der.clone()));
        let acceptor = acceptor(vec![cert.der().clone()], pkcs8, None)?;
        Ok(SelfSigned {
            ca_pem: ca.pem(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            acceptor,
            cert_der: cert.der().clone(),
            key_der,
        })
    }

    /// The serving certificate and its key, for an acceptor of other settings.
    pub(crate) fn chain_and_key(&self) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_der.clone()));
        (vec![self.cert_der.clone()], key)
    }

    /// The TLS acceptor serving the certificate.
    pub fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }
}

/// Serves `app` over TLS on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, acceptor: TlsAcceptor, app: axum::Router) {
    serve_connections(listener, acceptor, app, |_| None::<()>).await
}

/// [`serve`], with what `per_connection` reads from each connection's TLS state (its
/// client certificates) inserted into every request of that connection.
pub(crate) async fn serve_connections<E>(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    app: axum::Router,
    per_connection: fn(&rustls::ServerConnection) -> Option<E>,
) where
    E: Clone + Send + Sync + 'static,
{
    use tower::Service as _;
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let acceptor = acceptor.clone();
        let app = app.clone();
        connections.spawn(async move {
            // A failed handshake only ends that connection.
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let extension = per_connection(tls.get_ref().1);
            let service = hyper::service::service_fn(move |mut request| {
                if let Some(e) = &extension {
                    request.extensions_mut().insert(e.clone());
                }
                app.clone().call(request)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                .await;
        });
        while connections.try_join_next().is_some() {}
    }
}
