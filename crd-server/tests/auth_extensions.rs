//! kube-apiserver's authentication and authorization extension points in crd-server,
//! driven with kubectl, kube::Client and curl (one test binary: each links the whole
//! server):
//! the token webhook, the authorization webhook (and crd-webhook's helpers for both),
//! and the authenticating proxy.

mod support;

/// A kube::Client of the HTTPS server at `url` sending `token` (its self-signed
/// certificate not checked, as kubectl's `--insecure-skip-tls-verify`).
pub fn kube_client(url: &str, token: &str) -> kube::Client {
    let mut config = kube::Config::new(url.parse().expect("url"));
    config.accept_invalid_certs = true;
    config.auth_info.token = Some(token.to_string().into());
    kube::Client::try_from(config).expect("client")
}

#[path = "auth_extensions/authorization_webhook.rs"]
mod authorization_webhook;
#[path = "auth_extensions/request_header.rs"]
mod request_header;
#[path = "auth_extensions/token_webhook.rs"]
mod token_webhook;
