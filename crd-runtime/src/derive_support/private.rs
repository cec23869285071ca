//! Everything code that `crd-derive` generates calls, in one path
//! (`crd_runtime::__private`). Not a stable API.

pub use super::absent_spec::deserialize_absent_spec;
pub use super::apply::debug_as_json;
pub use super::building::*;
pub use super::descriptions::{set_descriptions, strip_nested_descriptions};
pub use super::enums::{add_aliased_property, adjacent_enum, internal_enum, untagged_enum};
#[cfg(feature = "kube")]
pub use k8s_openapi;
#[cfg(feature = "kube")]
pub use kube;
pub use serde;
pub use serde_json;

/// What `#[crd_runtime::versioned]` modules call: conversions between versions.
pub mod versioned {
    pub use crate::derive_support::versioned::*;
}
