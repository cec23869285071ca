//! [`CrdSchema`] for every k8s-openapi type (feature `kube`): `PodTemplateSpec`,
//! `LabelSelector`, `ResourceRequirements`, `IntOrString`, `Quantity`, `Condition`, …
//! can be fields of derived specs and statuses with no attribute.
//!
//! The schemas say what controller-gen says for the same Go types: they are generated
//! from k8s-openapi's own sources for each Kubernetes version it supports
//! (`generated/`, written by `crd-runtime/tests/k8s_schema_data.rs`), with the upstream
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

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value};

use crate::derive_support::{AcceptsDefault, CrdSchema, embedded_object_meta_schema, literal};
use crate::model::JSONSchemaProps;

/// The definition whose nested copies get the embedded-metadata schema.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

k8s_openapi::k8s_if_1_33! { const VERSION: &str = "1.33"; }
k8s_openapi::k8s_if_1_34! { const VERSION: &str = "1.34"; }
k8s_openapi::k8s_if_1_35! { const VERSION: &str = "1.35"; }
k8s_openapi::k8s_if_1_36! { const VERSION: &str = "1.36"; }
k8s_openapi::k8s_if_1_37! { const VERSION: &str = "1.37"; }

/// The Kubernetes version whose schemas are used (k8s-openapi's enabled version).
pub const fn kubernetes_version() -> &'static str {
    VERSION
}

struct Data {
    schemas: Vec<Value>,
    /// Definition name → index into `schemas`, for [`VERSION`].
    index: HashMap<String, usize>,
}

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut all: Value = serde_json::from_str(include_str!("generated/schemas.json"))
            .expect("generated/schemas.json is JSON (checked by its generator test)");
        let index = all["versions"][VERSION]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_u64()? as usize)))
                    .collect()
            })
            .unwrap_or_default();
        let schemas = match all["schemas"].take() {
            Value::Array(schemas) => schemas,
            _ => Vec::new(),
        };
        Data { schemas, index }
    })
}

/// The structural schema of a k8s-openapi definition (`io.k8s.api.core.v1.PodSpec`)
/// in the enabled Kubernetes version, subschemas inlined; `None` for an unknown name.
pub fn definition_schema(definition: &str) -> Option<JSONSchemaProps> {
    static CACHE: OnceLock<Mutex<HashMap<String, JSONSchemaProps>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(definition).cloned()) {
        return Some(hit);
    }
    let value = resolve(definition, &mut Vec::new())?;
    let schema: JSONSchemaProps = serde_json::from_value(value)
        .expect("generated k8s schemas fit the CRD schema model (checked by unit tests)");
    if let Ok(mut cache) = cache.lock() {
        cache.insert(definition.to_string(), schema.clone());
    }
    Some(schema)
}

/// The definition with its `$ref`s inlined. A reference back to a definition being
/// inlined (none remain in the generated data; the generator replaces recursive types)
/// keeps the value whole rather than recursing forever.
fn resolve(definition: &str, stack: &mut Vec<String>) -> Option<Value> {
    if definition == OBJECT_META {
        return serde_json::to_value(embedded_object_meta_schema()).ok();
    }
    if stack.iter().any(|d| d == definition) {
        return Some(serde_json::json!({
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": true,
        }));
    }
    let data = data();
    let mut value = data.schemas.get(*data.index.get(definition)?)?.clone();
    stack.push(definition.to_string());
    inline(&mut value, stack);
    stack.pop();
    Some(value)
}

fn inline(value: &mut Value, stack: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.remove("$ref") {
                let siblings: Map<String, Value> = std::mem::take(map);
                if let Some(Value::Object(resolved)) = resolve(&target, stack) {
                    *map = resolved;
                }
                // The field's own keys (its description) win over the type's.
                map.extend(siblings);
                return;
            }
            map.values_mut().for_each(|v| inline(v, stack));
            // Items cut at a recursion are kept whole: they have no key fields left.
            let cut = map
                .get("items")
                .is_some_and(|items| items.get("properties").is_none());
            if cut && map.contains_key("x-kubernetes-list-map-keys") {
                map.remove("x-kubernetes-list-map-keys");
                map.remove("x-kubernetes-list-type");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| inline(v, stack)),
        _ => {}
    }
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
    )*};
}

include!("generated/impls.rs");

mod crd;

#[cfg(test)]
mod tests;
