//! schemars types inside derived specs (feature `schemars`, schemars 1.x): a field whose
//! type implements `schemars::JsonSchema` but not [`CrdSchema`](crate::CrdSchema) takes
//! its schema from schemars with `#[crd(schemars)]`:
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use crd_runtime::{CrdSchema, CustomResourceExt};
//!
//! /// A type from a crate that derives `JsonSchema` only.
//! #[derive(schemars::JsonSchema, serde::Serialize, serde::Deserialize)]
//! pub struct Retry {
//!     /// Attempts before giving up.
//!     #[schemars(range(min = 1, max = 10))]
//!     pub attempts: u8,
//!     pub backoff: Option<String>,
//! }
//!
//! #[derive(CrdSchema, serde::Serialize, serde::Deserialize)]
//! pub struct Spec {
//!     #[crd(schemars)]
//!     pub retry: Retry,
//! }
//!
//! let schema = Spec::crd_schema();
//! let retry = &schema.properties.as_ref().unwrap()["retry"];
//! let attempts = &retry.properties.as_ref().unwrap()["attempts"];
//! assert_eq!(attempts.maximum, Some(10.into()));
//! # }
//! ```
//!
//! The other way round, derived types implement `schemars::JsonSchema` with their CRD
//! schema, so they nest in kube-derive types (see `json_schema.rs`).
//!
//! The schemars schema is rewritten into a structural one (see [`structural_schema`]);
//! what cannot be is refused with the path of the node. Because `crd()` returns a CRD,
//! not a `Result`, a refused field's schema gets an invalid `type` that carries the
//! message, so `assert_valid_crd` and `validate_crd` (and the API server) reject the CRD
//! naming the field, instead of a silently wrong schema or a panic.

mod convert;
mod json_schema;

pub use convert::SchemarsError;
#[doc(hidden)]
pub use json_schema::json_schema_of;
// The paths `__impl_json_schema!` expands to, so users need no `schemars` dependency of
// their own.
#[doc(hidden)]
pub use schemars as __schemars;
#[doc(hidden)]
pub use std::borrow::Cow as __Cow;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::model::JSONSchemaProps;

/// The structural CRD schema of a `JsonSchema` type, or why it has none.
pub fn structural_schema<T: JsonSchema + ?Sized>() -> Result<JSONSchemaProps, SchemarsError> {
    let root = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    structural_from_json_schema(root.as_value())
}

/// The structural CRD schema of a JSON Schema (draft 2020-12) document whose
/// definitions are under `$defs` (or `definitions`).
pub fn structural_from_json_schema(root: &Value) -> Result<JSONSchemaProps, SchemarsError> {
    let empty = serde_json::Map::new();
    let defs = root
        .get("$defs")
        .or_else(|| root.get("definitions"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut root = root.clone();
    // The type's name, which schemars puts on every root: not a CRD title.
    let name = match root.as_object_mut().and_then(|map| map.remove("title")) {
        Some(Value::String(name)) => name,
        _ => "the root type".to_string(),
    };
    let converted = convert::Converter::new(defs, &name).convert(&root, "")?;
    serde_json::from_value(converted).map_err(|e| SchemarsError {
        path: String::new(),
        message: format!("the rewritten schema does not fit the CRD model: {e}"),
    })
}

/// The schema of a `#[crd(schemars)]` field of type `T` (named `type_name` in errors).
/// Not a public API: the derive calls it through [`__schemars_field_schema!`](crate::__schemars_field_schema).
#[doc(hidden)]
pub fn field_schema<T: JsonSchema + ?Sized>(type_name: &str) -> JSONSchemaProps {
    match structural_schema::<T>() {
        Ok(mut schema) => {
            // As for `Option<T>` fields: an absent field is `None`, no `null` needed.
            schema.nullable = None;
            schema
        }
        Err(e) => JSONSchemaProps {
            type_: Some(format!(
                "(#[crd(schemars)] `{type_name}` has no structural schema {e})"
            )),
            ..Default::default()
        },
    }
}

/// The schema of a `#[crd(schemars)]` field (feature `schemars`). Not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __schemars_field_schema {
    ($ty:ty) => {
        $crate::schemars_support::field_schema::<$ty>(::core::stringify!($ty))
    };
}

#[cfg(test)]
mod tests;
