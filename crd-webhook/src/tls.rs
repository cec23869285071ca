//! TLS for webhooks (and crd-server, which serves its API with the same pieces):
//! serving certificates from PEM files, a self-signed CA with a loopback serving
//! certificate (for tests and development), and an axum router served over rustls.

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
    acceptor(certs, key)
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

fn acceptor(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> Result<TlsAcceptor, Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| Error::Tls(format!("TLS: {e}")))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A CA and a serving certificate it signed, for `127.0.0.1`, `::1` and `localhost`.
pub struct SelfSigned {
    /// The CA certificate (PEM): what a client trusts (a CRD's `caBundle`, base64).
    pub ca_pem: String,
    /// The serving certificate (PEM).
    pub cert_pem: String,
    /// The serving certificate's private key (PEM, PKCS#8).
    pub key_pem: String,
    acceptor: TlsAcceptor,
}

impl SelfSigned {
    /// A fresh CA and serving certificate (rcgen, ECDSA P-256).
    pub fn generate() -> Result<SelfSigned, Error> {
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
        let mut params = CertificateParams::new(vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
        ])
        .map_err(fail)?;
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        let cert = params.signed_by(&key, &issuer).map_err(fail)?;
        let key_der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let acceptor = acceptor(vec![cert.der().clone()], key_der)?;
        Ok(SelfSigned {
            ca_pem: ca.pem(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            acceptor,
        })
    }

    /// The TLS acceptor serving the certificate.
    pub fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }
}

/// Serves `app` over TLS on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, acceptor: TlsAcceptor, app: axum::Router) {
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
            let service = hyper_util::service::TowerToHyperService::new(app);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                .await;
        });
        while connections.try_join_next().is_some() {}
    }
}
