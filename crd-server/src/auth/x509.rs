//! `--client-ca-file`: x509 client certificates. The TLS handshake verifies the chain
//! against the CAs (client-authentication usage included); the verified leaf
//! certificate names the user as kube-apiserver's x509 authenticator reads it: the
//! subject's CommonName is the user, its Organizations the groups.

use std::path::Path;
use std::sync::Arc;

use crd_runtime::rbac::UserInfo;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::CertificateDer;

use crate::auth::ConfigError;

/// The user of a verified client certificate, attached to each request of its
/// connection.
#[derive(Clone, Debug)]
pub struct ClientCertificate(pub Arc<Option<UserInfo>>);

/// The client certificate verifier for the CAs of `path` (clients without a
/// certificate are let through to the other authenticators).
pub fn verifier(
    path: &Path,
) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, ConfigError> {
    let fail = |e: String| ConfigError(format!("--client-ca-file: {}: {e}", path.display()));
    let pem = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        let cert = cert.map_err(|e| fail(format!("not a PEM certificate: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| fail(format!("not a CA certificate: {e}")))?;
    }
    if roots.is_empty() {
        return Err(fail("holds no certificate".into()));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .allow_unauthenticated()
        .build()
        .map_err(|e| fail(e.to_string()))
}

/// The user a verified leaf certificate names (`None` without a CommonName, which
/// kube-apiserver refuses: "x509: subject with cn=... is not in the allowed list").
pub fn user_of(cert: &CertificateDer<'_>) -> Option<UserInfo> {
    use x509_parser::prelude::FromDer;
    let (_, parsed) = x509_parser::certificate::X509Certificate::from_der(cert.as_ref()).ok()?;
    let subject = parsed.subject();
    let name = subject
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())?
        .to_string();
    if name.is_empty() {
        return None;
    }
    let groups = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok().map(str::to_string))
        .collect();
    Some(UserInfo {
        name,
        groups,
        ..UserInfo::default()
    })
}
