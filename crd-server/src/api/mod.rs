//! The HTTP API: one handler that reads the path the way the API server's request-info
//! resolver does (`/api/v1/...`, `/apis/{group}/{version}/[namespaces/{ns}/]{resource}
//! [/{name}[/{subresource}]]`), then dispatches by verb.

pub mod apply;
pub mod conversion;
pub mod discovery;
pub mod fieldset;
pub mod jsonpath;
pub mod kinds;
pub mod objects;
pub mod openapi;
pub mod protobuf;
pub mod registry;
pub mod request;
pub mod resource;
pub mod selectors;
pub mod status;
pub mod table;
pub mod watch;

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::{Value, json};

use self::kinds::Endpoint;
use self::objects::Reply;
use self::registry::Registry;
use self::request::{BodyType, MAX_BODY, Query, Representation};
use self::resource::{Family, Resource};
use self::status::ApiError;
use crate::store::Store;

/// What every request handler shares.
pub struct Shared {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The served kinds.
    pub registry: Arc<Registry>,
    /// Bearer token required on every request but health checks (`None`: no auth).
    pub token: Option<String>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.registry.stop();
    }
}

/// Now, as the API server writes timestamps (RFC 3339, seconds).
pub fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The router: every path goes through [`handle`].
pub fn router(shared: Arc<Shared>) -> axum::Router {
    axum::Router::new().fallback(handle).with_state(shared)
}

fn json_response(code: StatusCode, body: &Value, warnings: &[String]) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    let mut resp = (
        code,
        [(http::header::CONTENT_TYPE, "application/json")],
        bytes,
    )
        .into_response();
    for w in warnings {
        let text = format!("299 - \"{}\"", w.replace('"', "\\\""));
        if let Ok(v) = HeaderValue::from_str(&text) {
            resp.headers_mut().append(http::header::WARNING, v);
        }
    }
    resp
}

fn text(body: &'static str) -> Response {
    (
        StatusCode::OK,
        [(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    match route(&shared, req).await {
        Ok(resp) => resp,
        Err(e) => e.into_response(),
    }
}

fn authorized(shared: &Shared, headers: &HeaderMap) -> bool {
    let Some(token) = &shared.token else {
        return true;
    };
    headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| constant_time_eq(t.trim().as_bytes(), token.as_bytes()))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn read_body(headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        return Err(ApiError::too_large());
    }
    axum::body::to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| ApiError::too_large())
}

async fn route(shared: &Arc<Shared>, req: Request) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_string();
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let health = matches!(segs.first(), Some(&("healthz" | "livez" | "readyz")));
    if !health && !authorized(shared, &parts.headers) {
        return Err(ApiError::unauthorized());
    }
    let method = parts.method.clone();
    let mut q = Query::parse(parts.uri.query())?;
    q.default_manager = parts
        .headers
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .and_then(|ua| ua.split('/').next())
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(String::from);
    let kinds = shared.registry.kinds();
    let get_only = |v: Value| -> Result<Response, ApiError> {
        if method != Method::GET && method != Method::HEAD {
            return Err(ApiError::method_not_allowed(
                "the server does not allow this method on the requested resource".to_string(),
            ));
        }
        Ok(json_response(StatusCode::OK, &v, &[]))
    };
    match segs.as_slice() {
        [] => {
            return get_only(
                json!({"paths": ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v2", "/openapi/v3", "/readyz", "/version"]}),
            );
        }
        ["healthz" | "livez" | "readyz", ..] => return Ok(text("ok")),
        ["version"] => return get_only(discovery::version()),
        ["api"] => {
            let host = parts
                .headers
                .get(http::header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("");
            return get_only(discovery::core_versions(host));
        }
        ["api", "v1"] => return get_only(discovery::core_resources()),
        ["apis"] => return get_only(discovery::group_list(&kinds)),
        ["apis", g] => {
            return get_only(discovery::group(&kinds, g).ok_or_else(ApiError::no_route)?);
        }
        ["apis", g, v] => {
            return get_only(
                discovery::resource_list(&kinds, g, v).ok_or_else(ApiError::no_route)?,
            );
        }
        ["openapi", "v2"] => return get_only(openapi::v2_document(&kinds)),
        ["openapi", "v3"] => return get_only(openapi::v3_index(&kinds)),
        ["openapi", "v3", rest @ ..] => {
            return get_only(
                openapi::v3_document(&kinds, &rest.join("/")).ok_or_else(ApiError::no_route)?,
            );
        }
        _ => {}
    }
    // Resource paths.
    let (group, version, rest) = match segs.as_slice() {
        ["api", "v1", rest @ ..] => ("", "v1", rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return Err(ApiError::no_route()),
    };
    let (watch_path, rest) = match rest {
        ["watch", rest @ ..] => (true, rest),
        _ => (false, rest),
    };
    let lookup = |plural: &str| -> Option<Resource> {
        match (group, version, plural) {
            ("", "v1", "namespaces") => Some(Resource::namespaces()),
            ("apiextensions.k8s.io", "v1", "customresourcedefinitions") => Some(Resource::crds()),
            _ => kinds
                .get(group, plural)
                .filter(|k| k.version(version).is_some())
                .map(|k| Resource::custom(k, version)),
        }
    };
    // [namespaces, ns, plural, name?, sub?] unless the resource is namespaces itself.
    let (res, ns, name, sub) = match rest {
        ["namespaces", ns, plural, tail @ ..]
            if !(group.is_empty()
                && matches!(tail, [])
                && matches!(*plural, "status" | "finalize")) =>
        {
            let res = lookup(plural)
                .filter(|r| r.namespaced)
                .ok_or_else(ApiError::no_route)?;
            match tail {
                [] => (res, Some(*ns), None, None),
                [name] => (res, Some(*ns), Some(*name), None),
                [name, sub] => (res, Some(*ns), Some(*name), Some(*sub)),
                _ => return Err(ApiError::no_route()),
            }
        }
        [plural, tail @ ..] => {
            let res = lookup(plural).ok_or_else(ApiError::no_route)?;
            match tail {
                [] => (res, None, None, None),
                [_] | [_, _] if res.namespaced => return Err(ApiError::no_route()),
                [name] => (res, None, Some(*name), None),
                [name, sub] => (res, None, Some(*name), Some(*sub)),
                _ => return Err(ApiError::no_route()),
            }
        }
        [] => return Err(ApiError::no_route()),
    };
    let ns = ns.map(str::to_string);
    let name = name.map(str::to_string);
    let scale = match sub {
        None => false,
        Some("status") if res.has_status() => false,
        Some("scale") if res.served().is_some_and(|v| v.scale.is_some()) => true,
        Some("finalize") if matches!(res.family, Family::Namespace) => false,
        Some(_) => return Err(ApiError::no_route()),
    };
    let endpoint = if sub == Some("status") {
        Endpoint::Status
    } else {
        Endpoint::Main
    };
    let warnings: Vec<String> = res
        .served()
        .and_then(|v| v.warning.clone())
        .into_iter()
        .collect();
    let with_warnings = |mut reply: Reply| {
        reply.warnings.splice(0..0, warnings.iter().cloned());
        reply
    };
    let respond = |reply: Reply| json_response(reply.code, &reply.body, &reply.warnings);
    let ns_ref = ns.as_deref();
    match (method.clone(), name.as_deref()) {
        (Method::GET, None) => {
            let repr = request::representation(&parts.headers)?;
            if q.watch || watch_path {
                return watch::watch(shared, res, ns, q, repr).await;
            }
            let listed = objects::list(shared, &res, ns_ref, &q).await?;
            let body = match repr {
                Representation::Json => objects::list_object(&res, listed),
                Representation::Table => {
                    let mut meta = json!({"resourceVersion": listed.revision.to_string()});
                    if let Some(c) = &listed.continue_token {
                        meta["continue"] = json!(c);
                    }
                    table::table(
                        &res.columns(),
                        &listed.items,
                        q.include_object.as_deref(),
                        meta,
                    )
                }
            };
            Ok(respond(with_warnings(Reply {
                code: StatusCode::OK,
                body,
                warnings: Vec::new(),
            })))
        }
        (Method::GET, Some(name)) => {
            let repr = request::representation(&parts.headers)?;
            let obj = objects::get(shared, &res, ns_ref, name).await?;
            let body = if scale {
                objects::scale_of(&res, &obj)?
            } else if repr == Representation::Table {
                let meta = json!({"resourceVersion": obj.pointer("/metadata/resourceVersion")});
                table::table(&res.columns(), &[obj], q.include_object.as_deref(), meta)
            } else {
                obj
            };
            Ok(respond(with_warnings(Reply {
                code: StatusCode::OK,
                body,
                warnings: Vec::new(),
            })))
        }
        (Method::POST, None) => {
            let ty = request::body_type(&parts.headers)?;
            let body = read_body(&parts.headers, body).await?;
            let obj = match ty {
                BodyType::Protobuf if matches!(res.family, Family::Namespace) => {
                    protobuf::namespace(&body)?
                }
                BodyType::Protobuf => {
                    return Err(ApiError::unsupported_media_type(
                        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
                    ));
                }
                _ => request::parse_body(&body, ty, "create")?,
            };
            Ok(respond(with_warnings(
                objects::create(shared, &res, ns_ref, obj, &q).await?,
            )))
        }
        (Method::PUT, Some(name)) => {
            let ty = request::body_type(&parts.headers)?;
            if !matches!(ty, BodyType::Json | BodyType::Yaml) {
                return Err(ApiError::unsupported_media_type(
                    "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
                ));
            }
            let body = read_body(&parts.headers, body).await?;
            let obj = request::parse_body(&body, ty, "update")?;
            let reply = if scale {
                objects::update_scale(shared, &res, ns_ref, name, |_| Ok(obj.clone()), &q).await?
            } else {
                objects::update(shared, &res, ns_ref, name, obj, endpoint, &q).await?
            };
            Ok(respond(with_warnings(reply)))
        }
        (Method::PATCH, Some(name)) => {
            let ty = request::body_type(&parts.headers)?;
            // Server-side apply: custom objects and their status.
            let apply = matches!(ty, BodyType::ApplyPatch)
                && matches!(res.family, resource::Family::Custom(_))
                && !scale;
            if !apply && !matches!(ty, BodyType::MergePatch | BodyType::JsonPatch) {
                return Err(ApiError::unsupported_media_type(
                    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                ));
            }
            let body = read_body(&parts.headers, body).await?;
            let reply = if scale {
                objects::update_scale(
                    shared,
                    &res,
                    ns_ref,
                    name,
                    |s| objects::apply_patch(s, &body, ty),
                    &q,
                )
                .await?
            } else {
                objects::patch(shared, &res, ns_ref, name, &body, ty, endpoint, &q).await?
            };
            Ok(respond(with_warnings(reply)))
        }
        (Method::DELETE, name) => {
            let body = read_body(&parts.headers, body).await?;
            let options: Value = if body.is_empty() {
                json!({})
            } else {
                serde_json::from_slice(&body).map_err(|e| {
                    ApiError::bad_request(format!("couldn't decode DeleteOptions: {e}"))
                })?
            };
            let reply = match name {
                Some(name) if sub.is_none() => {
                    objects::delete(shared, &res, ns_ref, name, &options, &q).await?
                }
                None => objects::delete_collection(shared, &res, ns_ref, &options, &q).await?,
                Some(_) => {
                    return Err(ApiError::method_not_allowed(
                        "the server does not allow this method on the requested resource",
                    ));
                }
            };
            Ok(respond(with_warnings(reply)))
        }
        _ => Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        )),
    }
}
