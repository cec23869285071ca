//! The structural schemas of k8s-openapi's types as data (feature `k8s-schemas`, also
//! enabled by `kube`): what `#[derive(CustomResource)]` emits for a field of type
//! `PodTemplateSpec`, `Condition`, … in each Kubernetes version k8s-openapi supports,
//! without depending on k8s-openapi. crd-gen uses it to recognise those types in CRD
//! schemas (`generate --k8s-types`); the `CrdSchema` impls of feature `kube` read the
//! same data for the version the final crate selects.
//!
//! ```
//! use crd_runtime::k8s_schemas;
//!
//! let version = k8s_schemas::latest_version();
//! let condition = "io.k8s.apimachinery.pkg.apis.meta.v1.Condition";
//! let schema = k8s_schemas::definition_schema_in(version, condition).unwrap();
//! assert_eq!(schema.required.as_ref().unwrap().len(), 5);
//! assert_eq!(
//!     k8s_schemas::rust_path(condition),
//!     Some("k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition".to_string()),
//! );
//! ```

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::derive_support::embedded_object_meta_schema;
use crate::model::JSONSchemaProps;

/// The definition whose nested copies get the embedded-metadata schema.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The Kubernetes versions with schemas, oldest first (k8s-openapi's `v1_*` features).
pub const VERSIONS: &[&str] = &["1.33", "1.34", "1.35", "1.36", "1.37"];

/// The k8s-openapi release the schemas were generated from (its Cargo version
/// requirement): generated code that names its types depends on it.
pub const K8S_OPENAPI_VERSION: &str = "0.29";

/// The newest Kubernetes version with schemas.
pub fn latest_version() -> &'static str {
    VERSIONS[VERSIONS.len() - 1]
}

struct Data {
    /// The schemas, each parsed when a definition needs it: the file is large and a
    /// caller needs a few (the API server's built-in kinds, a generator's fields).
    schemas: Vec<&'static RawValue>,
    /// Per version (as in [`VERSIONS`]): definition name → index into `schemas`.
    index: Vec<HashMap<String, usize>>,
    /// Definition name → Rust path under `k8s_openapi::`.
    paths: HashMap<String, String>,
}

/// `k8s/generated/schemas.json` as stored.
#[derive(serde::Deserialize)]
struct Stored<'a> {
    paths: HashMap<String, String>,
    #[serde(borrow)]
    schemas: Vec<&'a RawValue>,
    versions: HashMap<String, HashMap<String, usize>>,
}

fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut stored: Stored<'static> = serde_json::from_str(include_str!(
            "k8s/generated/schemas.json"
        ))
        .expect("k8s/generated/schemas.json is well-formed (checked by its generator test)");
        let index = VERSIONS
            .iter()
            .map(|v| stored.versions.remove(*v).unwrap_or_default())
            .collect();
        Data {
            schemas: stored.schemas,
            index,
            paths: stored.paths,
        }
    })
}

fn version_index(version: &str) -> Option<usize> {
    VERSIONS.iter().position(|v| *v == version)
}

/// The definitions (`io.k8s.api.core.v1.PodSpec`) that are Rust types in `version`,
/// sorted; empty for a version without schemas.
pub fn definitions(version: &str) -> Vec<&'static str> {
    let Some(v) = version_index(version) else {
        return Vec::new();
    };
    let mut names: Vec<&str> = data().index[v].keys().map(String::as_str).collect();
    names.sort_unstable();
    names
}

/// The Rust type of a definition: `k8s_openapi::api::core::v1::PodSpec`.
pub fn rust_path(definition: &str) -> Option<String> {
    data()
        .paths
        .get(definition)
        .map(|p| format!("k8s_openapi::{p}"))
}

/// The structural schema of a definition (`io.k8s.api.core.v1.PodSpec`) in a
/// Kubernetes version, subschemas inlined: exactly what a derived field of that type
/// gets. `None` for an unknown version or definition.
pub fn definition_schema_in(version: &str, definition: &str) -> Option<JSONSchemaProps> {
    type Cache = Mutex<HashMap<(usize, String), JSONSchemaProps>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let v = version_index(version)?;
    let cache = CACHE.get_or_init(Default::default);
    let key = (v, definition.to_string());
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Some(hit);
    }
    let value = resolve(v, definition, &mut Vec::new())?;
    let schema: JSONSchemaProps = serde_json::from_value(value)
        .expect("generated k8s schemas fit the CRD schema model (checked by unit tests)");
    if let Ok(mut cache) = cache.lock() {
        cache.insert(key, schema.clone());
    }
    Some(schema)
}

/// The definition with its `$ref`s inlined. A reference back to a definition being
/// inlined (none remain in the generated data; the generator replaces recursive types)
/// keeps the value whole rather than recursing forever.
fn resolve(version: usize, definition: &str, stack: &mut Vec<String>) -> Option<Value> {
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
    let raw = data.schemas.get(*data.index[version].get(definition)?)?;
    let mut value: Value = serde_json::from_str(raw.get()).ok()?;
    stack.push(definition.to_string());
    inline(version, &mut value, stack);
    stack.pop();
    Some(value)
}

fn inline(version: usize, value: &mut Value, stack: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.remove("$ref") {
                let siblings: Map<String, Value> = std::mem::take(map);
                if let Some(Value::Object(resolved)) = resolve(version, &target, stack) {
                    *map = resolved;
                }
                // The field's own keys (its description) win over the type's.
                map.extend(siblings);
                return;
            }
            map.values_mut().for_each(|v| inline(version, v, stack));
            // Items cut at a recursion are kept whole: they have no key fields left.
            let cut = map
                .get("items")
                .is_some_and(|items| items.get("properties").is_none());
            if cut && map.contains_key("x-kubernetes-list-map-keys") {
                map.remove("x-kubernetes-list-map-keys");
                map.remove("x-kubernetes-list-type");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| inline(version, v, stack)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_has_definitions_with_paths() {
        for version in VERSIONS {
            let names = definitions(version);
            assert!(names.len() > 500, "{version}: {} definitions", names.len());
            for name in names {
                assert!(
                    rust_path(name).is_some(),
                    "{version}: {name} has no Rust path"
                );
            }
        }
        assert!(definitions("1.2").is_empty());
        assert!(definition_schema_in("1.2", OBJECT_META).is_none());
    }

    #[test]
    fn nested_object_meta_is_the_embedded_schema() {
        let template =
            definition_schema_in(latest_version(), "io.k8s.api.core.v1.PodTemplateSpec").unwrap();
        let metadata = &template.properties.as_ref().unwrap()["metadata"];
        assert_eq!(
            metadata.properties.as_ref().unwrap().len(),
            embedded_object_meta_schema().properties.unwrap().len()
        );
    }
}
