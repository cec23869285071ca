//! Server-side apply (PATCH with `application/apply-patch+yaml`) for every kind and
//! subresource that takes PATCH: the body is the `fieldManager`'s configuration,
//! merged into the live object by the kind's schema ([`crate::api::ssa`]), creating
//! the object when it does not exist. The merged object's name must be the URL's.

use serde_json::Value;

use super::{Reply, Scope};
use crate::api::kinds::Subresource;
use crate::api::request::media::parse_body;
use crate::api::request::{BodyType, WriteOptions};
use crate::api::ssa;
use crate::api::status::ApiError;
use crate::api::storage::{self, UPDATE_ATTEMPTS, WriteError};
use crate::api::write::{self, Tracking, Update};

/// Applies the configuration in `body`.
pub async fn apply(scope: &Scope<'_>, body: &[u8], opts: &WriteOptions) -> Result<Reply, ApiError> {
    let mut config = parse_body(body, BodyType::ApplyPatch, "apply patch")?;
    write::check_body(&scope.res, &mut config, scope.ns(), None)?;
    apply_config(scope, &config, opts).await
}

/// Applies `config` (type meta already checked) to the object `scope` names; through
/// `/scale` the configuration is the parent's (the replicas at its spec path).
pub async fn apply_config(
    scope: &Scope<'_>,
    config: &Value,
    opts: &WriteOptions,
) -> Result<Reply, ApiError> {
    let Some(manager) = opts.field_manager.as_deref().filter(|m| !m.is_empty()) else {
        return Err(ApiError::unprocessable(
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
        ));
    };
    let res = &scope.res;
    let info = res.info();
    let api_version = info.api_version();
    let writer = ssa::Writer {
        manager,
        api_version: &api_version,
        subresource: scope.sub.name(),
    };
    let reset = res.reset_fields(scope.sub);
    let merge = |live: Option<&Value>| {
        ssa::apply(
            &info.q,
            live,
            config,
            res.schema(),
            &writer,
            opts.force,
            reset,
        )
    };
    let target = scope.target();
    for _ in 0..UPDATE_ATTEMPTS {
        let Some(current) = storage::find(scope.shared, target).await? else {
            if scope.sub != Subresource::Main {
                return Err(ApiError::not_found(&info.q, target.name));
            }
            let mut merged = merge(None)?;
            write::check_body(res, &mut merged, scope.ns(), Some(target.name))?;
            match write::create(
                scope.shared,
                res,
                scope.ns(),
                merged,
                opts,
                Tracking::Recorded,
            )
            .await
            {
                // Created meanwhile by another writer: apply to what it wrote.
                Err(WriteError::Raced(_)) => continue,
                Err(WriteError::Failed(e)) => return Err(e),
                Ok(written) => return Ok(Reply::written(http::StatusCode::CREATED, written)),
            }
        };
        let u = Update {
            shared: scope.shared,
            target,
            sub: scope.sub,
            opts,
            tracking: Tracking::Recorded,
        };
        let written =
            write::guaranteed_update(&u, Some(current), |current| merge(Some(&current.obj)))
                .await?;
        return Ok(Reply::written(http::StatusCode::OK, written));
    }
    Err(ApiError::conflict(&info.q, target.name))
}
