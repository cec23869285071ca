//! PUT: replace an object (or its status, or a namespace's finalizers) with the body,
//! its `resourceVersion` the precondition.

use axum::body::Body;

use super::{Reply, Scope};
use crate::api::request::BodyType;
use crate::api::request::media::{parse_object_body, read_body};
use crate::api::status::ApiError;
use crate::api::write::{self};

/// Replaces the object with the body.
pub async fn update(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let ty = scope.req.body_type()?;
    if !matches!(ty, BodyType::Json | BodyType::Yaml) {
        return Err(ApiError::unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
        ));
    }
    let opts = scope.req.write_options()?;
    let bytes = read_body(&scope.req.headers, body).await?;
    let mut obj = parse_object_body(&bytes, ty, "update", &scope.res.info().q.kind)?;
    // The body is checked before the object is read, as the server decodes it first.
    write::check_body(&scope.res, &mut obj, scope.ns(), Some(scope.target().name))?;
    let u = scope.update(&opts);
    let written = write::guaranteed_update(&u, None, |_| Ok(obj.clone())).await?;
    Ok(Reply::written(http::StatusCode::OK, written))
}
