//! `--client-ca-file`: x509 client certificates (and `--requestheader-client-ca-file`'s,
//! an authenticating proxy's). The TLS handshake verifies the chain
//! against the CAs (client-authentication usage included); the verified leaf
//! certificate names the user as kube-apiserver's x509 authenticator reads it: the
//! subject's CommonName is the user, its Organizations the groups.

use std::path::Path;
use std::sync::Arc;

use crd_runtime::rbac::UserInfo;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::CertificateDer;

use crate::auth::ConfigError;

/// What a verified client certificate says, attached to each request of its
/// connection: the user it names when `--client-ca-file` signed it, and its CommonName
/// when `--requestheader-client-ca-file` signed it (an authenticating proxy).
#[derive(Clone, Debug, Default)]
pub struct ClientCertificate {
    pub user: Arc<Option<UserInfo>>,
    pub proxy: Option<Arc<str>>,
}

type Verifier = Arc<dyn rustls::server::danger::ClientCertVerifier>;

/// The client CAs of a server: the handshake accepts a certificate either signs, and
/// each connection's certificate is then checked against each on its own.
#[derive(Clone)]
pub struct ClientCas {
    /// Asks for a certificate and accepts one signed by any of the CAs.
    pub handshake: Verifier,
    users: Option<Verifier>,
    proxies: Option<Verifier>,
}

fn roots(flag: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, ConfigError> {
    let fail = |e: String| ConfigError(format!("{flag}: {}: {e}", path.display()));
    let pem = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    let certs = rustls_pemfile::certs(&mut pem.as_slice())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(format!("not a PEM certificate: {e}")))?;
    if certs.is_empty() {
        return Err(fail("holds no certificate".into()));
    }
    Ok(certs)
}

fn verifier_of(flag: &str, certs: &[CertificateDer<'static>]) -> Result<Verifier, ConfigError> {
    let fail = |e: String| ConfigError(format!("{flag}: {e}"));
    let mut store = rustls::RootCertStore::empty();
    for cert in certs {
        store
            .add(cert.clone())
            .map_err(|e| fail(format!("not a CA certificate: {e}")))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(store), provider)
        .allow_unauthenticated()
        .build()
        .map_err(|e| fail(e.to_string()))
}

impl ClientCas {
    /// The CAs of `--client-ca-file` and `--requestheader-client-ca-file`; `None` when
    /// neither is given.
    pub fn load(
        users: Option<&Path>,
        proxies: Option<&Path>,
    ) -> Result<Option<ClientCas>, ConfigError> {
        let user_certs = users.map(|p| roots("--client-ca-file", p)).transpose()?;
        let proxy_certs = proxies
            .map(|p| roots("--requestheader-client-ca-file", p))
            .transpose()?;
        let all: Vec<_> = user_certs
            .iter()
            .chain(proxy_certs.iter())
            .flatten()
            .cloned()
            .collect();
        if all.is_empty() {
            return Ok(None);
        }
        Ok(Some(ClientCas {
            handshake: verifier_of("client CAs", &all)?,
            users: user_certs
                .map(|c| verifier_of("--client-ca-file", &c))
                .transpose()?,
            proxies: proxy_certs
                .map(|c| verifier_of("--requestheader-client-ca-file", &c))
                .transpose()?,
        }))
    }

    /// What the connection's verified chain (`certs`, leaf first) says.
    pub fn classify(&self, certs: &[CertificateDer<'static>]) -> ClientCertificate {
        let Some((leaf, intermediates)) = certs.split_first() else {
            return ClientCertificate::default();
        };
        let now = rustls::pki_types::UnixTime::now();
        let signed_by = |v: &Option<Verifier>| {
            v.as_ref()
                .is_some_and(|v| v.verify_client_cert(leaf, intermediates, now).is_ok())
        };
        let user = if signed_by(&self.users) {
            user_of(leaf)
        } else {
            None
        };
        let proxy = signed_by(&self.proxies)
            .then(|| common_name(leaf))
            .flatten()
            .map(Arc::from);
        ClientCertificate {
            user: Arc::new(user),
            proxy,
        }
    }
}

/// The CommonName of a certificate's subject.
fn common_name(cert: &CertificateDer<'_>) -> Option<String> {
    use x509_parser::prelude::FromDer;
    let (_, parsed) = x509_parser::certificate::X509Certificate::from_der(cert.as_ref()).ok()?;
    let subject = parsed.subject();
    let cn = subject.iter_common_name().next()?.as_str().ok()?;
    Some(cn.to_string())
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
