//! The errors of applying a strategic merge patch, in apimachinery's wording, with the
//! HTTP code kube-apiserver answers each with (`interpretStrategicMergePatchError`):
//! the malformed-directive errors are 400, lists of lists 422, and everything else
//! reaches the client as a 500 without a reason (a plain Go error).

use super::gofmt::{go_s, go_type, go_v};
use serde_json::{Map, Value};

/// `$deleteFromPrimitiveList/<field>` without a field.
pub const BAD_PRIMITIVE_LIST: &str = "invalid patch format of primitive list";
/// A `$retainKeys` that is not a list, or misses a key of the patch.
pub const BAD_RETAIN_KEYS: &str = "invalid patch format of retainKeys";
/// `$setElementOrder/<field>` without a field.
pub const BAD_SET_ELEMENT_ORDER: &str = "invalid patch format of setElementOrder list";

/// Why a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmpError {
    /// 400 Bad Request.
    BadRequest(&'static str),
    /// 422: `lists of lists are not supported` (the server words it generically).
    ListOfLists,
    /// 500 with the Go error's text.
    Internal(String),
}

impl SmpError {
    pub fn internal(message: impl Into<String>) -> SmpError {
        SmpError::Internal(message.into())
    }

    /// `mergepatch.ErrNoMergeKey`.
    pub fn no_merge_key(map: &Map<String, Value>, key: &str) -> SmpError {
        SmpError::Internal(format!(
            "map: {} does not contain declared merge key: {key}",
            go_v(&Value::Object(map.clone()))
        ))
    }

    /// `mergepatch.ErrBadArgType` for an expected map.
    pub fn not_a_map(actual: &Value) -> SmpError {
        SmpError::Internal(format!(
            "expected a map[string]interface {{}}, but received a {}",
            go_type(actual)
        ))
    }

    /// `mergepatch.ErrBadArgType` for an expected slice.
    pub fn not_a_slice(actual: &Value) -> SmpError {
        SmpError::Internal(format!(
            "expected a []interface {{}}, but received a {}",
            go_type(actual)
        ))
    }

    /// `mergepatch.ErrBadPatchType`: a `$patch` other than the known ones.
    pub fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> SmpError {
        SmpError::Internal(format!(
            "unknown patch type: {} in map: {}",
            go_s(directive),
            go_v(&Value::Object(map.clone()))
        ))
    }
}
