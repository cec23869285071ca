//! Strategic merge patch (`application/strategic-merge-patch+json`) for the built-in
//! kinds, as kube-apiserver applies it with apimachinery's `strategicpatch`: the
//! patch metadata of each Go type ([`meta`], generated from the upstream markers)
//! tells how each list merges; [`merge`] applies the patch and its directives. Custom
//! resources have no such metadata, and the server refuses the media type for them.

mod error;
mod gofmt;
#[cfg(test)]
mod lists_tests;
mod merge;
mod meta;
mod order;
#[cfg(test)]
#[path = "patch_tests.rs"]
mod tests;

use http::StatusCode;
use serde_json::{Map, Value};

use crate::api::status::{ApiError, Qualified};
pub use meta::annotate_openapi;
#[cfg(test)]
use meta::{field_tags, has_definition};

/// The definition of the metadata every object carries.
pub const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The definition of a built-in kind's `scale` subresource.
pub const SCALE: &str = "io.k8s.api.autoscaling.v1.Scale";

/// The body of a strategic merge patch as the server decodes it: JSON, an object (or
/// `null`, which changes nothing).
pub fn parse(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = crd_runtime::__private::depth::from_json_slice(body)
        .map_err(|_| ApiError::bad_request("invalid JSON patch"))?;
    let what = match value {
        Value::Object(m) => return Ok(m),
        Value::Null => return Ok(Map::new()),
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
    };
    Err(ApiError::bad_request(format!(
        "json: cannot unmarshal {what} into Go value of type map[string]interface {{}}"
    )))
}

/// `original` (an object of `definition`) with `patch` applied.
pub fn apply(
    original: &Value,
    patch: Map<String, Value>,
    definition: &str,
) -> Result<Value, ApiError> {
    let Some(definition) = meta::static_name(definition) else {
        return Err(ApiError::internal(format!(
            "no strategic merge patch metadata for {definition}"
        )));
    };
    let original = original.as_object().cloned().unwrap_or_default();
    match merge::merge_map(original, patch, meta::Schema::Struct(definition)) {
        Ok(merged) => Ok(Value::Object(merged)),
        Err(e) => Err(to_api_error(e)),
    }
}

fn to_api_error(e: error::SmpError) -> ApiError {
    match e {
        error::SmpError::BadRequest(m) => ApiError::bad_request(m),
        // `NewGenericServerResponse(422, ...)` keeps its own wording, not the error's.
        error::SmpError::ListOfLists => {
            let mut e = ApiError::unprocessable(
                "the server rejected our request due to an error in our request",
            );
            e.details = Some(serde_json::json!({}));
            e
        }
        // A plain Go error reaches the client as a 500 without a reason.
        error::SmpError::Internal(m) => ApiError {
            code: StatusCode::INTERNAL_SERVER_ERROR,
            reason: "",
            message: m,
            details: None,
            warnings: Vec::new(),
        },
    }
}

/// The 422 of a patched object with unknown fields under `fieldValidation=Strict`:
/// `"" is invalid: patch: Invalid value: "<patch as Go prints it>": strict decoding
/// error: unknown field "..."`.
pub fn strict_error(patch: &Map<String, Value>, unknown: &[String]) -> ApiError {
    use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
    let fields: Vec<String> = unknown
        .iter()
        .map(|p| format!("unknown field \"{p}\""))
        .collect();
    let mut errs = ErrorList::new();
    errs.push(FieldError::invalid(
        Path::new("patch"),
        BadValue::Str(gofmt::go_v(&Value::Object(patch.clone()))),
        format!("strict decoding error: {}", fields.join(", ")),
    ));
    let nothing = Qualified {
        group: String::new(),
        plural: String::new(),
        kind: String::new(),
    };
    ApiError::invalid(&nothing, "", &errs)
}
