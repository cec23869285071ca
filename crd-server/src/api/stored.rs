//! Reading stored key-values: the object with its `resourceVersion`, and in the
//! addressed version. Needs nothing of the server's state, so admission reads through
//! it too.

use serde_json::Value;

use crate::api::kinds::Resource;
use crate::api::object::set_resource_version;
use crate::api::status::ApiError;
use crate::store::KeyValue;

/// A stored object's JSON with its `resourceVersion`, in the version it is stored in.
pub fn decode(kv: &KeyValue) -> Result<Value, ApiError> {
    // Objects nest as deep as the API server reads them (10,000 levels).
    let mut obj: Value = crd_runtime::__private::depth::from_json_slice(&kv.value)
        .map_err(|e| ApiError::internal(format!("stored object {} is not JSON: {e}", kv.key)))?;
    set_resource_version(&mut obj, kv.mod_revision);
    Ok(obj)
}

/// Stored objects in the addressed version.
pub async fn present(res: &Resource, kvs: &[KeyValue]) -> Result<Vec<Value>, ApiError> {
    let decoded = kvs.iter().map(decode).collect::<Result<Vec<_>, _>>()?;
    res.read_stored(decoded).await
}
