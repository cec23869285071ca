//! Typed apply configurations (server-side apply): the runtime side of the `XApply`
//! types `#[derive(CustomResource, CrdSchema)]` emit next to each struct.
//!
//! An apply configuration says which fields a field manager wants to own: every field is
//! optional and only the fields that are set are serialized, so applying one with
//! `PatchParams::apply("manager")` never claims (or resets) a field the manager did not
//! set. [`ApplyType`] maps each field type to the type its apply configuration holds:
//! derived structs to their `XApply`, containers element-wise, everything else to
//! itself. [`ObjectMetaApply`] is the metadata a controller applies.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::meta::OwnerReference;

/// The type a field of type `Self` holds in an apply configuration.
///
/// Derived structs map to their generated `XApply` (every field optional); `Option<T>`
/// to `T`'s (the apply field is optional already); lists and maps element-wise;
/// scalars, enums and foreign types to themselves, applied whole.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no apply configuration type: it does not implement `ApplyType`",
    label = "this field's type needs `ApplyType`",
    note = "`#[derive(CrdSchema)]` implements it; for a type applied whole, `impl ApplyType for {Self} {{ type Apply = Self; }}`"
)]
pub trait ApplyType {
    /// The apply configuration's type for a value of `Self`.
    type Apply;
}

/// The apply configuration types a derive emits (`XApply`, their builders and
/// `ApplyType` impls), kept with feature `apply` (default) and dropped without it: the
/// derive wraps them in this macro because it cannot see crd-runtime's features. Not a
/// public API.
#[cfg(feature = "apply")]
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_types {
    ($($items:tt)*) => { $($items)* };
}

/// Without feature `apply`, derived types have no apply configurations. Not a public API.
#[cfg(not(feature = "apply"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __apply_types {
    ($($items:tt)*) => {};
}

macro_rules! whole {
    ($($t:ty),* $(,)?) => {$(
        impl ApplyType for $t {
            type Apply = Self;
        }
    )*};
}

whole!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char,
    String, (), Value, Map<String, Value>,
    super::IntOrString, super::EmbeddedObject, crate::model::ObjectMeta,
);

// With `kube`, `crate::meta::ObjectMeta` is k8s-openapi's, covered in `crate::k8s`.
#[cfg(not(feature = "kube"))]
whole!(crate::meta::ObjectMeta);

#[cfg(feature = "chrono")]
whole!(
    chrono::DateTime<chrono::Utc>,
    chrono::DateTime<chrono::FixedOffset>,
    chrono::NaiveDate,
);

// Field-level optionality is the apply field's `Option` already.
impl<T: ApplyType> ApplyType for Option<T> {
    type Apply = T::Apply;
}

impl<T: ApplyType> ApplyType for Box<T> {
    type Apply = Box<T::Apply>;
}

impl<T: ApplyType> ApplyType for Rc<T> {
    type Apply = Rc<T::Apply>;
}

impl<T: ApplyType> ApplyType for Arc<T> {
    type Apply = Arc<T::Apply>;
}

impl<T: ApplyType> ApplyType for Vec<T> {
    type Apply = Vec<T::Apply>;
}

impl<T: ApplyType> ApplyType for VecDeque<T> {
    type Apply = Vec<T::Apply>;
}

impl<T: ApplyType, const N: usize> ApplyType for [T; N] {
    type Apply = Vec<T::Apply>;
}

// Set members are compared whole (`listType: set`), so they are applied whole.
impl<T> ApplyType for BTreeSet<T> {
    type Apply = Self;
}

impl<T, S> ApplyType for HashSet<T, S> {
    type Apply = Self;
}

impl<K, V: ApplyType> ApplyType for BTreeMap<K, V> {
    type Apply = BTreeMap<K, V::Apply>;
}

impl<K, V: ApplyType, S> ApplyType for HashMap<K, V, S> {
    type Apply = HashMap<K, V::Apply>;
}

/// The `metadata` of an apply configuration: what a controller applies (name and
/// namespace identify the object; labels, annotations, owner references and finalizers
/// are owned field by field like the rest). Empty collections are not serialized, so
/// they claim nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetaApply {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace` (namespaced kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `metadata.labels` (a granular map: each key is owned separately).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// `metadata.annotations` (each key owned separately).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// `metadata.ownerReferences` (a list map keyed by `uid`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    /// `metadata.finalizers` (a set).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

impl ObjectMetaApply {
    /// Metadata naming the object `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            ..Self::default()
        }
    }
}

/// `Debug` of apply configurations: the JSON they send (what a field manager claims),
/// with no `Debug` bound on the types they hold whole.
#[doc(hidden)]
pub fn debug_as_json<T: Serialize>(value: &T, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match serde_json::to_string(value) {
        Ok(json) => f.write_str(&json),
        Err(e) => write!(f, "<not serializable: {e}>"),
    }
}
