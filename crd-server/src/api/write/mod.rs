//! The write path every verb and controller shares, as kube-apiserver's generic
//! `Store.Create`, `Store.Update` and `Store.Delete`: the body checked against the URL,
//! decoded by the kind's strategy (unknown fields, defaults), prepared, validated,
//! canonicalized, its managers recorded, then written — updates through
//! [`guaranteed_update`], which reads, mutates and compares-and-swaps, and tries again
//! when another writer got there first.
//!
//! - [`create`]: `Store.Create`;
//! - [`update`]: `Store.Update` and the storage layer's `GuaranteedUpdate`;
//! - [`delete`]: `Store.Delete` (preconditions, the garbage collector's finalizers,
//!   graceful deletion).

mod create;
pub mod delete;
mod escalation;
mod update;

pub use create::create;
pub use update::{Update, guaranteed_update, storage_update};

use serde_json::{Value, json};

use crate::api::kinds::Resource;
use crate::api::object::str_at;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage::{self, WriteError};

/// A write's result: the object as answered, and the warnings to send.
pub struct Written {
    pub obj: Value,
    pub warnings: Vec<String>,
    /// The object's JSON, when the kind keeps answers (sent as it is).
    pub json: Option<bytes::Bytes>,
}

/// How a write is recorded in `metadata.managedFields`.
#[derive(Clone, Copy)]
pub enum Tracking<'a> {
    /// As an `Update` by this manager (creates, updates, patches).
    Update(&'a str),
    /// Already recorded (server-side apply computed the entries).
    Recorded,
}

/// Checks the body's type meta against the URL and sets the URL's namespace.
pub fn check_body(
    res: &Resource,
    obj: &mut Value,
    ns: Option<&str>,
    url_name: Option<&str>,
) -> Result<(), ApiError> {
    let info = res.info();
    let cannot = |what: &str| {
        ApiError::bad_request(format!(
            "{kind} in version \"{v}\" cannot be handled as a {kind}: {what}",
            kind = info.q.kind,
            v = info.version
        ))
    };
    let Value::Object(map) = obj else {
        return Err(cannot("the body must be a JSON object"));
    };
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() {
        return Err(ApiError::bad_request(
            "Object 'Kind' is missing in the request body",
        ));
    }
    let expected = info.api_version();
    if api_version != expected {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({expected})"
        )));
    }
    if kind != info.q.kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind ({})",
            info.q.kind
        )));
    }
    let Value::Object(meta) = map.entry("metadata").or_insert_with(|| json!({})) else {
        return Err(cannot("metadata must be an object"));
    };
    if info.namespaced {
        let body_ns = meta.get("namespace").and_then(Value::as_str).unwrap_or("");
        let ns = ns.unwrap_or("");
        if !body_ns.is_empty() && body_ns != ns {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        meta.insert("namespace".into(), json!(ns));
    } else {
        meta.remove("namespace");
    }
    if let Some(url_name) = url_name {
        let body_name = meta.get("name").and_then(Value::as_str).unwrap_or("");
        if body_name != url_name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({url_name})"
            )));
        }
    }
    Ok(())
}

/// The NamespaceLifecycle admission of a create: the namespace of a namespaced object
/// must exist (404 for the namespace otherwise) and not be terminating (403). The
/// registry follows the namespaces, so only one it has not seen yet costs a read.
async fn admit_namespace(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    obj: &Value,
) -> Result<(), ApiError> {
    let (true, Some(ns)) = (res.info().namespaced, ns) else {
        return Ok(());
    };
    let terminating = match shared.registry.namespace_terminating(ns) {
        Some(t) => t,
        None => {
            let namespaces = crate::api::kinds::builtin::core::namespace::info();
            match shared.store.get(&namespaces.key(None, ns)).await {
                Ok(Some(kv)) => str_at(&storage::decode(&kv)?, "/status/phase") == "Terminating",
                Ok(None) => return Err(ApiError::not_found(&namespaces.q, ns)),
                Err(e) => return Err(ApiError::from_store(&namespaces.q, ns, e)),
            }
        }
    };
    if !terminating {
        return Ok(());
    }
    // Admission runs before a generated name is chosen: the error names the prefix.
    let name = [
        str_at(obj, "/metadata/name"),
        str_at(obj, "/metadata/generateName"),
    ]
    .into_iter()
    .find(|n| !n.is_empty())
    .unwrap_or("Unknown");
    let mut e = ApiError::forbidden(
        &res.info().q,
        name,
        &format!("unable to create new content in namespace {ns} because it is being terminated"),
    );
    if let Some(details) = e.details.as_mut() {
        details["causes"] = json!([{
            "reason": "NamespaceTerminating",
            "message": format!("namespace {ns} is being terminated"),
            "field": "metadata.namespace",
        }]);
    }
    Err(e)
}

/// The object as the mutating phase left it: decoded again (pruned, defaulted) when a
/// plugin changed it, as the API server decodes a webhook's patched object.
fn mutated(res: &Resource, before: Value, after: Option<Value>) -> Result<Value, WriteError> {
    match after {
        Some(mut after) if after != before => {
            res.decode(&mut after)?;
            Ok(after)
        }
        _ => Ok(before),
    }
}
