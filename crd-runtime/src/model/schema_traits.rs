//! `Clone`, `PartialEq`, `Debug`, `Serialize` and `Deserialize` for
//! [`JSONSchemaProps`] that are safe at any nesting depth.
//!
//! A schema read from a CRD body may nest ~5,000 `properties` or ~10,000 `items`
//! levels (`crate::depth_schema`), and every one of these traits recurses once per
//! level. The derived impls ran on whatever stack the caller had, so a deep CRD
//! aborted the process wherever a schema happened to be cloned, compared, printed,
//! serialized or dropped outside the sized walks (issue 49: `crd-gen generate`
//! cloned the loaded CRDs on the main thread). Here every level first checks how
//! much stack is left and continues on a fresh segment when it runs low
//! (`stacker::maybe_grow`), so no caller has to size a stack for these traits;
//! serde reaches [`grow`] through `#[serde(with = "grown")]` on every field that
//! holds child schemas.
//! The check is a comparison with the stack pointer; shallow schemas never grow.
//!
//! `Drop` stays derived: a `Drop` impl would forbid `..Default::default()` in
//! struct literals, the way every user builds a schema. Dropping recurses with
//! small frames; owners of possibly deep schemas drop them with
//! [`crate::depth::schema::drop_crd`] or [`crate::depth::schema::drop_schema`].

use std::fmt;

use super::schema::JSONSchemaProps;

/// Stack that must be left before a schema level starts: more than one level of the
/// deepest of these traits uses in a debug build (typing a schema from a
/// `serde_json::Value` through `serde_path_to_error` takes ~25 KiB a level).
const RED_ZONE: usize = 256 << 10;

/// Size of each stack segment added when the red zone is reached.
const SEGMENT: usize = 8 << 20;

/// Runs `f` (one schema level) with at least [`RED_ZONE`] bytes of stack.
pub(crate) fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Calls `$m!` with every field of [`JSONSchemaProps`]. `Clone` builds the struct
/// from this list, so a field added to the struct and not here fails to compile.
macro_rules! with_schema_fields {
    ($m:ident) => {
        $m!(
            id,
            schema,
            ref_path,
            description,
            type_,
            format,
            title,
            default,
            maximum,
            exclusive_maximum,
            minimum,
            exclusive_minimum,
            max_length,
            min_length,
            pattern,
            max_items,
            min_items,
            unique_items,
            multiple_of,
            enum_,
            max_properties,
            min_properties,
            required,
            items,
            all_of,
            one_of,
            any_of,
            not,
            properties,
            additional_properties,
            pattern_properties,
            dependencies,
            additional_items,
            definitions,
            external_docs,
            example,
            nullable,
            x_kubernetes_preserve_unknown_fields,
            x_kubernetes_embedded_resource,
            x_kubernetes_int_or_string,
            x_kubernetes_list_map_keys,
            x_kubernetes_list_type,
            x_kubernetes_map_type,
            x_kubernetes_validations,
            deprecated,
            discriminator,
            read_only,
            write_only,
            xml
        )
    };
}

impl Clone for JSONSchemaProps {
    fn clone(&self) -> Self {
        macro_rules! clone_fields {
            ($($f:ident),*) => {
                JSONSchemaProps { $($f: self.$f.clone()),* }
            };
        }
        grow(|| with_schema_fields!(clone_fields))
    }
}

impl PartialEq for JSONSchemaProps {
    fn eq(&self, other: &Self) -> bool {
        macro_rules! eq_fields {
            ($($f:ident),*) => {
                true $(&& self.$f == other.$f)*
            };
        }
        grow(|| with_schema_fields!(eq_fields))
    }
}

impl fmt::Debug for JSONSchemaProps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        macro_rules! debug_fields {
            ($($name:ident),*) => {
                f.debug_struct("JSONSchemaProps")
                    $(.field(stringify!($name), &self.$name))*
                    .finish()
            };
        }
        grow(|| with_schema_fields!(debug_fields))
    }
}

/// `#[serde(with = ...)]` for the fields that hold child schemas: each level of a
/// schema is serialized and deserialized inside [`grow`].
pub(super) mod grown {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        super::grow(|| v.serialize(s))
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        super::grow(|| T::deserialize(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    use crate::model::JSONSchemaPropsOrArray;

    /// A schema `levels` deep through `items`, built without recursion.
    fn deep_items(levels: usize) -> JSONSchemaProps {
        let mut s = JSONSchemaProps {
            type_: Some("string".into()),
            ..Default::default()
        };
        for _ in 0..levels {
            s = JSONSchemaProps {
                type_: Some("array".into()),
                items: Some(Box::new(JSONSchemaPropsOrArray::Schema(s))),
                ..Default::default()
            };
        }
        s
    }

    /// Every trait on a 10,000-level schema, on a 256 KiB thread: no caller sizes
    /// a stack for them (dropping is the owner's, through `drop_schema`).
    #[test]
    fn every_trait_survives_ten_thousand_levels_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let s = deep_items(10_000);
                let copy = s.clone();
                assert!(copy == s);
                assert!(format!("{s:?}").len() > 10_000);
                let json = serde_json::to_value(&s).unwrap();
                let back = JSONSchemaProps::deserialize(&json).unwrap();
                assert!(back == s);
                crate::depth::drop_value(json);
                for s in [copy, back, s] {
                    crate::depth::schema::drop_schema(s);
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
