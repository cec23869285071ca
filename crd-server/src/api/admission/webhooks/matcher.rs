//! `ShouldCallHook` for one request: selectors and rules (crd-runtime's matchers),
//! the request's namespace read from the store only for a webhook whose
//! `namespaceSelector` needs it, the equivalent versions of a custom resource for
//! `matchPolicy: Equivalent`, and the conversions between the request's version and
//! the one a webhook is sent; then the webhook's `matchConditions` (CEL).

use crd_runtime::admission::Attributes;
use crd_runtime::admission::matching::{Equivalent, Invocation, SelectorError, match_webhook};
use crd_runtime::admission::policy::Input;
use crd_runtime::admission::{GroupVersionKind, GroupVersionResource};
use crd_runtime::labels as selector;
use serde_json::Value;

use super::call::internal;
use super::configurations::Hook;
use crate::api::admission::Backend;
use crate::api::kinds::Resource;
use crate::api::kinds::builtin::core::namespace::NAMESPACE_PREFIX;
use crate::api::status::{ApiError, Qualified};

/// Matching state kept over one request's webhooks.
pub struct Matcher<'a> {
    shared: &'a Backend<'a>,
    /// The namespace object, once read (`Some(None)`: it does not exist).
    namespace: Option<Option<Value>>,
    equivalents: Option<Vec<Equivalent>>,
}

impl<'a> Matcher<'a> {
    pub fn new(shared: &'a Backend<'a>) -> Matcher<'a> {
        Matcher {
            shared,
            namespace: None,
            equivalents: None,
        }
    }

    /// How `hook` is invoked for `attrs`, or `None` when it does not apply.
    pub async fn should_call(
        &mut self,
        hook: &Hook,
        attrs: &Attributes,
    ) -> Result<Option<Invocation>, ApiError> {
        let needs_namespace =
            !attrs.namespace.is_empty() && !selector::is_empty(hook.spec.get("namespaceSelector"));
        if needs_namespace && self.namespace.is_none() {
            self.namespace = Some(self.read_namespace(&attrs.namespace).await?);
        }
        if self.equivalents.is_none() {
            self.equivalents = Some(self.equivalents_of(attrs));
        }
        let namespace = self.namespace.as_ref().and_then(Option::as_ref);
        let equivalents = self.equivalents.as_deref().unwrap_or(&[]);
        let invocation = match match_webhook(&hook.spec, attrs, namespace, equivalents) {
            Ok(Some(invocation)) => invocation,
            Ok(None) => return Ok(None),
            Err(SelectorError::NamespaceNotFound(name)) => {
                let namespaces = Qualified {
                    group: String::new(),
                    plural: "namespaces".into(),
                    kind: "Namespace".into(),
                };
                return Err(ApiError::not_found(&namespaces, &name));
            }
            Err(SelectorError::Invalid(e)) => return Err(internal(e)),
        };
        if hook.conditions.is_empty() {
            return Ok(Some(invocation));
        }
        // The conditions see the object in the version the webhook is sent.
        let converted;
        let seen = if invocation.converts(attrs) {
            converted = convert_to(self.shared, attrs, &invocation).await?;
            &converted
        } else {
            attrs
        };
        let input = Input {
            attrs: seen,
            invocation: Some(&invocation),
            namespace: None,
            params: None,
        };
        match hook.conditions.evaluate(&input) {
            Ok(None) => Ok(Some(invocation)),
            Ok(Some(_false_condition)) => Ok(None),
            Err(_) if hook.ignore_failures => Ok(None),
            Err(e) => {
                let r = &attrs.resource;
                let q = Qualified {
                    group: r.group.clone(),
                    plural: r.resource.clone(),
                    kind: attrs.kind.kind.clone(),
                };
                Err(ApiError::forbidden(&q, &attrs.name, &e))
            }
        }
    }

    async fn read_namespace(&self, name: &str) -> Result<Option<Value>, ApiError> {
        let key = format!("{NAMESPACE_PREFIX}{name}");
        match self.shared.store.get(&key).await {
            Ok(kv) => Ok(
                kv.and_then(|kv| crd_runtime::__private::depth::from_json_slice(&kv.value).ok())
            ),
            Err(e) => Err(internal(e.to_string())),
        }
    }

    /// The other served versions of a custom resource (built-in kinds are served in
    /// one version here).
    fn equivalents_of(&self, attrs: &Attributes) -> Vec<Equivalent> {
        let r = &attrs.resource;
        let custom = self.shared.registry.custom();
        let Some(kind) = custom
            .all()
            .iter()
            .find(|k| k.q.group == r.group && k.q.plural == r.resource)
        else {
            return Vec::new();
        };
        kind.versions
            .iter()
            .filter(|v| v.served)
            .map(|v| Equivalent {
                resource: GroupVersionResource {
                    group: r.group.clone(),
                    version: v.name.clone(),
                    resource: r.resource.clone(),
                },
                kind: GroupVersionKind {
                    group: r.group.clone(),
                    version: v.name.clone(),
                    kind: kind.q.kind.clone(),
                },
            })
            .collect()
    }
}

/// `attrs` with its objects converted to the version `invocation` is sent in.
pub async fn convert_to(
    shared: &Backend<'_>,
    attrs: &Attributes,
    invocation: &Invocation,
) -> Result<Attributes, ApiError> {
    let r = &invocation.resource;
    let target = shared
        .registry
        .resolve(&r.group, &r.version, &r.resource)
        .ok_or_else(|| {
            internal(format!(
                "unable to convert to {}/{}, Resource={}: unknown kind",
                r.group, r.version, r.resource
            ))
        })?;
    let mut out = attrs.clone();
    out.object = convert_one(&target, attrs.object.clone()).await?;
    out.old_object = convert_one(&target, attrs.old_object.clone()).await?;
    Ok(out)
}

/// `object` read in `res`'s version (the way back from a webhook's version).
pub async fn convert_one(res: &Resource, object: Option<Value>) -> Result<Option<Value>, ApiError> {
    let Some(object) = object.filter(|o| !o.is_null()) else {
        return Ok(None);
    };
    let mut out = res
        .read_stored(vec![object])
        .await
        .map_err(|e| internal(e.message))?;
    Ok(out.pop())
}
