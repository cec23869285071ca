//! PATCH: a JSON merge patch, JSON patch or strategic merge patch (built-in kinds
//! only, [`crate::api::patch`]) applied to the current object (again on every retry, as
//! the server re-applies a patch after a concurrent write), or server-side apply
//! ([`super::apply`]).

use axum::body::Body;
use serde_json::Value;

use super::{Reply, Scope, apply};
use crate::api::patch as strategic;
use crate::api::request::media::read_body;
use crate::api::request::{BodyType, FieldValidation};
use crate::api::status::ApiError;
use crate::api::write::{self};

/// The media types PATCH takes for custom resources.
pub const ACCEPTED: &str = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

/// The media types PATCH takes for the built-in kinds (strategic merge patch too).
const ACCEPTED_BUILTIN: &str = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml";

/// Patches the object (or its status).
pub async fn patch(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let ty = scope.req.body_type()?;
    let smp = scope.res.strategic_merge_definition();
    match ty {
        BodyType::MergePatch | BodyType::JsonPatch | BodyType::ApplyPatch => {}
        BodyType::StrategicMergePatch if smp.is_some() => {}
        _ if smp.is_some() => return Err(ApiError::unsupported_media_type(ACCEPTED_BUILTIN)),
        _ => return Err(ApiError::unsupported_media_type(ACCEPTED)),
    }
    let opts = scope.req.write_options()?;
    let bytes = read_body(&scope.req.headers, body).await?;
    if ty == BodyType::ApplyPatch {
        return apply::apply(scope, &bytes, &opts).await;
    }
    let u = scope.update(&opts);
    let written = match smp.filter(|_| ty == BodyType::StrategicMergePatch) {
        Some(definition) => {
            let patch = strategic::parse(&bytes)?;
            write::guaranteed_update(&u, None, |current| {
                let patched = strategic::apply(&current.obj, patch.clone(), definition)?;
                if opts.validation == FieldValidation::Strict {
                    strict_fields(scope, &patched, &patch)?;
                }
                Ok(patched)
            })
            .await?
        }
        None => {
            write::guaranteed_update(&u, None, |current| apply_patch(&current.obj, &bytes, ty))
                .await?
        }
    };
    Ok(Reply::written(http::StatusCode::OK, written))
}

/// Unknown fields of a strategically patched object are an error about the patch under
/// `fieldValidation=Strict` (the server finds them converting the merged map).
fn strict_fields(
    scope: &Scope<'_>,
    patched: &Value,
    patch: &serde_json::Map<String, Value>,
) -> Result<(), ApiError> {
    let mut probe = patched.clone();
    let unknown = scope.res.decode(&mut probe)?;
    if unknown.is_empty() {
        return Ok(());
    }
    Err(strategic::strict_error(patch, &unknown))
}

/// `target` with a merge or JSON patch applied.
pub fn apply_patch(target: &Value, body: &[u8], ty: BodyType) -> Result<Value, ApiError> {
    // Patches nest as deep as objects may (the API server's 10,000 JSON levels).
    let decode_error = |e: crd_runtime::__private::depth::JsonError| {
        ApiError::bad_request(format!("error decoding patch: {e}"))
    };
    let mut doc = target.clone();
    match ty {
        BodyType::MergePatch => {
            let patch: Value =
                crd_runtime::__private::depth::from_json_slice(body).map_err(decode_error)?;
            json_patch::merge(&mut doc, &patch);
        }
        BodyType::JsonPatch => {
            let patch: json_patch::Patch =
                crd_runtime::__private::depth::from_json_slice(body).map_err(decode_error)?;
            json_patch_as_go(&mut doc, patch).map_err(|e| {
                ApiError::unprocessable(format!(
                    "the server rejected our request due to an error in our request: {e}"
                ))
            })?;
        }
        _ => return Err(ApiError::unsupported_media_type(ACCEPTED)),
    }
    Ok(doc)
}

/// Applies a JSON patch with the semantics of the Go library kube-apiserver uses: a
/// `test` of `null` passes where the path is missing (kube-runtime's finalizer helper
/// tests `/metadata/finalizers` against `null` before adding the first finalizer). Each
/// operation works on the copy being patched, so a failure leaves nothing half-applied.
fn json_patch_as_go(
    doc: &mut Value,
    patch: json_patch::Patch,
) -> Result<(), json_patch::PatchError> {
    for op in patch.0 {
        if let json_patch::PatchOperation::Test(test) = &op
            && test.value.is_null()
            && doc.pointer(test.path.as_str()).is_none()
        {
            continue;
        }
        json_patch::patch(doc, &[op])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::apply_patch;
    use crate::api::request::BodyType;

    #[test]
    fn a_test_of_null_passes_on_a_missing_path_as_in_go() {
        let obj = json!({"metadata": {"name": "a"}});
        let patch = br#"[{"op": "test", "path": "/metadata/finalizers", "value": null},
                         {"op": "add", "path": "/metadata/finalizers", "value": ["x/y"]}]"#;
        let out = apply_patch(&obj, patch, BodyType::JsonPatch).unwrap();
        assert_eq!(out["metadata"]["finalizers"], json!(["x/y"]));
        // A present value still has to match.
        let obj = json!({"metadata": {"name": "a", "finalizers": ["z"]}});
        let err = apply_patch(&obj, patch, BodyType::JsonPatch).unwrap_err();
        assert_eq!(err.code, 422, "{}", err.message);
        // A failed later operation leaves nothing applied.
        let obj = json!({"metadata": {"name": "a"}});
        let patch = br#"[{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}},
                         {"op": "remove", "path": "/spec/missing"}]"#;
        assert!(apply_patch(&obj, patch, BodyType::JsonPatch).is_err());
        assert_eq!(obj, json!({"metadata": {"name": "a"}}));
    }
}
