//! DELETE of one object and of a collection, through the write path's delete
//! ([`crate::api::write::delete`]). A removed object is answered as its kind says: a
//! `Status` with `status: Success` for most, the object for some.

use axum::body::Body;
use serde_json::Value;

use super::read::list_objects;
use super::{Reply, Scope};
use crate::api::object::name_of;
use crate::api::request::media::read_body;
use crate::api::request::{DeleteOptions, Query};
use crate::api::status::ApiError;
use crate::api::storage::Target;
use crate::api::write::delete::{Deleted, delete};

/// DELETE of the named object.
pub async fn delete_one(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let bytes = read_body(&scope.req.headers, body).await?;
    let options = DeleteOptions::parse(&bytes, &scope.req.query)?;
    let deleted = delete(scope.shared, scope.target(), &options).await?;
    Ok(reply(deleted, &options))
}

/// The answer to a delete: what it removed, or the object waiting on its finalizers,
/// with 202 when `orphanDependents: false` asked for cascading deletion (as the server
/// does).
fn reply(deleted: Deleted, options: &DeleteOptions) -> Reply {
    let code = if !deleted.removed && options.orphan_dependents == Some(false) {
        http::StatusCode::ACCEPTED
    } else {
        http::StatusCode::OK
    };
    Reply::new(code, deleted.body, deleted.warnings)
}

/// DELETE of a collection: every selected object, each like a single delete; the
/// answer lists them as they were.
pub async fn delete_collection(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let bytes = read_body(&scope.req.headers, body).await?;
    let options = DeleteOptions::parse(&bytes, &scope.req.query)?;
    let query = Query {
        limit: None,
        continue_token: None,
        ..scope.req.query.clone()
    };
    let listed = list_objects(scope.shared, &scope.res, scope.ns(), &query).await?;
    for obj in &listed.items {
        let t = Target {
            res: &scope.res,
            ns: obj.pointer("/metadata/namespace").and_then(Value::as_str),
            name: name_of(obj),
        };
        match delete(scope.shared, t, &options).await {
            Ok(_) => {}
            Err(e) if e.code == http::StatusCode::NOT_FOUND => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Reply::ok(super::read::list_object(&scope.res, listed)))
}
