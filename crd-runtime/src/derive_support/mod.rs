//! Runtime side of `crd-derive`: the [`CrdSchema`] and [`CustomResourceExt`] traits,
//! their implementations for std types, [`IntOrString`], [`EmbeddedObject`], list responses ([`ObjectList`]),
//! REST paths, merging versions into one CRD, and writing/checking manifests.
//!
//! Schemas are built directly as [`JSONSchemaProps`] — the model the checker and the
//! engine read — so there is no second schema model and no JSON-Schema-to-CRD rewrite.

mod absent_spec;
mod apply;
#[cfg(feature = "chrono")]
mod chrono_impls;
#[cfg(feature = "engine")]
mod compat;
pub(crate) mod descriptions;
mod embedded;
mod enums;
mod impls;
mod int_or_string;
mod list;
mod manifest;
mod merge;
mod object_meta;
mod resource;
mod rest;
pub(crate) mod versioned;

#[doc(hidden)]
mod building;
pub(crate) mod private;

pub use apply::{ApplyType, ObjectMetaApply};
pub use embedded::EmbeddedObject;
pub use int_or_string::IntOrString;
pub use list::ObjectList;
pub use manifest::{Manifest, ManifestError};
pub use merge::{MergeError, merge_versions};
pub use object_meta::embedded_object_meta_schema;
pub use resource::{CustomResourceExt, Scope};
pub use rest::PathError;

use crate::model::JSONSchemaProps;

/// A Rust type with a structural CRD schema.
///
/// Derive it with `#[derive(crd_derive::CrdSchema)]`; `#[derive(CustomResource)]`
/// implements it for the spec struct. See `crd-derive/ATTRIBUTES.md`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no CRD schema: it does not implement `CrdSchema`",
    label = "this field's type needs a CRD schema",
    note = "derive it with `#[derive(CrdSchema)]` on `{Self}`; for k8s-openapi types (PodTemplateSpec, Condition, Quantity, ...) enable crd-runtime's `kube` feature; for another crate's type, give the field `#[crd(schema_with = path::to::fn)]` (see crd-derive/ATTRIBUTES.md)"
)]
pub trait CrdSchema {
    /// Whether a struct field of this type may be absent (`Option<T>`): such fields are
    /// never listed in `required`.
    const OPTIONAL: bool = false;

    /// The serde names of the direct properties with whether each is always present once
    /// the API server has defaulted the object (required, or with a schema `default`),
    /// when the type is a plain struct (`None` otherwise). Used by compile-time checks such as
    /// `list_map_keys`.
    const FIELDS: Option<&'static [(&'static str, bool)]> = None;

    /// The schema of a value of this type (in list items and map values too).
    fn crd_schema() -> JSONSchemaProps;

    /// The schema of a struct field of this type. Differs from [`CrdSchema::crd_schema`]
    /// only for `Option<T>`: a `null` in a list must be kept (`nullable`), while a `null`
    /// field is dropped by the API server and read by serde as `None` anyway.
    fn crd_field_schema() -> JSONSchemaProps {
        Self::crd_schema()
    }
}

/// Marker types naming the JSON kind of a `default`/`example` literal, so that a
/// default of the wrong kind is a compile error at the literal.
pub(crate) mod literal {
    /// A string literal.
    pub struct Str;
    /// An integer literal.
    pub struct Integer;
    /// A float literal.
    pub struct Float;
    /// `true` / `false`.
    pub struct Bool;
    /// A JSON array.
    pub struct Array;
    /// A JSON object.
    pub struct Object;
    /// `null`.
    pub struct Null;

    /// Every kind but [`Null`]: `Option<T>` holds `null` itself and the other kinds
    /// through `T`.
    pub trait NotNull {}
    impl NotNull for Str {}
    impl NotNull for Integer {}
    impl NotNull for Float {}
    impl NotNull for Bool {}
    impl NotNull for Array {}
    impl NotNull for Object {}
}

/// Implemented by field types that can hold a `default` written as literal kind `K`
/// (see [`literal`]). `#[derive(CrdSchema)]` implements it for structs and enums.
#[diagnostic::on_unimplemented(
    message = "this `default` does not fit the field type `{Self}`",
    label = "wrong kind of default for `{Self}`",
    note = "the default must be a JSON value of the field's type (see crd-derive/ATTRIBUTES.md)"
)]
pub trait AcceptsDefault<K> {}

/// List types (`Vec`, arrays, sets): what `items(...)` and `list_map_keys` apply to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list type",
    label = "`items(...)`, `list_type` and `list_map_keys` need a Vec, array or set",
    note = "wrap the items in a `Vec<_>` or remove the list keyword"
)]
pub trait ListSchema {
    /// The item type.
    type Item: CrdSchema + ?Sized;
}

/// Map types (`BTreeMap<String, _>`, `HashMap<String, _>`): what `values(...)` applies to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map type",
    label = "`values(...)` needs a map with string keys",
    note = "use `BTreeMap<String, _>` or `HashMap<String, _>`"
)]
pub trait MapSchema {
    /// The value type.
    type Value: CrdSchema + ?Sized;
}
