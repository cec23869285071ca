//! [`CrdSchema`] for every k8s-openapi type (feature `kube`): `PodTemplateSpec`,
//! `LabelSelector`, `ResourceRequirements`, `IntOrString`, `Quantity`, `Condition`, …
//! can be fields of derived specs and statuses with no attribute.
//!
//! The schemas say what controller-gen says for the same Go types: they are generated
//! from k8s-openapi's own sources for each Kubernetes version it supports
//! (`generated/`, written by `crd-runtime/tests/k8s_schema_data.rs`, read through
//! [`crate::k8s_schemas`]), with the upstream
//! markers k8s-openapi does not carry added (list and map types, list map keys,
//! `+structType=atomic`, defaults, `metav1.Condition`'s validations). Which version is
//! used is the one the final crate selects with k8s-openapi's `v1_*` feature, so a field
//! type that exists only in newer Kubernetes versions exists here only then too.
//!
//! A nested `ObjectMeta` (a pod template's `metadata`) gets the schema controller-gen's
//! `generateEmbeddedObjectMeta` emits — `name`, `namespace`, `labels`, `annotations`,
//! `finalizers` — so the API server keeps them instead of pruning them
//! (kubernetes#103739).
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use crd_runtime::CrdSchema;
//! use k8s_openapi::api::core::v1::PodTemplateSpec;
//!
//! let template = PodTemplateSpec::crd_schema();
//! let metadata = &template.properties.as_ref().unwrap()["metadata"];
//! let labels = &metadata.properties.as_ref().unwrap()["labels"];
//! assert_eq!(labels.type_.as_deref(), Some("object"));
//! # }
//! ```

use crate::derive_support::{AcceptsDefault, CrdSchema, literal};
use crate::model::JSONSchemaProps;

k8s_openapi::k8s_if_1_33! { const VERSION: &str = "1.33"; }
k8s_openapi::k8s_if_1_34! { const VERSION: &str = "1.34"; }
k8s_openapi::k8s_if_1_35! { const VERSION: &str = "1.35"; }
k8s_openapi::k8s_if_1_36! { const VERSION: &str = "1.36"; }
k8s_openapi::k8s_if_1_37! { const VERSION: &str = "1.37"; }

/// The Kubernetes version whose schemas are used (k8s-openapi's enabled version).
pub const fn kubernetes_version() -> &'static str {
    VERSION
}

/// The structural schema of a k8s-openapi definition (`io.k8s.api.core.v1.PodSpec`)
/// in the enabled Kubernetes version, subschemas inlined; `None` for an unknown name.
/// The same as [`crate::k8s_schemas::definition_schema_in`] for [`kubernetes_version`].
pub fn definition_schema(definition: &str) -> Option<JSONSchemaProps> {
    crate::k8s_schemas::definition_schema_in(VERSION, definition)
}

/// Implements [`CrdSchema`] and [`AcceptsDefault`] for k8s-openapi types:
/// `path => "definition", FIELDS, [literal kinds];`.
macro_rules! k8s_schema_impls {
    ($($ty:ty => $definition:literal, $fields:expr, [$($kind:ident),*];)*) => {$(
        impl CrdSchema for $ty {
            const FIELDS: Option<&'static [(&'static str, bool)]> = $fields;
            fn crd_schema() -> JSONSchemaProps {
                definition_schema($definition)
                    .expect(concat!($definition, " is in the generated schemas"))
            }
        }
        $(impl AcceptsDefault<literal::$kind> for $ty {})*
        // Applied whole: k8s-openapi types serialize only the fields that are set.
        impl crate::derive_support::ApplyType for $ty {
            type Apply = Self;
        }
    )*};
}

include!("generated/impls.rs");

mod crd;

#[cfg(test)]
mod tests;
