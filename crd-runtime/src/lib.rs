//! crd-runtime: the engine shared by crd-derive and crd-gen.
//!
//! - [`model`]: the typed `apiextensions.k8s.io/v1` CustomResourceDefinition model.
//! - [`load`]: reading YAML/JSON manifests (multi-document, v1 and v1beta1).
//! - [`engine`]: prune, default and validate objects like the API server.
//! - [`meta`]: `ObjectMeta`/`ListMeta` of custom resources (k8s-openapi's with feature `kube`).
//! - [`field`]: field paths and errors rendered exactly like the API server.
//! - [`labels`]: labels and label selectors: validated, matched and written like the
//!   API server.
//! - [`names`]: Kubernetes' name rules (DNS labels and subdomains, qualified names,
//!   label values) with apimachinery's messages.
//! - [`go`]: Go's `%q` quoting ([`go::quote`]), as the API server's messages quote.
//! - [`check`]: structural-schema and CRD checks, reported like the API server.
//! - [`jsonpath`]: the JSONPath of printer columns, scale paths and selectable fields:
//!   checked like the API server, evaluated like kubectl.
//! - [`derive_support`]: the runtime side of `#[derive(CustomResource, CrdSchema)]`
//!   (enable the `derive` feature to use the derives through this crate).
//! - `k8s` (feature `kube`): [`CrdSchema`] for every k8s-openapi type.
//! - `k8s_schemas` (feature `k8s-schemas`, also part of `kube`): those types' schemas
//!   as data, for code generators.
//! - `schemars_support` (feature `schemars`): `#[crd(schemars)]` fields, and `schemars::JsonSchema` for derived types.
//! - [`conversion`]: hub-and-spoke conversion between versions, `ConversionReview`.
//! - `cel` (feature `cel`, on by default): evaluation of `x-kubernetes-validations` rules,
//!   which every [`Engine`] runs.
//! - [`version`]: which Kubernetes release to behave like ([`KubeVersion`]).
//! - [`admission`]: admission requests, `AdmissionReview`, the matching of webhooks and
//!   policies, and (feature `cel`) the ValidatingAdmissionPolicy / MutatingAdmissionPolicy
//!   engine shared by crd-server and `crd-gen validate --policy`.
//!
//! Feature `engine` (on by default, and implied by `cel`) builds `load`'s readers,
//! `engine`, `check`, `diff`, `labels`, `jsonpath`, `conversion`, `admission` and `rbac`.
//! Without it (`default-features = false, features = ["derive"]`) this crate is the model,
//! the derives' runtime and YAML writing: what a crate that only derives CRDs needs.
//!
//! The entry points most code needs are re-exported here: [`load_crds`],
//! [`validate_crd`], [`Engine`] (with [`Engine::admit`] and
//! [`Engine::start_admission`]), [`CustomResourceExt`] and [`ErrorList`]. The listing of
//! every public item is `public-api.txt` beside this crate's manifest (checked by
//! `tests/tests/public_api.rs`).
#![deny(missing_docs)]

#[cfg(feature = "engine")]
pub mod admission;
#[cfg(feature = "cel")]
pub mod cel;
#[cfg(feature = "engine")]
pub mod check;
#[cfg(feature = "engine")]
pub mod conversion;
#[cfg(feature = "engine")]
pub(crate) mod correlation;
mod depth;
pub mod derive_support;
#[cfg(feature = "engine")]
pub mod diff;
#[cfg(feature = "engine")]
pub mod engine;
pub mod field;
mod go;
mod go_print_table;
#[cfg(feature = "engine")]
pub mod jsonpath;
#[cfg(feature = "kube")]
pub mod k8s;
#[cfg(feature = "k8s-schemas")]
pub mod k8s_schemas;
mod keyprint;
pub mod kube_support;
#[cfg(feature = "engine")]
pub mod labels;
pub mod load;
pub mod meta;
pub mod model;
pub mod names;
#[cfg(feature = "engine")]
pub mod rbac;
#[cfg(feature = "schemars")]
pub mod schemars_support;
pub mod version;

#[cfg(feature = "engine")]
pub use check::{CheckOptions, assert_valid_crd, validate_crd};
/// Typed apply configurations of derived types (`CronTabApply`): see docs/apply.md.
pub use derive_support::{ApplyType, ObjectMetaApply};
pub use derive_support::{
    CrdSchema, CustomResourceExt, EmbeddedObject, IntOrString, Manifest, ManifestError, MergeError,
    ObjectList, PathError, Scope, merge_versions,
};
#[cfg(feature = "engine")]
pub use diff::{Change, diff, diff_all};
#[cfg(feature = "engine")]
pub use engine::{AdmitError, Engine, EngineError, SchemaOptions};
pub use field::{BadValue, ErrorList, ErrorType, FieldError, Path};
pub use load::to_yaml;
#[cfg(feature = "engine")]
pub use load::{LoadError, load_crds, parse_documents};
/// The metadata of derived roots (`CronTab.metadata`); k8s-openapi's with feature `kube`.
/// CRD manifests use [`model::ObjectMeta`], which keeps unknown keys.
pub use meta::ObjectMeta;
pub use model::{CustomResourceDefinition, JSONSchemaProps};
pub use version::{KubeVersion, UnsupportedKubeVersion};

/// `#[derive(CustomResource)]`, `#[derive(CrdSchema)]` and `#[versioned]` on a module of
/// versioned types (docs/versions.md) (feature `derive`).
#[cfg(feature = "derive")]
pub use crd_derive::{CrdSchema, CustomResource, versioned};

/// What the code `crd-derive` generates calls, and the internals crd-server and crd-gen
/// share with this crate (Go quoting, nesting depth, default-literal markers), in one
/// path. Not a stable API: it changes with the workspace, without notice.
#[doc(hidden)]
pub mod __private {
    pub use crate::derive_support::private::*;

    /// Go's `%q` quoting, as the API server's messages quote values.
    pub mod go {
        pub use crate::go::*;
    }

    /// Nesting depth of JSON values and schemas, and the stack a walk of them needs.
    pub mod depth {
        pub use crate::depth::*;
    }

    /// The JSON kinds of `default`/`example` literals (see `derive_support::AcceptsDefault`).
    pub mod literal {
        pub use crate::derive_support::literal::*;
    }

    /// Field descriptions of generated schemas.
    pub mod descriptions {
        pub use crate::derive_support::descriptions::*;
    }

    /// `metadata` of objects and embedded resources checked as the API server checks
    /// them (crd-server's built-in kinds).
    #[cfg(feature = "engine")]
    pub mod objectmeta {
        pub use crate::engine::objectmeta::*;
    }
}

/// Without the `schemars` feature, derived types do not implement `schemars::JsonSchema`.
/// Not a public API.
#[cfg(not(feature = "schemars"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_json_schema {
    ($($tt:tt)*) => {};
}

/// Without the `schemars` feature, `#[crd(schemars)]` is a compile error at the
/// attribute. Not a public API.
#[cfg(not(feature = "schemars"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __schemars_field_schema {
    ($ty:ty) => {
        ::core::compile_error!(
            "`#[crd(schemars)]` needs crd-runtime's `schemars` feature: crd-runtime = { version = \"...\", features = [\"derive\", \"schemars\"] }"
        )
    };
}
