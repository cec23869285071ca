//! The proxy of kube-aggregator's `proxyHandler`: a request for a remote APIService's
//! group/version, once authenticated and authorized here, goes to its server with the
//! same method, path, query and body, the caller's identity in `X-Remote-*` headers
//! (its own credentials removed), over TLS showing the proxy client certificate. The
//! answer streams back as it comes (a watch included). An APIService that is not
//! available gets `503 service unavailable`, as kube-aggregator answers — in plain
//! text, which clients read as "the server is currently unable to handle the request".

use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderName, StatusCode, header};

use super::remote::{Remote, set_identity};
use crate::api::status::ApiError;

/// Headers that belong to one connection, not to the request (RFC 9110 7.6.1).
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// kube-apiserver's default `--request-timeout`: how long a request other than a watch
/// may take before its filter answers 504.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the extension server has to answer `uri`: none for a watch (it streams as
/// long as it likes), else the request's `timeout` parameter up to the default.
fn deadline(uri: &http::Uri) -> Option<Duration> {
    let mut timeout = REQUEST_TIMEOUT;
    // Neither parameter's value needs decoding (`true`, `1`, `32s`).
    let pairs = uri.query().unwrap_or("").split('&');
    for (k, v) in pairs.filter_map(|p| p.split_once('=')) {
        match k {
            "watch" if v == "true" || v == "1" => return None,
            "timeout" => {
                if let Ok(t) = crate::duration::parse_duration(v) {
                    timeout = timeout.min(t);
                }
            }
            _ => {}
        }
    }
    if uri.path().contains("/watch/") {
        return None;
    }
    Some(timeout)
}

/// Proxies `req` to `remote`'s server.
pub async fn serve(remote: &Remote, req: Request) -> Response {
    if !remote.available {
        return proxy_error(StatusCode::SERVICE_UNAVAILABLE, "service unavailable");
    }
    let client = match &remote.client {
        Ok(c) => c,
        Err(e) => return proxy_error(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    let (mut parts, body) = req.into_parts();
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = match client.uri(target) {
        Ok(uri) => uri,
        Err(e) => return proxy_error(StatusCode::SERVICE_UNAVAILABLE, &e),
    };
    strip_hop_by_hop(&mut parts.headers);
    // The caller's credentials were for this server; the extension server trusts the
    // proxy's certificate and the identity headers instead.
    parts.headers.remove(header::AUTHORIZATION);
    let impersonation: Vec<HeaderName> = (parts.headers.keys())
        .filter(|k| k.as_str().starts_with("impersonate-"))
        .cloned()
        .collect();
    for k in impersonation {
        parts.headers.remove(k);
    }
    let user = crate::auth::context::user();
    set_identity(
        &mut parts.headers,
        &user.name,
        &user.uid,
        &user.groups,
        &user.extra,
    );
    parts.extensions = Default::default();
    let deadline = deadline(&parts.uri);
    let sent = client.send(Request::from_parts(parts, body));
    let answer = match deadline {
        None => sent.await,
        Some(d) => match tokio::time::timeout(d, sent).await {
            Ok(answer) => answer,
            // kube-apiserver's timeout filter: the extension server took too long.
            Err(_) => return ApiError::timeout(crate::api::status::DEADLINE, 0).into_response(),
        },
    };
    match answer {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, Body::new(body))
        }
        Err(e) => proxy_error(StatusCode::SERVICE_UNAVAILABLE, &e),
    }
}

/// Go's `http.Error`: the text and a newline, as plain text.
fn proxy_error(code: StatusCode, text: &str) -> Response {
    (
        code,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        format!("{text}\n"),
    )
        .into_response()
}

/// Removes the hop-by-hop headers and those `Connection` names.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    for name in HOP_BY_HOP
        .iter()
        .copied()
        .chain(named.iter().map(String::as_str))
    {
        headers.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_headers_stay_behind() {
        let mut h = HeaderMap::new();
        h.insert("connection", "keep-alive, x-trace".parse().unwrap());
        h.insert("x-trace", "1".parse().unwrap());
        h.insert("keep-alive", "timeout=5".parse().unwrap());
        h.insert("accept", "application/json".parse().unwrap());
        strip_hop_by_hop(&mut h);
        assert_eq!(h.len(), 1);
        assert_eq!(h["accept"], "application/json");
    }

    #[test]
    fn a_watch_has_no_deadline_and_a_timeout_shortens_it() {
        let d = |u: &str| deadline(&u.parse().unwrap());
        assert_eq!(d("/apis/m.io/v1/x?watch=true"), None);
        assert_eq!(d("/apis/m.io/v1/watch/x"), None);
        assert_eq!(d("/apis/m.io/v1/x"), Some(REQUEST_TIMEOUT));
        assert_eq!(
            d("/apis/m.io/v1/x?timeout=2s"),
            Some(Duration::from_secs(2))
        );
        assert_eq!(d("/apis/m.io/v1/x?timeout=5m"), Some(REQUEST_TIMEOUT));
    }

    #[tokio::test]
    async fn an_unavailable_apiservice_is_answered_503_in_plain_text() {
        let obj = serde_json::json!({"metadata": {"name": "v1.m.io"}, "spec": {"group": "m.io", "version": "v1",
            "insecureSkipTLSVerify": true, "service": {"namespace": "default", "name": "m", "port": 1}}});
        let remote = Remote::of(&obj, None).unwrap();
        let r = serve(&remote, Request::new(Body::empty())).await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        let body = axum::body::to_bytes(r.into_body(), 100).await.unwrap();
        assert_eq!(&body[..], b"service unavailable\n");
    }
}
