//! The patch metadata of the built-in kinds' Go types, as `strategicpatch` reads it
//! from struct tags: per definition, each JSON field's shape, the definition it holds,
//! its `patchStrategy` and `patchMergeKey`. Generated into `generated/patch_meta.json`
//! by `tests/patch_meta_data.rs`.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::error::SmpError;

/// What a field holds, as Go's reflection sees its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Scalar,
    Map,
    /// A struct of this definition (one without fields is opaque: RawExtension).
    Struct(&'static str),
    /// A slice, of structs of this definition or of scalars.
    List(Option<&'static str>),
}

/// One field of a definition.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub shape: Shape,
    /// The struct tag as written: `merge`, `merge,retainKeys`, `replace`, or empty.
    pub strategy: &'static str,
    pub merge_key: &'static str,
}

type Definition = HashMap<String, Field>;

fn table() -> &'static HashMap<&'static str, Definition> {
    static TABLE: OnceLock<HashMap<&'static str, Definition>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let raw: HashMap<String, HashMap<String, Vec<String>>> =
            serde_json::from_str(include_str!("generated/patch_meta.json"))
                .expect("patch_meta.json is well-formed (its generator test writes it)");
        // Each distinct name leaked once: the table lives as long as the process and
        // hands out `'static` names.
        let mut names: HashMap<String, &'static str> = HashMap::new();
        let mut leak = |s: &str| -> &'static str {
            names
                .entry(s.to_string())
                .or_insert_with(|| Box::leak(s.to_string().into_boxed_str()))
        };
        raw.into_iter()
            .map(|(name, fields)| {
                let fields = fields
                    .into_iter()
                    .map(|(field, parts)| {
                        let part = |i: usize| parts.get(i).map(String::as_str).unwrap_or("");
                        let child = (!part(1).is_empty()).then(|| leak(part(1)));
                        let shape = match part(0) {
                            "map" => Shape::Map,
                            "struct" => Shape::Struct(child.unwrap_or("")),
                            "list" => Shape::List(child),
                            _ => Shape::Scalar,
                        };
                        let f = Field {
                            shape,
                            strategy: leak(part(2)),
                            merge_key: leak(part(3)),
                        };
                        (field, f)
                    })
                    .collect();
                (leak(&name), fields)
            })
            .collect()
    })
}

/// The table's own `'static` name of a definition it has.
pub fn static_name(definition: &str) -> Option<&'static str> {
    table().get_key_value(definition).map(|(k, _)| *k)
}

/// Whether the table has a definition (the kinds with strategic merge patch).
#[cfg(test)]
pub fn has_definition(definition: &str) -> bool {
    table().contains_key(definition)
}

/// A field's `patchStrategy` and `patchMergeKey` (empty when it has none).
#[cfg(test)]
pub fn field_tags(definition: &str, field: &str) -> Option<(&'static str, &'static str)> {
    let f = table().get(definition)?.get(field)?;
    Some((f.strategy, f.merge_key))
}

/// The type a part of the patch is merged as (`LookupPatchMeta` over a Go type).
#[derive(Clone, Copy, Debug)]
pub enum Schema {
    Struct(&'static str),
    Map,
    Scalar,
}

impl Schema {
    /// `reflect.Kind` of the type, as `Name()` reports it.
    pub fn name(self) -> &'static str {
        match self {
            Schema::Struct(_) => "struct",
            Schema::Map => "map",
            Schema::Scalar => "string",
        }
    }

    /// The field `key` of a struct: its type and tags (`LookupPatchMetadataForStruct`).
    pub fn field(self, key: &str) -> Result<(Schema, Field), SmpError> {
        let Schema::Struct(definition) = self else {
            return Err(SmpError::internal(format!(
                "merging an object in json but data type is not struct, instead is: {}",
                self.name()
            )));
        };
        let fields = table().get(definition);
        // The JSON decoder's match: exact, else the first one equal ignoring case.
        let found = fields.and_then(|f| {
            f.get(key).or_else(|| {
                let mut names: Vec<&String> = f.keys().collect();
                names.sort();
                names
                    .into_iter()
                    .find(|n| n.eq_ignore_ascii_case(key))
                    .and_then(|n| f.get(n))
            })
        });
        let Some(field) = found else {
            return Err(SmpError::internal(format!(
                "unable to find api field in struct {} for the json field {key:?}",
                go_name(definition)
            )));
        };
        let schema = match field.shape {
            Shape::Struct(d) => Schema::Struct(d),
            Shape::Map => Schema::Map,
            Shape::Scalar | Shape::List(_) => Schema::Scalar,
        };
        Ok((schema, *field))
    }

    /// The items of the list field `key` (`LookupPatchMetadataForSlice`).
    pub fn items(self, key: &str) -> Result<(Schema, Field), SmpError> {
        let (_, field) = self.field(key)?;
        match field.shape {
            Shape::List(Some(d)) => Ok((Schema::Struct(d), field)),
            Shape::List(None) => Ok((Schema::Scalar, field)),
            // The Go message names the outer struct's kind.
            _ => Err(SmpError::internal(
                "expected slice or array type, but got: struct",
            )),
        }
    }
}

/// The Go type name of a definition (`io.k8s.api.core.v1.PodSpec` → `PodSpec`).
fn go_name(definition: &str) -> &str {
    definition.rsplit('.').next().unwrap_or(definition)
}

/// Adds `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` to an
/// (inlined) OpenAPI schema of `definition`, as kube-apiserver publishes them: kubectl
/// computes apply and edit patches from them.
pub fn annotate_openapi(schema: &mut Value, definition: &str) {
    let Some(fields) = table().get(definition) else {
        return;
    };
    let Some(Value::Object(props)) = schema.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        let Some(field) = fields.get(name) else {
            continue;
        };
        if let Value::Object(p) = prop {
            if !field.strategy.is_empty() {
                p.insert("x-kubernetes-patch-strategy".into(), field.strategy.into());
            }
            if !field.merge_key.is_empty() {
                p.insert(
                    "x-kubernetes-patch-merge-key".into(),
                    field.merge_key.into(),
                );
            }
        }
        match field.shape {
            Shape::Struct(child) => annotate_openapi(prop, child),
            Shape::List(Some(child)) => {
                if let Some(items) = prop.get_mut("items") {
                    annotate_openapi(items, child);
                }
            }
            _ => {}
        }
    }
}
