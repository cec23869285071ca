//! `EmbeddedObject`: a whole Kubernetes object inside a field
//! (`x-kubernetes-embedded-resource`), such as a template of another kind.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::impls::typed;
use super::{AcceptsDefault, CrdSchema, literal};
use crate::meta::ObjectMeta;
use crate::model::JSONSchemaProps;

/// An object of any kind embedded in a field: `apiVersion`, `kind` and `metadata`
/// typed (the API server validates them as those of an object), everything else kept
/// as it is in [`EmbeddedObject::rest`].
///
/// Its schema is `type: object` with `x-kubernetes-embedded-resource` and
/// `x-kubernetes-preserve-unknown-fields`, what crd-gen maps such a field to.
///
/// ```
/// use crd_runtime::EmbeddedObject;
/// let pod: EmbeddedObject = serde_json::from_value(serde_json::json!({
///     "apiVersion": "v1", "kind": "Pod",
///     "metadata": {"name": "worker"},
///     "spec": {"containers": [{"name": "main", "image": "busybox"}]}
/// })).unwrap();
/// assert_eq!(pod.kind.as_deref(), Some("Pod"));
/// assert_eq!(pod.metadata.as_ref().and_then(|m| m.name.as_deref()), Some("worker"));
/// assert!(pod.rest.contains_key("spec"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedObject {
    /// `apiVersion` (the API server requires it unless the field is nullable).
    #[serde(
        rename = "apiVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub api_version: Option<String>,
    /// `kind` (the API server requires it unless the field is nullable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `metadata`; the API server keeps only `ObjectMeta` fields here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    /// Every other field (`spec`, `data`, ...), untouched.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl CrdSchema for EmbeddedObject {
    fn crd_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            x_kubernetes_embedded_resource: Some(true),
            x_kubernetes_preserve_unknown_fields: Some(true),
            ..typed("object")
        }
    }
}
impl AcceptsDefault<literal::Object> for EmbeddedObject {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_every_field() {
        let value = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"replicas": 2}, "status": {}
        });
        let object: EmbeddedObject = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(object.api_version.as_deref(), Some("apps/v1"));
        assert_eq!(serde_json::to_value(&object).unwrap(), value);
        assert_eq!(
            serde_json::to_value(EmbeddedObject::default()).unwrap(),
            json!({})
        );
    }

    #[test]
    fn schema_is_an_embedded_resource() {
        let s = EmbeddedObject::crd_schema();
        assert!(s.is_embedded_resource());
        assert_eq!(s.x_kubernetes_preserve_unknown_fields, Some(true));
        assert_eq!(s.type_str(), "object");
    }
}
