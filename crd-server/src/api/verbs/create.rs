//! POST: create an object from a JSON or YAML body (protobuf for the kinds kubectl
//! sends that way).

use axum::body::Body;

use super::{Reply, Scope};
use crate::api::request::BodyType;
use crate::api::request::media::{parse_object_body, read_body};
use crate::api::status::ApiError;
use crate::api::write::{self, Tracking};

const ACCEPTED: &str = "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml";

/// Creates the object in the body.
pub async fn create(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    scope.res.check_post_create()?;
    let ty = scope.req.body_type()?;
    let mut opts = scope.req.write_options()?;
    let bytes = read_body(&scope.req.headers, body).await?;
    if ty == BodyType::Protobuf {
        // A protobuf body has no unknown JSON fields to report (Go's decoder skips unknown
        // field numbers); what its JSON form holds beyond the schema, such as a nested
        // `creationTimestamp: null`, is Go's marshalling, not the client's.
        opts.validation = crate::api::request::FieldValidation::Ignore;
    }
    let mut obj = match ty {
        BodyType::Protobuf => scope
            .res
            .decode_protobuf(&bytes)
            .unwrap_or_else(|| Err(ApiError::unsupported_media_type(ACCEPTED)))?,
        BodyType::Json | BodyType::Yaml => {
            parse_object_body(&bytes, ty, "create", &scope.res.info().q.kind)?
        }
        _ => return Err(ApiError::unsupported_media_type(ACCEPTED)),
    };
    write::check_body(&scope.res, &mut obj, scope.ns(), None)?;
    // Reviews are answered, never stored.
    if scope.res.info().verbs == ["create"] {
        let q = &scope.res.info().q;
        if q.group == "authorization.k8s.io" {
            crate::api::kinds::builtin::authorization::reviews::prefetch(&q.plural, &obj).await;
        }
    }
    if scope.res.info().verbs == ["create"]
        && let Some(answer) = scope.res.answer_create(obj.clone())
    {
        return Ok(Reply::new(http::StatusCode::CREATED, answer?, Vec::new()));
    }
    let written = write::create(
        scope.shared,
        &scope.res,
        scope.ns(),
        obj,
        &opts,
        Tracking::Update(&opts.manager),
    )
    .await
    .map_err(|e| e.into_api())?;
    Ok(Reply::written(http::StatusCode::CREATED, written))
}
