//! The filter in front of every API path but the health checks, in kube-apiserver's
//! order: authentication (401 `Unauthorized`), audit, impersonation, authorization
//! (403 with the authorizer's `Status`), then the handler, run as the caller
//! ([`crate::auth::context`]). What the authorizer sees of a request is read from its path
//! as kube-apiserver's `RequestInfoFactory` reads it ([`attributes_of`]).

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use crd_runtime::rbac::{Attributes, UserInfo};
use futures::StreamExt;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::api::request::RequestInfo;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::auth::audit::{Draft, Level, Stage};
use crate::auth::context::{self, Caller};
use crate::auth::x509::ClientCertificate;
use crate::auth::{Auth, Decision, impersonate};

/// The largest request body recorded in an audit event (the server's own limit).
const AUDIT_BODY_LIMIT: usize = 3 * 1024 * 1024;

/// Paths served to everyone, before authentication (health checks).
fn is_health(path: &str) -> bool {
    ["/healthz", "/livez", "/readyz"]
        .iter()
        .any(|p| path == *p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
}

/// `%XX` and `+` decoded, as a query parameter's value is.
fn query_unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(b) => {
                    out.push(b);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn query_values<'a>(query: &'a str, key: &'a str) -> impl Iterator<Item = String> + 'a {
    query.split('&').filter_map(move |pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (query_unescape(k) == key).then(|| query_unescape(v))
    })
}

/// The authorizer's attributes of a request (`user` set by the caller).
pub fn attributes_of(method: &Method, path: &str, query: Option<&str>) -> Attributes {
    let query = query.unwrap_or("");
    let watch = query_values(query, "watch")
        .last()
        .is_some_and(|v| matches!(v.as_str(), "true" | "1" | "True" | "TRUE" | "t" | "T"));
    let api_path = path.starts_with("/api/") || path.starts_with("/apis/");
    // `/apis/{group}/{version}` and shorter are discovery, not resources.
    let deep_enough = path.split('/').filter(|s| !s.is_empty()).count()
        >= if path.starts_with("/apis/") { 4 } else { 3 };
    let info = (api_path && deep_enough)
        .then(|| RequestInfo::parse(method, path, watch).ok())
        .flatten();
    let Some(info) = info else {
        return Attributes {
            verb: method.as_str().to_lowercase(),
            path: path.to_string(),
            ..Attributes::default()
        };
    };
    let mut name = info.name.clone().unwrap_or_default();
    let verb = info.verb.as_str();
    if name.is_empty() && (verb == "list" || verb == "watch") {
        // A list or watch of one object by name is authorized for that name.
        for selector in query_values(query, "fieldSelector") {
            for term in selector.split(',') {
                if let Some(v) = term
                    .strip_prefix("metadata.name==")
                    .or_else(|| term.strip_prefix("metadata.name="))
                {
                    name = v.to_string();
                }
            }
        }
    }
    let mut namespace = info.namespace.clone().unwrap_or_default();
    if namespace.is_empty() && info.group.is_empty() && info.resource == "namespaces" {
        // `namespaces/{name}` is in the namespace it names.
        namespace = info.name.clone().unwrap_or_default();
    }
    Attributes {
        verb: verb.to_string(),
        namespace,
        api_group: info.group.clone(),
        api_version: info.version.clone(),
        resource: info.resource.clone(),
        subresource: info.subresource.clone().unwrap_or_default(),
        name,
        path: path.to_string(),
        resource_request: true,
        ..Attributes::default()
    }
}

/// The path and query of a request, as audit records and errors print it.
fn request_uri(uri: &http::Uri) -> String {
    uri.path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default()
}

/// The 403 of a refused request.
pub fn forbidden(attrs: &Attributes, reason: &str) -> ApiError {
    let message = attrs.forbidden_message();
    let why = if reason.is_empty() {
        message
    } else {
        format!("{message}: {reason}")
    };
    ApiError::forbidden_request(&attrs.api_group, &attrs.resource, &attrs.name, &why)
}

fn audit_message(parts: &http::request::Parts) -> String {
    let mut methods = Vec::new();
    let bearer = parts
        .headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().split_once(' '))
        .is_some_and(|(s, _)| s.eq_ignore_ascii_case("bearer"));
    if bearer {
        methods.push("bearer");
    }
    let cert = parts
        .extensions
        .get::<ClientCertificate>()
        .is_some_and(|c| c.user.is_some() || c.proxy.is_some());
    if cert {
        methods.push("x509");
    }
    if methods.is_empty() {
        "Authentication failed, no credentials provided".into()
    } else {
        format!("Authentication failed, attempted: {}", methods.join(", "))
    }
}

/// The filter as axum middleware, in front of the fixed routes (discovery, OpenAPI).
pub async fn filter(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    guard(&shared, req, |req| next.run(req)).await
}

/// The filter around `next`: the resource paths call it themselves, so their hot path
/// pays for no middleware (no boxed route or future per request).
pub async fn guard<F, Fut>(shared: &Arc<Shared>, req: Request, next: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    if is_health(req.uri().path()) {
        return next(req).await;
    }
    let auth: &Auth = &shared.auth;
    let (mut parts, body) = req.into_parts();
    let cert = parts.extensions.get::<ClientCertificate>().cloned();
    // The request URI and its time of receipt are read only by audit records (and the
    // impersonation error): not taken on the hot path.
    let audited = auth.audit.is_on();
    let received = if audited {
        Utc::now()
    } else {
        DateTime::<Utc>::MIN_UTC
    };
    let uri = if audited {
        request_uri(&parts.uri)
    } else {
        String::new()
    };
    // With every request allowed and nothing audited, no one reads the request's
    // attributes: the hot path skips parsing them.
    let allow_all = auth.authz.always_allows() && !audited;
    let mut attrs = if allow_all {
        Attributes::default()
    } else {
        attributes_of(&parts.method, parts.uri.path(), parts.uri.query())
    };
    let draft = |user: UserInfo, attrs: &Attributes, level: Level, omit: Vec<Stage>| Draft {
        level,
        omit,
        id: uuid::Uuid::new_v4().to_string(),
        uri: uri.clone(),
        verb: attrs.verb.clone(),
        user,
        impersonated: None,
        source_ip: parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip().to_string())
            .or_else(|| Some("127.0.0.1".to_string())),
        user_agent: parts
            .headers
            .get(http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        attrs: attrs.clone(),
        received,
        annotations: serde_json::Map::new(),
        request_object: None,
    };
    let user = if parts.extensions.get::<crate::auth::Internal>().is_some() {
        Some(Cow::Borrowed(crate::auth::admin_user()))
    } else {
        auth.authn.authenticate(&parts.headers, cert.as_ref()).await
    };
    let Some(user) = user else {
        if audited {
            let (level, omit) = auth.audit.level_of(&attrs);
            if level > Level::None && !omit.contains(&Stage::ResponseStarted) {
                let d = draft(UserInfo::default(), &attrs, level, omit);
                let status = json!({"kind": "Status", "status": "Failure", "message": audit_message(&parts), "reason": "Unauthorized"});
                auth.audit
                    .emit(d.event(Stage::ResponseStarted, Some((401, Some(&status)))));
            }
        }
        return ApiError::unauthorized().into_response();
    };
    // Who the request is: in `attrs` when something reads them, else lent (`Some`) —
    // the single user of a server that authenticates nobody is never copied.
    let mut lent = None;
    if allow_all && !audited {
        lent = Some(user);
    } else {
        attrs.user = user.into_owned();
    }
    let mut audit = if audited {
        let (level, omit) = auth.audit.level_of(&attrs);
        (level > Level::None).then(|| draft(attrs.user.clone(), &attrs, level, omit))
    } else {
        None
    };
    if let Some(d) = &audit
        && !d.omit.contains(&Stage::RequestReceived)
    {
        auth.audit.emit(d.event(Stage::RequestReceived, None));
    }
    let finish = |audit: &Option<Draft>, code: StatusCode, body: Option<&Value>| {
        if let Some(d) = audit
            && !d.omit.contains(&Stage::ResponseComplete)
        {
            auth.audit
                .emit(d.event(Stage::ResponseComplete, Some((code.as_u16(), body))));
        }
    };
    // Impersonation.
    match impersonate::requested(&parts.headers, lent.as_deref().unwrap_or(&attrs.user)) {
        Err(e) => {
            let text = format!("Internal Server Error: {:?}: {e}", request_uri(&parts.uri));
            finish(&audit, StatusCode::INTERNAL_SERVER_ERROR, None);
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                [(http::header::CONTENT_TYPE, "text/plain")],
                text,
            )
                .into_response();
        }
        Ok(Some(requested)) => {
            for check in &requested.checks {
                let (decision, reason) = auth.authz.authorize_fresh(check).await;
                if decision != Decision::Allow {
                    let err = forbidden(check, &reason);
                    finish(&audit, err.code, Some(&err.to_status()));
                    return err.into_response();
                }
            }
            let names: Vec<_> = parts
                .headers
                .keys()
                .filter(|k| impersonate::is_impersonation_header(k.as_str()))
                .cloned()
                .collect();
            for name in names {
                parts.headers.remove(name);
            }
            if let Some(d) = &mut audit {
                d.impersonated = Some(requested.user.clone());
            }
            lent = None;
            attrs.user = requested.user;
        }
        Ok(None) => {}
    }
    // Max in flight, where kube-apiserver's chain counts: after impersonation.
    let _slot = match shared.inflight.admit(&parts.method, &parts.uri) {
        Ok(slot) => slot,
        Err(too_many) => {
            finish(&audit, StatusCode::TOO_MANY_REQUESTS, None);
            return too_many;
        }
    };
    // Authorization. A review answers with the policy as written before it.
    let (decision, reason, errors) = if allow_all {
        (Decision::Allow, String::new(), Vec::new())
    } else {
        if attrs.verb == "create"
            && (attrs.api_group == "authorization.k8s.io"
                || attrs.api_group == "authentication.k8s.io")
        {
            auth.authz.refresh().await;
        }
        let outcome = auth.authz.decide(&attrs).await;
        (outcome.decision, outcome.reason, outcome.errors)
    };
    if let Some(d) = &mut audit {
        d.note_authorization(decision.annotation(), &reason);
    }
    if decision != Decision::Allow {
        // An authorizer that could not decide (the webhook unreachable) and no allow:
        // kube-apiserver's filter answers the error, not a refusal.
        let err = if errors.is_empty() {
            forbidden(&attrs, &reason)
        } else if errors.len() == 1 {
            ApiError::internal_error(&errors[0])
        } else {
            ApiError::internal_error(&format!("[{}]", errors.join(", ")))
        };
        finish(&audit, err.code, Some(&err.to_status()));
        return err.into_response();
    }
    // The request body, when the level records it.
    let body = match &mut audit {
        Some(d) if d.level >= Level::Request && parts.method != Method::GET => {
            match axum::body::to_bytes(body, AUDIT_BODY_LIMIT).await {
                Ok(bytes) => {
                    d.request_object =
                        crd_runtime::__private::depth::from_json_slice::<Value>(&bytes).ok();
                    Body::from(bytes)
                }
                Err(_) => return ApiError::too_large().into_response(),
            }
        }
        _ => body,
    };
    let caller = |user| {
        Arc::new(Caller {
            user,
            authorizer: auth.authz.clone(),
        })
    };
    let caller = match lent {
        Some(Cow::Borrowed(u)) if std::ptr::eq(u, crate::auth::admin_user()) => {
            auth.admin_caller.clone()
        }
        Some(user) => caller(user.into_owned()),
        // Without an audit record to finish, the user moves to the caller.
        None if audit.is_none() => caller(std::mem::take(&mut attrs.user)),
        None => caller(attrs.user.clone()),
    };
    let req = Request::from_parts(parts, body);
    let response = context::scope(caller, next(req)).await;
    let Some(d) = audit else {
        return response;
    };
    let code = response.status();
    let streaming = attrs.verb == "watch" && code.is_success();
    if streaming {
        if !d.omit.contains(&Stage::ResponseStarted) {
            shared
                .auth
                .audit
                .emit(d.event(Stage::ResponseStarted, Some((code.as_u16(), None))));
        }
        let (parts, body) = response.into_parts();
        let guard = Completion {
            shared: shared.clone(),
            draft: Some(d),
            code,
        };
        let stream = body.into_data_stream().map(move |chunk| {
            let _ = &guard;
            chunk
        });
        return Response::from_parts(parts, Body::from_stream(stream));
    }
    let keep_body = !code.is_success() || d.level >= Level::RequestResponse;
    if !keep_body {
        finish(&Some(d), code, None);
        return response;
    }
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => {
            let value: Option<Value> = crd_runtime::__private::depth::from_json_slice(&bytes).ok();
            finish(&Some(d), code, value.as_ref());
            Response::from_parts(parts, Body::from(bytes))
        }
        Err(e) => {
            finish(&Some(d), StatusCode::INTERNAL_SERVER_ERROR, None);
            ApiError::internal(format!("reading the response failed: {e}")).into_response()
        }
    }
}

/// Emits a streamed request's `ResponseComplete` when its body ends or is dropped.
struct Completion {
    shared: Arc<Shared>,
    draft: Option<Draft>,
    code: StatusCode,
}

impl Drop for Completion {
    fn drop(&mut self) {
        if let Some(d) = self.draft.take()
            && !d.omit.contains(&Stage::ResponseComplete)
        {
            self.shared
                .auth
                .audit
                .emit(d.event(Stage::ResponseComplete, Some((self.code.as_u16(), None))));
        }
    }
}

#[cfg(test)]
#[path = "auth_filter_tests.rs"]
mod tests;
