//! The HTTPS client the server calls webhooks with (conversion and admission): JSON
//! POSTed to `clientConfig.url`, or to a `service` — reached on loopback, as this
//! server runs outside a cluster, and verified by its DNS name `NAME.NAMESPACE.svc`
//! as kube-apiserver verifies it — trusting only the certificates of `caBundle`.
//! Connections are kept alive and reused between calls by hyper-util's pooling client
//! (the one the etcd store uses), over a connector that dials the endpoint and speaks
//! TLS to it.

use std::error::Error as _;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, pki_types::ServerName};

use crate::http_body::read_body;

/// A `service` reference of a webhook's `clientConfig`.
pub struct ServiceRef<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub path: Option<&'a str>,
    pub port: Option<u16>,
}

/// Why a call produced no answer to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The exchange failed: what Go's transport says after `Post "URL": `.
    Transport(String),
    /// No answer within the timeout.
    TimedOut,
    /// The webhook answered with a status other than 2xx.
    Status(u16, Bytes),
}

/// How many idle connections are kept for later calls.
const IDLE_CONNECTIONS: usize = 8;

/// One webhook endpoint.
pub struct WebhookClient {
    uri: http::Uri,
    client: Client<Dialer, Full<Bytes>>,
}

impl WebhookClient {
    /// The client of a `clientConfig` (`url` or `service`, and `caBundle`). `what`
    /// names the webhook in messages (`conversion webhook`).
    pub fn new(
        url: Option<&str>,
        service: Option<ServiceRef<'_>>,
        ca_bundle: Option<&str>,
        what: &str,
    ) -> Result<WebhookClient, String> {
        Self::with_trust(url, service, ca_bundle, false, what)
    }

    /// [`WebhookClient::new`], verifying no certificate when `insecure` (an APIService's
    /// `insecureSkipTLSVerify`).
    pub fn with_trust(
        url: Option<&str>,
        service: Option<ServiceRef<'_>>,
        ca_bundle: Option<&str>,
        insecure: bool,
        what: &str,
    ) -> Result<WebhookClient, String> {
        let trust = Trust {
            ca_bundle,
            insecure,
            identity: None,
        };
        let (uri, dialer) = dial_plan(url, service, &trust, what)?;
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(IDLE_CONNECTIONS)
            .build(dialer);
        Ok(WebhookClient { uri, client })
    }

    /// The URL called, with `query` (`timeout=10s`) added as Go's client adds it.
    pub fn url(&self, query: Option<&str>) -> String {
        match query {
            None => self.uri.to_string(),
            Some(q) if self.uri.query().is_some() => format!("{}&{q}", self.uri),
            Some(q) => format!("{}?{q}", self.uri),
        }
    }

    /// POSTs `body` (JSON) to the URL with `query`, and returns the answer's body.
    pub async fn post(
        &self,
        query: Option<&str>,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<Bytes, CallError> {
        self.post_with_bearer(query, body, timeout, None).await
    }

    /// [`WebhookClient::post`] with `Authorization: Bearer TOKEN` (a kubeconfig user's
    /// token, for the authentication webhook).
    pub async fn post_with_bearer(
        &self,
        query: Option<&str>,
        body: Vec<u8>,
        timeout: Duration,
        bearer: Option<&str>,
    ) -> Result<Bytes, CallError> {
        let path = {
            let p = self.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
            match query {
                None => p.to_string(),
                Some(q) if self.uri.query().is_some() => format!("{p}&{q}"),
                Some(q) => format!("{p}?{q}"),
            }
        };
        let uri = http::Uri::builder()
            .scheme("https")
            .authority(self.uri.authority().map_or("", |a| a.as_str()))
            .path_and_query(path)
            .build()
            .map_err(|e| CallError::Transport(e.to_string()))?;
        let mut request = http::Request::post(uri)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json");
        if let Some(token) = bearer {
            request = request.header(http::header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| CallError::Transport(e.to_string()))?;
        let exchange = async {
            let response = self.client.request(request).await.map_err(transport)?;
            let status = response.status();
            let body = read_body(response.into_body())
                .await
                .map_err(CallError::Transport)?;
            if !status.is_success() {
                return Err(CallError::Status(status.as_u16(), body));
            }
            Ok(body)
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(CallError::TimedOut),
        }
    }
}

/// What a client trusts and presents: the CAs of `caBundle` (base64 of PEM) or no
/// verification at all (`insecure`), and the client certificate it shows, if any.
pub struct Trust<'a> {
    pub ca_bundle: Option<&'a str>,
    pub insecure: bool,
    pub identity: Option<&'a ClientIdentity>,
}

/// A client certificate and its key, shown to the servers called (kube-apiserver's
/// `--proxy-client-cert-file` and `--proxy-client-key-file`).
#[derive(Clone)]
pub struct ClientIdentity {
    certs: Vec<CertificateDer<'static>>,
    key: Arc<PrivateKeyDer<'static>>,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientIdentity")
            .field("certs", &self.certs.len())
            .finish_non_exhaustive()
    }
}

impl ClientIdentity {
    /// Reads a certificate chain and its key from PEM files; the error names the file.
    pub fn load(cert: &std::path::Path, key: &std::path::Path) -> Result<ClientIdentity, String> {
        let files = crd_webhook::TlsFiles {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
        };
        let (certs, key) = crd_webhook::tls::read_pem(&files)?;
        Ok(ClientIdentity {
            certs,
            key: Arc::new(key),
        })
    }

    /// A certificate chain and its key given as PEM text.
    pub fn from_pem(cert: &str, key: &str) -> Result<ClientIdentity, String> {
        let certs: Vec<_> = rustls_pemfile::certs(&mut cert.as_bytes())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("not a PEM certificate: {e}"))?;
        if certs.is_empty() {
            return Err("no PEM certificate".into());
        }
        let key = rustls_pemfile::private_key(&mut key.as_bytes())
            .map_err(|e| format!("not a PEM private key: {e}"))?
            .ok_or_else(|| "no PEM private key".to_string())?;
        Ok(ClientIdentity {
            certs,
            key: Arc::new(key),
        })
    }
}

/// Where a client connects and how: the URI of `url` (or of the `service` on
/// loopback) and the dialer that reaches it with `trust`.
pub(crate) fn dial_plan(
    url: Option<&str>,
    service: Option<ServiceRef<'_>>,
    trust: &Trust<'_>,
    what: &str,
) -> Result<(http::Uri, Dialer), String> {
    let (url, name) = match (url, service) {
        (Some(url), _) => (url.to_string(), None),
        (None, Some(s)) => (
            format!(
                "https://127.0.0.1:{}{}",
                s.port.unwrap_or(443),
                s.path.unwrap_or("/")
            ),
            Some(format!("{}.{}.svc", s.name, s.namespace)),
        ),
        (None, None) => return Err(format!("the {what} has neither url nor service")),
    };
    let uri: http::Uri = url
        .parse()
        .map_err(|e| format!("{what} url {url:?}: {e}"))?;
    if uri.scheme_str() != Some("https") {
        return Err(format!("{what} url {url:?}: the scheme must be https"));
    }
    let host = uri
        .host()
        .ok_or_else(|| format!("{what} url {url:?} has no host"))?
        .trim_matches(['[', ']'])
        .to_string();
    let server_name = ServerName::try_from(name.unwrap_or_else(|| host.clone()))
        .map_err(|e| format!("{what} host {host:?}: {e}"))?;
    let dialer = Dialer {
        host: Arc::from(host),
        port: uri.port_u16().unwrap_or(443),
        server_name,
        tls: tls_connector(trust)?,
    };
    Ok((uri, dialer))
}

/// A failed exchange in the words of its cause.
fn transport(e: hyper_util::client::legacy::Error) -> CallError {
    CallError::Transport(transport_message(&e))
}

/// What failed in an exchange, in the words of its cause: the dialer's own message, or
/// hyper's (the pooling client's wrapper adds nothing Go would say).
pub(crate) fn transport_message(e: &hyper_util::client::legacy::Error) -> String {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = e.source();
    while let Some(c) = cause {
        if let Some(d) = c.downcast_ref::<DialError>() {
            return d.0.clone();
        }
        if let Some(h) = c.downcast_ref::<hyper::Error>() {
            return h.to_string();
        }
        cause = c.source();
    }
    e.to_string()
}

/// Dials the webhook's endpoint and speaks TLS to it, verifying its name: the
/// connector of the pooling client.
#[derive(Clone)]
pub(crate) struct Dialer {
    host: Arc<str>,
    port: u16,
    server_name: ServerName<'static>,
    tls: TlsConnector,
}

/// Why a dial failed, in Go's words.
#[derive(Debug)]
pub(crate) struct DialError(String);

impl std::fmt::Display for DialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DialError {}

impl tower::Service<http::Uri> for Dialer {
    type Response = TokioIo<Tls>;
    type Error = DialError;
    type Future = Pin<Box<dyn Future<Output = Result<TokioIo<Tls>, DialError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), DialError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _uri: http::Uri) -> Self::Future {
        let dialer = self.clone();
        Box::pin(async move {
            let (host, port) = (&*dialer.host, dialer.port);
            let tcp = TcpStream::connect((host, port))
                .await
                .map_err(|e| DialError(format!("dial tcp {host}:{port}: {}", go_io(&e))))?;
            let _ = tcp.set_nodelay(true);
            let tls = dialer
                .tls
                .connect(dialer.server_name.clone(), tcp)
                .await
                .map_err(|e| DialError(format!("tls: {e}")))?;
            Ok(TokioIo::new(Tls(tls)))
        })
    }
}

/// A TLS connection, as the pooling client takes it.
pub(crate) struct Tls(TlsStream<TcpStream>);

impl Connection for Tls {
    fn connected(&self) -> Connected {
        Connected::new()
    }
}

impl tokio::io::AsyncRead for Tls {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Tls {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// A socket error as Go's net package words the common ones.
fn go_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connect: connection refused".into(),
        std::io::ErrorKind::ConnectionReset => "read: connection reset by peer".into(),
        _ => e.to_string(),
    }
}

/// Accepts any server certificate (its signatures still checked): what
/// `insecureSkipTLSVerify` asks for.
#[derive(Debug)]
struct AnyServer(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyServer {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The TLS client of `trust`.
fn tls_connector(trust: &Trust<'_>) -> Result<TlsConnector, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let builder = if trust.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyServer(provider)))
    } else {
        builder.with_root_certificates(roots(trust.ca_bundle.unwrap_or(""))?)
    };
    let tls = match trust.identity {
        None => builder.with_no_client_auth(),
        Some(id) => builder
            .with_client_auth_cert(id.certs.clone(), id.key.clone_key())
            .map_err(|e| format!("the client certificate: {e}"))?,
    };
    Ok(TlsConnector::from(Arc::new(tls)))
}

/// The certificates of `bundle` (base64 of PEM).
fn roots(bundle: &str) -> Result<rustls::RootCertStore, String> {
    let mut roots = rustls::RootCertStore::empty();
    let pem = base64::engine::general_purpose::STANDARD
        .decode(bundle.trim())
        .map_err(|e| format!("caBundle is not base64: {e}"))?;
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        let cert = cert.map_err(|e| format!("caBundle: {e}"))?;
        roots.add(cert).map_err(|e| format!("caBundle: {e}"))?;
    }
    if roots.is_empty() {
        return Err("caBundle holds no certificate".into());
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_are_checked() {
        let err = |url: &str, ca: &str| {
            WebhookClient::new(Some(url), None, Some(ca), "admission webhook")
                .err()
                .unwrap()
        };
        assert_eq!(
            err("http://127.0.0.1:1/x", ""),
            "admission webhook url \"http://127.0.0.1:1/x\": the scheme must be https"
        );
        assert_eq!(
            err("https://127.0.0.1:1/x", ""),
            "caBundle holds no certificate"
        );
        assert!(err("https://127.0.0.1:1/x", "%%").starts_with("caBundle is not base64"));
        assert_eq!(
            WebhookClient::new(None, None, None, "admission webhook").err(),
            Some("the admission webhook has neither url nor service".into())
        );
    }

    #[tokio::test]
    async fn a_refused_connection_is_worded_as_go_words_it() {
        let ca = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
        let bundle = base64::engine::general_purpose::STANDARD.encode(ca.cert.pem());
        // A port just released: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("https://127.0.0.1:{port}/check");
        let client = WebhookClient::new(Some(&url), None, Some(&bundle), "webhook").unwrap();
        assert_eq!(
            client.url(Some("timeout=10s")),
            format!("https://127.0.0.1:{port}/check?timeout=10s")
        );
        let e = client
            .post(Some("timeout=10s"), b"{}".to_vec(), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert_eq!(
            e,
            CallError::Transport(format!(
                "dial tcp 127.0.0.1:{port}: connect: connection refused"
            ))
        );
    }
}
