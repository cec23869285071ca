//! One remote APIService: the group/version its server serves, where the server is
//! (the Service's port on loopback, verified as `NAME.NAMESPACE.svc`, as webhooks are
//! reached), whether it is available, and the pooling HTTPS client that reaches it
//! showing the server's proxy client certificate.

use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Request, Response};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use crate::api::object::{name_of, str_at};
use crate::http_body::read_body;
use crate::webhook_client::{CallError, ClientIdentity, Dialer, ServiceRef, Trust, dial_plan};

/// Idle connections kept per extension server.
const IDLE_CONNECTIONS: usize = 16;

/// The HTTPS client of one extension server.
#[derive(Clone)]
pub struct ProxyClient {
    authority: http::uri::Authority,
    client: Client<Dialer, Body>,
}

/// A remote APIService as the router needs it.
pub struct Remote {
    pub name: String,
    pub group: String,
    pub version: String,
    pub group_priority: i64,
    pub version_priority: i64,
    /// The `Available` condition is `True`.
    pub available: bool,
    /// The client, or why none could be made (a bad `caBundle`).
    pub client: Result<ProxyClient, String>,
    /// What the client was made from: an unchanged spec keeps the client.
    spec: Value,
}

impl Remote {
    /// The remote APIService `obj` describes (`None`: a local one).
    pub fn of(obj: &Value, identity: Option<&ClientIdentity>) -> Option<Remote> {
        let spec = obj.get("spec")?;
        let service = spec.get("service").filter(|s| s.is_object())?;
        let (ns, name) = (str_at(service, "/namespace"), str_at(service, "/name"));
        let port = service.get("port").and_then(Value::as_i64).unwrap_or(443);
        let insecure = spec.get("insecureSkipTLSVerify") == Some(&Value::Bool(true));
        let ca_bundle = str_at(spec, "/caBundle");
        let client = ProxyClient::new(ns, name, port, ca_bundle, insecure, identity);
        Some(Remote {
            name: name_of(obj).to_string(),
            group: str_at(spec, "/group").to_string(),
            version: str_at(spec, "/version").to_string(),
            group_priority: spec
                .get("groupPriorityMinimum")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            version_priority: spec
                .get("versionPriority")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            available: super::is_available(obj),
            client,
            spec: spec.clone(),
        })
    }

    /// Same spec and availability: `self` can stand for `other`.
    pub fn same_as(&self, other: &Remote) -> bool {
        self.spec == other.spec && self.available == other.available && self.name == other.name
    }

    /// `/apis/GROUP/VERSION`, the path its server must serve.
    pub fn discovery_path(&self) -> String {
        format!("/apis/{}/{}", self.group, self.version)
    }
}

impl ProxyClient {
    fn new(
        ns: &str,
        name: &str,
        port: i64,
        ca_bundle: &str,
        insecure: bool,
        identity: Option<&ClientIdentity>,
    ) -> Result<ProxyClient, String> {
        let port = u16::try_from(port).map_err(|_| format!("invalid port {port}"))?;
        let service = ServiceRef {
            namespace: ns,
            name,
            path: None,
            port: Some(port),
        };
        let trust = Trust {
            ca_bundle: Some(ca_bundle),
            insecure,
            identity,
        };
        let (uri, dialer) = dial_plan(None, Some(service), &trust, "APIService")?;
        let authority = uri
            .authority()
            .cloned()
            .ok_or_else(|| "no authority".to_string())?;
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(IDLE_CONNECTIONS)
            .build(dialer);
        Ok(ProxyClient { authority, client })
    }

    /// The URI of `path_and_query` on the server.
    pub fn uri(&self, path_and_query: &str) -> Result<http::Uri, String> {
        http::Uri::builder()
            .scheme("https")
            .authority(self.authority.clone())
            .path_and_query(path_and_query)
            .build()
            .map_err(|e| e.to_string())
    }

    /// Sends `req` (its URI already the server's).
    pub async fn send(&self, req: Request<Body>) -> Result<Response<Incoming>, String> {
        self.client
            .request(req)
            .await
            .map_err(|e| crate::webhook_client::transport_message(&e))
    }

    /// GETs `path` as kube-aggregator's own checks do (`system:kube-aggregator` in
    /// `system:masters`): the status and body.
    pub async fn get_as_aggregator(
        &self,
        path: &str,
        timeout: Duration,
    ) -> Result<(u16, Bytes), CallError> {
        let uri = self.uri(path).map_err(CallError::Transport)?;
        let mut req = Request::get(uri)
            .header(http::header::ACCEPT, "application/json")
            .body(Body::empty())
            .map_err(|e| CallError::Transport(e.to_string()))?;
        set_identity(
            req.headers_mut(),
            "system:kube-aggregator",
            "",
            &["system:masters".to_string()],
            &Default::default(),
        );
        let exchange = async {
            let response = self.send(req).await.map_err(CallError::Transport)?;
            let status = response.status().as_u16();
            let body = read_body(response.into_body())
                .await
                .map_err(CallError::Transport)?;
            Ok((status, body))
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(CallError::TimedOut),
        }
    }
}

/// The prefix of the headers that carry a user's extra values.
pub const EXTRA_PREFIX: &str = "X-Remote-Extra-";

/// Replaces the identity headers of `headers` with `user`'s, as client-go's
/// `SetAuthProxyHeaders`: `X-Remote-User`, `X-Remote-Uid` (when known), one
/// `X-Remote-Group` per group, one `X-Remote-Extra-KEY` per value (the key
/// percent-encoded).
pub fn set_identity(
    headers: &mut HeaderMap,
    name: &str,
    uid: &str,
    groups: &[String],
    extra: &std::collections::BTreeMap<String, Vec<String>>,
) {
    let stale: Vec<HeaderName> = headers
        .keys()
        .filter(|k| {
            let k = k.as_str();
            k == "x-remote-user"
                || k == "x-remote-uid"
                || k == "x-remote-group"
                || k.starts_with("x-remote-extra-")
        })
        .cloned()
        .collect();
    for k in stale {
        headers.remove(k);
    }
    let value = |s: &str| HeaderValue::from_str(s).ok();
    if let Some(v) = value(name) {
        headers.insert("x-remote-user", v);
    }
    if !uid.is_empty()
        && let Some(v) = value(uid)
    {
        headers.insert("x-remote-uid", v);
    }
    for g in groups {
        if let Some(v) = value(g) {
            headers.append("x-remote-group", v);
        }
    }
    for (key, values) in extra {
        let Ok(name) =
            HeaderName::from_bytes(format!("{EXTRA_PREFIX}{}", escape_key(key)).as_bytes())
        else {
            continue;
        };
        for v in values {
            if let Some(v) = value(v) {
                headers.append(name.clone(), v);
            }
        }
    }
}

/// An extra key as a header name may carry it, as client-go escapes it: every byte
/// that is no HTTP token character, and `%` itself, as `%XX`.
pub fn escape_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        let token = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'!' | b'#'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        if token {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identity_headers_replace_what_the_caller_sent() {
        let mut h = HeaderMap::new();
        h.insert("x-remote-user", HeaderValue::from_static("mallory"));
        h.insert("x-remote-extra-scopes", HeaderValue::from_static("all"));
        let extra = [(
            "example.com/team name".to_string(),
            vec!["a".to_string(), "b".to_string()],
        )]
        .into_iter()
        .collect();
        set_identity(
            &mut h,
            "alice",
            "42",
            &["dev".into(), "system:authenticated".into()],
            &extra,
        );
        assert_eq!(h["x-remote-user"], "alice");
        assert_eq!(h["x-remote-uid"], "42");
        let groups: Vec<_> = h.get_all("x-remote-group").iter().collect();
        assert_eq!(groups, ["dev", "system:authenticated"]);
        assert!(h.get("x-remote-extra-scopes").is_none());
        let team: Vec<_> = h
            .get_all("x-remote-extra-example.com%2Fteam%20name")
            .iter()
            .collect();
        assert_eq!(team, ["a", "b"]);
    }

    #[test]
    fn a_local_apiservice_is_no_remote() {
        let local =
            json!({"metadata": {"name": "v1.apps"}, "spec": {"group": "apps", "version": "v1"}});
        assert!(Remote::of(&local, None).is_none());
        let remote = json!({"metadata": {"name": "v1.m.io"}, "spec": {"group": "m.io", "version": "v1",
            "groupPriorityMinimum": 100, "versionPriority": 10, "insecureSkipTLSVerify": true,
            "service": {"namespace": "default", "name": "m", "port": 8443}},
            "status": {"conditions": [{"type": "Available", "status": "True"}]}});
        let r = Remote::of(&remote, None).unwrap();
        assert!(r.available && r.client.is_ok());
        assert_eq!((r.group_priority, r.version_priority), (100, 10));
        assert_eq!(r.discovery_path(), "/apis/m.io/v1");
        let bad = json!({"metadata": {"name": "v1.m.io"}, "spec": {"group": "m.io", "version": "v1",
            "caBundle": "", "service": {"namespace": "default", "name": "m"}}});
        assert_eq!(
            Remote::of(&bad, None).unwrap().client.err().as_deref(),
            Some("caBundle holds no certificate")
        );
    }
}
