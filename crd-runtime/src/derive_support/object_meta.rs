//! The schema of an `ObjectMeta` nested inside a spec (a pod template's `metadata`).
//!
//! A bare `type: object` there makes the API server prune every key of it — labels and
//! annotations of templates silently vanish (kubernetes#103739). controller-gen's
//! `generateEmbeddedObjectMeta` declares the fields a template may set; so does this.

use std::collections::BTreeMap;

use super::impls::typed;
use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};

/// `name`, `namespace`, `labels`, `annotations` and `finalizers` of an embedded
/// `ObjectMeta`, as controller-gen's `generateEmbeddedObjectMeta` emits them.
pub fn embedded_object_meta_schema() -> JSONSchemaProps {
    let string_map = || JSONSchemaProps {
        additional_properties: Some(Box::new(JSONSchemaPropsOrBool::Schema(typed("string")))),
        ..typed("object")
    };
    let properties: BTreeMap<String, Box<JSONSchemaProps>> = [
        ("annotations".to_string(), string_map()),
        (
            "finalizers".to_string(),
            JSONSchemaProps {
                items: Some(Box::new(JSONSchemaPropsOrArray::Schema(typed("string")))),
                ..typed("array")
            },
        ),
        ("labels".to_string(), string_map()),
        ("name".to_string(), typed("string")),
        ("namespace".to_string(), typed("string")),
    ]
    .into_iter()
    .map(|(name, schema)| (name, Box::new(schema)))
    .collect();
    JSONSchemaProps {
        properties: Some(properties),
        ..typed("object")
    }
}

/// A nested manifest `ObjectMeta` keeps what an embedded one may set.
impl super::CrdSchema for crate::model::ObjectMeta {
    fn crd_schema() -> JSONSchemaProps {
        embedded_object_meta_schema()
    }
}
impl super::AcceptsDefault<super::literal::Object> for crate::model::ObjectMeta {}

/// Without `kube`, crd-runtime's own `ObjectMeta` nests with the same schema (with it,
/// `crate::meta::ObjectMeta` is k8s-openapi's, whose impl is in `crate::k8s`).
#[cfg(not(feature = "kube"))]
impl super::CrdSchema for crate::meta::ObjectMeta {
    fn crd_schema() -> JSONSchemaProps {
        embedded_object_meta_schema()
    }
}
#[cfg(not(feature = "kube"))]
impl super::AcceptsDefault<super::literal::Object> for crate::meta::ObjectMeta {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_fields_a_template_sets() {
        let schema = embedded_object_meta_schema();
        let properties = schema.properties.as_ref().unwrap();
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["annotations", "finalizers", "labels", "name", "namespace"]
        );
        assert_eq!(properties["labels"].type_str(), "object");
    }
}
