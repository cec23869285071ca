//! What the policy plugins look up about a request besides its attributes: the
//! namespace object (`namespaceObject`, `namespaceSelector`), the other versions a
//! `matchPolicy: Equivalent` policy may match through, and the object converted to
//! the version a policy matched.

use crd_runtime::admission::matching::{Equivalent, Invocation};
use crd_runtime::admission::{Attributes, GroupVersionKind, GroupVersionResource};
use serde_json::Value;

use crate::api::admission::Backend;
use crate::api::kinds::builtin::core::namespace;
use crate::api::status::ApiError;
use crate::api::stored as storage;

/// The namespace object of a namespaced request (a Namespace's own request has none,
/// as kube-apiserver's dispatchers skip it). A missing namespace is kube-apiserver's
/// NotFound for it.
pub async fn namespace_object(
    shared: &Backend<'_>,
    attrs: &Attributes,
) -> Result<Option<Value>, ApiError> {
    if attrs.namespace.is_empty() || attrs.is_namespace() {
        return Ok(None);
    }
    let info = namespace::info();
    let name = attrs.namespace.as_str();
    match shared.store.get(&info.key(None, name)).await {
        Ok(Some(kv)) => Ok(Some(storage::decode(&kv)?)),
        Ok(None) => Err(ApiError::not_found(&info.q, name)),
        Err(e) => Err(ApiError::from_store(&info.q, name, e)),
    }
}

/// The other served versions of the request's resource (a CRD's; each built-in kind
/// here is served in one version).
pub fn equivalents(shared: &Backend<'_>, attrs: &Attributes) -> Vec<Equivalent> {
    let custom = shared.registry.custom();
    let Some(kind) = custom
        .all()
        .iter()
        .find(|k| k.q.group == attrs.resource.group && k.q.plural == attrs.resource.resource)
    else {
        return Vec::new();
    };
    kind.versions
        .iter()
        .filter(|v| v.served && v.name != attrs.resource.version)
        .map(|v| Equivalent {
            resource: GroupVersionResource {
                group: kind.q.group.clone(),
                version: v.name.clone(),
                resource: kind.q.plural.clone(),
            },
            kind: GroupVersionKind {
                group: kind.q.group.clone(),
                version: v.name.clone(),
                kind: kind.q.kind.clone(),
            },
        })
        .collect()
}

/// `attrs` with its objects in the version `invocation` matched (as kube-apiserver's
/// `VersionedAttributes`), converted by the CRD's strategy (a conversion webhook's
/// failure is the request's error, as upstream's conversion error).
pub async fn converted(
    shared: &Backend<'_>,
    attrs: &Attributes,
    invocation: &Invocation,
) -> Result<Attributes, ApiError> {
    let mut out = attrs.clone();
    if !invocation.converts(attrs) {
        return Ok(out);
    }
    let r = &invocation.resource;
    let Some(res) = shared.registry.resolve(&r.group, &r.version, &r.resource) else {
        return Err(ApiError::internal(format!(
            "failed to convert object version: no kind is served as {}/{}, Resource={}",
            r.group, r.version, r.resource
        )));
    };
    for slot in [&mut out.object, &mut out.old_object] {
        if let Some(obj) = slot.take() {
            let mut objs = res.read_stored(vec![obj]).await?;
            *slot = objs.pop();
        }
    }
    // kind and resource stay the request's: the engine reads the matched ones from
    // the step's invocation (`request.kind` vs `request.requestKind`).
    Ok(out)
}
