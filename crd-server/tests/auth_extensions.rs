//! kube-apiserver's authentication and authorization extension points in crd-server,
//! driven with kubectl and curl (one test binary: each links the whole server):
//! the token webhook, the authorization webhook (and crd-webhook's helpers for both),
//! and the authenticating proxy.

mod support;

#[path = "auth_extensions/authorization_webhook.rs"]
mod authorization_webhook;
#[path = "auth_extensions/request_header.rs"]
mod request_header;
#[path = "auth_extensions/token_webhook.rs"]
mod token_webhook;
