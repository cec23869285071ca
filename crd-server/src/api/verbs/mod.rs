//! The verbs, the same for every kind: the request's kind is found in the registry and
//! each verb runs through the kind's strategy ([`crate::api::kinds`]) and the shared
//! write path ([`crate::api::write`]).

mod apply;
mod create;
pub mod delete;
mod paging;
mod patch;
mod pods;
mod read;
mod scale;
mod token_request;
mod update;
mod watch;

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::Value;

use crate::api::kinds::{Resource, Subresource};
use crate::api::request::{ResourceRequest, Verb, WriteOptions};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage::Target;
use crate::api::write::{Tracking, Update};

/// An answer with the warnings to send as `Warning` headers.
pub struct Reply {
    pub code: StatusCode,
    pub body: Value,
    /// `body`'s JSON when it is already written (a kept answer): sent as it is.
    pub json: Option<Bytes>,
    pub warnings: Vec<String>,
}

impl Reply {
    fn ok(body: Value) -> Reply {
        Reply::new(StatusCode::OK, body, Vec::new())
    }

    fn new(code: StatusCode, body: Value, warnings: Vec<String>) -> Reply {
        Reply {
            code,
            body,
            json: None,
            warnings,
        }
    }

    /// The answer of a write: its object, or the JSON already written for it.
    fn written(code: StatusCode, w: crate::api::write::Written) -> Reply {
        Reply {
            code,
            body: w.obj,
            json: w.json,
            warnings: w.warnings,
        }
    }
}

/// A JSON response with `Warning: 299 - "..."` headers.
pub fn json_response(code: StatusCode, body: &Value, warnings: &[String]) -> Response {
    let bytes = Bytes::from(serde_json::to_vec(body).unwrap_or_default());
    raw_json_response(code, bytes, warnings)
}

/// [`json_response`] with the JSON already written.
fn raw_json_response(code: StatusCode, bytes: Bytes, warnings: &[String]) -> Response {
    let mut resp = (
        code,
        [(http::header::CONTENT_TYPE, "application/json")],
        bytes,
    )
        .into_response();
    crate::api::status::add_warnings(&mut resp, warnings);
    resp
}

/// What a request addresses once its kind is found.
pub struct Scope<'a> {
    pub shared: &'a Arc<Shared>,
    pub res: Resource,
    pub req: &'a ResourceRequest,
    pub sub: Subresource,
}

impl Scope<'_> {
    /// An update of the named object through this endpoint, recorded for the request's
    /// field manager.
    fn update<'a>(&'a self, opts: &'a WriteOptions) -> Update<'a> {
        Update {
            shared: self.shared,
            target: self.target(),
            sub: self.sub,
            opts,
            tracking: Tracking::Update(&opts.manager),
        }
    }

    fn ns(&self) -> Option<&str> {
        self.req.info.namespace.as_deref()
    }

    /// The named object (verbs that take a name only).
    fn target(&self) -> Target<'_> {
        Target {
            res: &self.res,
            ns: self.ns(),
            name: self.req.info.name.as_deref().unwrap_or(""),
        }
    }
}

/// Which verbs each endpoint takes (beyond these the server answers 405).
fn allowed(sub: Subresource, verb: Verb) -> bool {
    match sub {
        Subresource::Main => true,
        Subresource::Status | Subresource::Scale => {
            matches!(verb, Verb::Get | Verb::Update | Verb::Patch)
        }
        Subresource::Finalize => verb == Verb::Update,
        Subresource::EphemeralContainers | Subresource::Resize => {
            matches!(verb, Verb::Get | Verb::Update | Verb::Patch)
        }
        Subresource::Log => verb == Verb::Get,
        Subresource::Exec | Subresource::Attach | Subresource::PortForward => {
            matches!(verb, Verb::Get | Verb::Create)
        }
        Subresource::Binding | Subresource::Eviction | Subresource::Token => verb == Verb::Create,
        Subresource::Proxy => !matches!(verb, Verb::List | Verb::Watch | Verb::DeleteCollection),
    }
}

/// Serves a resource request.
pub async fn serve(
    shared: &Arc<Shared>,
    req: ResourceRequest,
    body: Body,
) -> Result<Response, ApiError> {
    let info = &req.info;
    let res = shared
        .registry
        .resolve(&info.group, &info.version, &info.resource)
        .ok_or_else(ApiError::no_route)?;
    let kind = res.info();
    // A namespaced path needs a namespaced kind; a named object of a namespaced kind
    // needs its namespace.
    if (info.namespace.is_some() && !kind.namespaced)
        || (info.namespace.is_none() && kind.namespaced && info.name.is_some())
    {
        return Err(ApiError::no_route());
    }
    let sub = Subresource::parse(info.subresource.as_deref())
        .filter(|s| *s == Subresource::Main || kind.subresources.contains(s))
        .ok_or_else(ApiError::no_route)?;
    if !allowed(sub, info.verb)
        || (sub == Subresource::Main && !kind.verbs.contains(&info.verb.as_str()))
    {
        return Err(ApiError::method_not_allowed_here());
    }
    let warning = kind.warning.clone();
    let scope = Scope {
        shared,
        res: res.clone(),
        req: &req,
        sub,
    };
    let reply = match (info.verb, sub) {
        (_, Subresource::Log | Subresource::Exec | Subresource::Attach)
        | (_, Subresource::PortForward | Subresource::Proxy) => {
            return Box::pin(pods::connect(&scope)).await;
        }
        (Verb::Create, Subresource::Binding) => Box::pin(pods::bind(&scope, body)).await?,
        (Verb::Create, Subresource::Eviction) => Box::pin(pods::evict(&scope, body)).await?,
        (Verb::Create, Subresource::Token) => Box::pin(token_request::create(&scope, body)).await?,
        (Verb::Watch, _) => return Box::pin(watch::watch(&scope)).await,
        (Verb::List, _) => Box::pin(read::list(&scope)).await?,
        (Verb::Get, Subresource::Scale) => Box::pin(scale::get(&scope)).await?,
        // The one verb served inline: a GET's future is small, and the commonest.
        (Verb::Get, _) => read::get(&scope).await?,
        (Verb::Create, _) => Box::pin(create::create(&scope, body)).await?,
        (Verb::Update, Subresource::Scale) => Box::pin(scale::update(&scope, body)).await?,
        (Verb::Update, _) => Box::pin(update::update(&scope, body)).await?,
        (Verb::Patch, Subresource::Scale) => Box::pin(scale::patch(&scope, body)).await?,
        (Verb::Patch, _) => Box::pin(patch::patch(&scope, body)).await?,
        (Verb::Delete, _) => Box::pin(delete::delete_one(&scope, body)).await?,
        (Verb::DeleteCollection, _) => Box::pin(delete::delete_collection(&scope, body)).await?,
    };
    let mut warnings: Vec<String> = warning.into_iter().collect();
    warnings.extend(reply.warnings);
    Ok(match reply.json {
        Some(json) => raw_json_response(reply.code, json, &warnings),
        None => json_response(reply.code, &reply.body, &warnings),
    })
}
