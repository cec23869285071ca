//! Objects put into a test server through its own router, as a client's requests would
//! be: every default, validation and admission step runs, nothing is written past them.

use std::time::{Duration, Instant};

use axum::body::Body;
use http::{Method, Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use crate::api::kinds::Resource;
use crate::server::RunningServer;

/// The field manager of the objects a [`TestServer`](super::TestServer) applies.
pub const FIELD_MANAGER: &str = "crd-server-test";

/// How long a custom object waits for its CRD to be served (the registry follows CRDs
/// in the background, as kube-apiserver's discovery does).
const KIND_WAIT: Duration = Duration::from_secs(10);

/// A request the test server refused, with the `Status` message it answered.
#[derive(Debug, thiserror::Error)]
#[error("{method} {path}: {code} {message}")]
pub struct RequestError {
    /// The request's method.
    pub method: String,
    /// The request's path and query.
    pub path: String,
    /// The HTTP status code (0 when the request could not be sent).
    pub code: u16,
    /// The `Status` message (or the body, when it is not a `Status`).
    pub message: String,
}

fn refused(method: &Method, path: &str, code: u16, message: impl Into<String>) -> RequestError {
    RequestError {
        method: method.to_string(),
        path: path.to_string(),
        code,
        message: message.into(),
    }
}

/// Sends one request in-process and answers its JSON body, or the error `Status`.
pub(crate) async fn send(
    server: &RunningServer,
    method: Method,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> Result<Value, RequestError> {
    let mut request = Request::builder()
        .method(method.clone())
        .uri(path)
        .header(http::header::CONTENT_TYPE, content_type)
        .header(http::header::ACCEPT, "application/json");
    if let Some(token) = &server.shared().token {
        request = request.header(http::header::AUTHORIZATION, format!("Bearer {token}"));
    }
    // The server's own request: its single user, whatever authenticates others.
    let request = request
        .extension(crate::auth::Internal)
        .body(Body::from(body))
        .map_err(|e| refused(&method, path, 0, e.to_string()))?;
    let response = server
        .router()
        .oneshot(request)
        .await
        .map_err(|e| refused(&method, path, 0, e.to_string()))?;
    let code = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .map_err(|e| refused(&method, path, code.as_u16(), e.to_string()))?;
    let value: Value =
        crd_runtime::__private::depth::from_json_slice(&bytes).unwrap_or(Value::Null);
    if code.is_success() {
        return Ok(value);
    }
    let message = match value.get("message").and_then(Value::as_str) {
        Some(m) => m.to_string(),
        None => String::from_utf8_lossy(&bytes).into_owned(),
    };
    Err(refused(&method, path, code.as_u16(), message))
}

/// Server-side applies every object of `docs` (YAML or JSON, several documents),
/// CustomResourceDefinitions first, then Namespaces, then the rest in order; a custom
/// object waits for its CRD to be served. Answers the objects as stored.
pub(crate) async fn apply_all(
    server: &RunningServer,
    docs: Vec<Value>,
) -> Result<Vec<Value>, RequestError> {
    let rank = |o: &Value| match o.get("kind").and_then(Value::as_str) {
        Some("CustomResourceDefinition") => 0,
        Some("Namespace") => 1,
        _ => 2,
    };
    let mut docs: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
    docs.sort_by_key(rank);
    let mut stored = Vec::with_capacity(docs.len());
    for doc in &docs {
        stored.push(apply(server, doc).await?);
    }
    Ok(stored)
}

/// Server-side applies one object (forcing conflicts, as a test's fixture owns it).
pub(crate) async fn apply(server: &RunningServer, obj: &Value) -> Result<Value, RequestError> {
    let method = Method::PATCH;
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let meta = obj.get("metadata");
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if api_version.is_empty() || kind.is_empty() || name.is_empty() {
        return Err(refused(
            &method,
            "",
            StatusCode::BAD_REQUEST.as_u16(),
            "an object to apply needs apiVersion, kind and metadata.name",
        ));
    }
    let resource = served(server, api_version, kind).await.ok_or_else(|| {
        refused(
            &method,
            "",
            StatusCode::NOT_FOUND.as_u16(),
            format!("no kind \"{kind}\" is registered for version \"{api_version}\""),
        )
    })?;
    let info = resource.info();
    let namespace = info.namespaced.then(|| {
        meta.and_then(|m| m.get("namespace"))
            .and_then(Value::as_str)
            .unwrap_or("default")
    });
    let path = format!(
        "{}?fieldManager={FIELD_MANAGER}&force=true",
        object_path(api_version, &info.q.plural, namespace, name)
    );
    let body = serde_json::to_vec(obj).unwrap_or_default();
    let applied = send(server, method, &path, "application/apply-patch+yaml", body).await?;
    if kind == "CustomResourceDefinition" && api_version.starts_with("apiextensions.k8s.io/") {
        wait_served(server, &applied).await;
    }
    Ok(applied)
}

/// `/api/v1/namespaces/NS/PLURAL/NAME` or `/apis/GROUP/VERSION/...`.
pub(crate) fn object_path(
    api_version: &str,
    plural: &str,
    namespace: Option<&str>,
    name: &str,
) -> String {
    let root = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    match namespace {
        Some(ns) => format!("{root}/namespaces/{ns}/{plural}/{name}"),
        None => format!("{root}/{plural}/{name}"),
    }
}

/// The served kind of `apiVersion`/`kind`, waiting a bounded time for custom kinds.
async fn served(server: &RunningServer, api_version: &str, kind: &str) -> Option<Resource> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let deadline = Instant::now() + KIND_WAIT;
    loop {
        let found = server.shared().registry.resources().into_iter().find(|r| {
            let info = r.info();
            info.q.group == group && info.version == version && info.q.kind == kind
        });
        if found.is_some() || Instant::now() >= deadline {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits (bounded) until every served version of an applied CRD is served.
async fn wait_served(server: &RunningServer, crd: &Value) {
    let group = crd.pointer("/spec/group").and_then(Value::as_str);
    let kind = crd.pointer("/spec/names/kind").and_then(Value::as_str);
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array);
    let (Some(group), Some(kind), Some(versions)) = (group, kind, versions) else {
        return;
    };
    for v in versions {
        if v.get("served") == Some(&Value::Bool(false)) {
            continue;
        }
        if let Some(name) = v.get("name").and_then(Value::as_str) {
            served(server, &format!("{group}/{name}"), kind).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::object_path;

    #[test]
    fn paths_of_core_and_group_kinds() {
        assert_eq!(
            object_path("v1", "configmaps", Some("a"), "x"),
            "/api/v1/namespaces/a/configmaps/x"
        );
        assert_eq!(
            object_path("apps/v1", "deployments", Some("a"), "x"),
            "/apis/apps/v1/namespaces/a/deployments/x"
        );
        assert_eq!(
            object_path("rbac.authorization.k8s.io/v1", "clusterroles", None, "x"),
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/x"
        );
    }
}
