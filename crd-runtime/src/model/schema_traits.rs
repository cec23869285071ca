//! `Clone`, `PartialEq`, `Debug`, `Serialize` and `Deserialize` for
//! [`JSONSchemaProps`] that are safe at any nesting depth.
//!
//! A schema read from a CRD body may nest ~5,000 `properties` or ~10,000 `items`
//! levels (`depth::schema`), and every one of these traits recurses once per
//! level. The derived impls ran on whatever stack the caller had, so a deep CRD
//! aborted the process wherever a schema happened to be cloned, compared, printed,
//! serialized or dropped outside the sized walks (issue 49: `crd-gen generate`
//! cloned the loaded CRDs on the main thread). Here every level first checks how
//! much stack is left and continues on a fresh segment when it runs low
//! (`stacker::maybe_grow`, in `grow.rs`), so no caller has to size a stack for these traits;
//! serde reaches [`grow`] through `#[serde(with = "grown")]` on every field that
//! holds child schemas (module `grow`).
//! The check is a comparison with the stack pointer; shallow schemas never grow.
//!
//! `Drop` stays derived: a `Drop` impl would forbid `..Default::default()` in
//! struct literals, the way every user builds a schema. Dropping recurses with
//! small frames; owners of possibly deep schemas drop them with `depth::schema`'s
//! `drop_crd` or `drop_schema`.

use std::fmt;

use super::grow::grow;
use super::schema::JSONSchemaProps;

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
