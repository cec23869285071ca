//! The HTTP API, shaped like kube-apiserver: a route table for the fixed paths
//! (discovery, OpenAPI, health, version), and one handler for resource paths that
//! parses the request once ([`request`]), finds the kind in the [`registry`] and runs
//! the verb ([`verbs`]) through the kind's strategy ([`kinds`]) and the shared write
//! path ([`write`]) over the generic storage ([`storage`]).

pub mod admission;
pub mod aggregator;
pub mod auth_filter;
pub mod conversion;
pub mod discovery;
pub mod inflight;
pub mod inject;
pub mod kinds;
pub mod object;
pub mod oidc;
pub mod openapi;
pub mod patch;
pub mod priority;
pub mod protobuf;
pub mod read_cache;
pub mod registry;
pub mod request;
pub mod selectors;
pub mod ssa;
pub mod state;
pub mod status;
pub mod storage;
pub mod stored;
pub mod table;
pub mod verbs;
pub mod write;

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};
use http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use self::discovery::aggregated::Root;
use self::request::{Query, RequestInfo, ResourceRequest};
use self::state::Shared;
use self::status::ApiError;

type Api = State<Arc<Shared>>;

/// The router: fixed paths by the route table; every other path is read as a
/// resource path ([`RequestInfo::parse`]) and served by [`verbs::serve`] — as the
/// fallback, so the hot path pays for no URL parameters. Everything but the health
/// checks goes through authentication, impersonation, authorization and audit
/// ([`auth_filter`]).
pub fn router(shared: Arc<Shared>) -> axum::Router {
    let health = axum::Router::new()
        .route("/healthz", get(ok))
        .route("/livez", get(ok))
        .route("/readyz", get(ok))
        .route("/healthz/{*check}", get(ok))
        .route("/livez/{*check}", get(ok))
        .route("/readyz/{*check}", get(ok));
    let api = axum::Router::new()
        .route("/", read_only(root))
        .route("/version", read_only(version))
        .route("/api", read_only(core_versions))
        // kube-apiserver answers the roots with a trailing slash too (the official
        // Python client asks for `/apis/`).
        .route("/api/", read_only(core_versions))
        .route("/apis/", read_only(groups))
        .route("/api/v1", read_only(core_resources))
        .route("/apis", read_only(groups))
        .route("/apis/{group}", read_only(group))
        .route("/apis/{group}/{version}", read_only(resource_list))
        .route("/openapi/v2", read_only(openapi_v2))
        .route("/openapi/v3", read_only(openapi_v3_index))
        .route("/openapi/v3/{*gv}", read_only(openapi_v3))
        .route(oidc::DISCOVERY_PATH, read_only(oidc::discovery))
        .route(oidc::JWKS_PATH, read_only(oidc::jwks));
    let filter = middleware::from_fn_with_state(shared.clone(), auth_filter::filter);
    health
        .merge(api.route_layer(filter))
        .fallback(resource)
        .with_state(shared)
}

/// A GET-only route whose other methods get the server's 405 `Status`.
fn read_only<H, T>(handler: H) -> MethodRouter<Arc<Shared>>
where
    H: axum::handler::Handler<T, Arc<Shared>>,
    T: 'static,
{
    get(handler).fallback(method_not_allowed)
}

async fn ok() -> Response {
    (
        StatusCode::OK,
        [(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "ok",
    )
        .into_response()
}

async fn method_not_allowed() -> Response {
    ApiError::method_not_allowed_here().into_response()
}

fn json(v: Value) -> Response {
    verbs::json_response(StatusCode::OK, &v, &[])
}

fn found(v: Option<Value>) -> Response {
    match v {
        Some(v) => json(v),
        None => ApiError::no_route().into_response(),
    }
}

async fn root() -> Response {
    json(
        json!({"paths": ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v2", "/openapi/v3", "/readyz", "/version"]}),
    )
}

async fn version(State(shared): Api) -> Response {
    json(discovery::version(shared.registry.kube_version()))
}

async fn core_versions(State(shared): Api, headers: HeaderMap) -> Response {
    let host = headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let ext = shared.aggregator.extensions();
    discovery::roots::serve(&shared.registry, &ext, &headers, Root::Core, || {
        discovery::core_versions(host)
    })
}

async fn core_resources(State(shared): Api) -> Response {
    found(discovery::resource_list(&shared.registry, "", "v1"))
}

async fn groups(State(shared): Api, headers: HeaderMap) -> Response {
    let ext = shared.aggregator.extensions();
    discovery::roots::serve(&shared.registry, &ext, &headers, Root::Groups, || {
        discovery::group_list(&shared.registry, &ext)
    })
}

async fn group(State(shared): Api, Path(group): Path<String>) -> Response {
    let ext = shared.aggregator.extensions();
    found(discovery::group(&shared.registry, &ext, &group))
}

/// `/apis/{group}/{version}`: the registry's, or the extension server's (proxied).
async fn resource_list(
    State(shared): Api,
    Path((group, version)): Path<(String, String)>,
    req: Request,
) -> Response {
    if let Some(remote) = shared.aggregator.table().get(&group, &version).cloned() {
        return aggregator::proxy::serve(&remote, req).await;
    }
    found(discovery::resource_list(&shared.registry, &group, &version))
}

async fn openapi_v2(State(shared): Api) -> Response {
    let mut doc = openapi::v2_document(&shared.registry);
    let docs: Vec<_> = (shared.aggregator.all_documents().into_iter())
        .map(|(_, d)| d)
        .collect();
    aggregator::documents::merge_v2(&mut doc, &docs);
    json(doc)
}

async fn openapi_v3_index(State(shared): Api) -> Response {
    let mut index = openapi::v3_index(&shared.registry);
    for (remote, docs) in shared.aggregator.all_documents() {
        let (Some(doc), Some(paths)) = (&docs.openapi_v3, index["paths"].as_object_mut()) else {
            continue;
        };
        let gv = format!("apis/{}/{}", remote.group, remote.version);
        let url = format!(
            "/openapi/v3/{gv}?hash={}",
            aggregator::documents::hash_of(doc)
        );
        paths.insert(gv, json!({"serverRelativeURL": url}));
    }
    json(index)
}

async fn openapi_v3(State(shared): Api, Path(gv): Path<String>) -> Response {
    let remote = gv
        .strip_prefix("apis/")
        .and_then(|rest| rest.split_once('/'))
        .and_then(|(g, v)| shared.aggregator.table().get(g, v).cloned());
    if let Some(remote) = remote {
        let doc = shared.aggregator.documents(&remote);
        return found(doc.and_then(|d| d.openapi_v3.clone()));
    }
    found(openapi::v3_document(&shared.registry, &gv))
}

/// A request for a remote APIService: proxied, unless a fault rule matches it (its
/// resource named as for any resource request) — so an operator's test can make an
/// aggregated API fail as it makes a built-in one fail. Boxed: rare, and its future
/// would make every request's larger.
async fn serve_proxied(
    shared: &Arc<Shared>,
    remote: &aggregator::remote::Remote,
    req: Request,
) -> Response {
    if !shared.faults.is_active() {
        return aggregator::proxy::serve(remote, req).await;
    }
    let (parts, body) = req.into_parts();
    // A query this server would refuse may be the extension server's own: no fault.
    let parsed = Query::parse(parts.uri.query()).and_then(|query| {
        let info = RequestInfo::parse(&parts.method, parts.uri.path(), query.watch)?;
        Ok((info, query))
    });
    let fault = parsed.ok().and_then(|(info, query)| {
        let caller = crate::auth::context::caller();
        let user = caller.as_ref().map(|c| c.user.name.as_str());
        let fault = shared.faults.decide(&inject::fault_request(&info, user))?;
        Some((fault, info, query))
    });
    let (method, path) = (parts.method.clone(), parts.uri.path().to_string());
    let headers = parts.headers.clone();
    let req = Request::from_parts(parts, body);
    let Some((fault, info, query)) = fault else {
        return aggregator::proxy::serve(remote, req).await;
    };
    let parsed = ResourceRequest {
        info,
        query,
        headers,
    };
    let serve = |_| async { Ok(aggregator::proxy::serve(remote, req).await) };
    inject::serve(shared, fault, &method, &path, parsed, serve)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// Every other path: a resource path parsed once and served by its verb, or the
/// server's 404 — behind the filter (nothing is told unasked).
async fn resource(State(shared): Api, req: Request) -> Response {
    auth_filter::guard(&shared, req, |req| serve_resource(&shared, req)).await
}

async fn serve_resource(shared: &Arc<Shared>, req: Request) -> Response {
    if let Some(remote) = shared.aggregator.route(req.uri().path()) {
        return Box::pin(serve_proxied(shared, &remote, req)).await;
    }
    let (parts, body) = req.into_parts();
    let parsed = Query::parse(parts.uri.query()).and_then(|query| {
        let info = RequestInfo::parse(&parts.method, parts.uri.path(), query.watch)?;
        Ok(ResourceRequest {
            info,
            query,
            headers: parts.headers,
        })
    });
    let result = match parsed {
        Ok(req) => {
            // What a fault rule's `user` key matches: the caller the filter authorized.
            let caller = crate::auth::context::caller();
            let user = caller.as_ref().map(|c| c.user.name.as_str());
            match shared
                .faults
                .decide(&inject::fault_request(&req.info, user))
            {
                None => verbs::serve(shared, req, body).await,
                Some(fault) => {
                    let (method, path) = (&parts.method, parts.uri.path());
                    let serve = |req| verbs::serve(shared, req, body);
                    // Boxed: a faulted request is rare, and inline its future would
                    // make every request's larger.
                    Box::pin(inject::serve(shared, fault, method, path, req, serve)).await
                }
            }
        }
        Err(e) => Err(e),
    };
    result.unwrap_or_else(IntoResponse::into_response)
}
