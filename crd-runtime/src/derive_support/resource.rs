//! [`CustomResourceExt`]: what `#[derive(CustomResource)]` gives a root type.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::rest::{PathError, PathSpec};
#[cfg(feature = "engine")]
use crate::engine::{AdmitError, Engine, EngineError};
#[cfg(feature = "engine")]
use crate::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use crate::meta::ObjectMeta;
use crate::model::CustomResourceDefinition;

/// Whether a resource lives in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `Namespaced`.
    Namespaced,
    /// `Cluster`.
    Cluster,
}

impl Scope {
    /// The CRD spelling (`Namespaced` / `Cluster`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        }
    }
}

/// A custom resource type: its identity, REST paths, metadata, its CRD, and the API
/// server's admission (prune, default, validate) bound to its own schema.
///
/// `#[derive(CustomResource)]` implements it for the root type (`CronTab`) and also
/// emits `CronTabList` (= [`ObjectList<CronTab>`](super::ObjectList)). With the `kube`
/// feature the root also implements `kube::Resource` (+ `HasSpec`, `HasStatus`) from
/// these same constants; no name here clashes with `kube::Resource`'s, so both traits
/// can be in scope together.
pub trait CustomResourceExt: Sized + Serialize + DeserializeOwned {
    /// The spec type.
    type Spec;
    /// API group (`stable.example.com`).
    const GROUP: &'static str;
    /// Version (`v1`).
    const VERSION: &'static str;
    /// `group/version`.
    const API_VERSION: &'static str;
    /// Kind (`CronTab`).
    const KIND: &'static str;
    /// Plural resource name (`crontabs`), the path segment of the collection.
    const PLURAL: &'static str;
    /// Singular name (`crontab`).
    const SINGULAR: &'static str;
    /// Kind of list responses (`CronTabList`).
    const LIST_KIND: &'static str;
    /// Scope.
    const SCOPE: Scope;
    /// Whether the CRD enables the `status` subresource.
    const STATUS_SUBRESOURCE: bool;
    /// Whether the CRD enables the `scale` subresource.
    const SCALE_SUBRESOURCE: bool;

    /// The CRD name, `<plural>.<group>`.
    fn crd_name() -> String {
        format!("{}.{}", Self::PLURAL, Self::GROUP)
    }

    /// The CRD with this single version.
    fn crd() -> CustomResourceDefinition;

    /// The CRD as YAML, ready for `kubectl apply -f`.
    fn crd_yaml() -> Result<String, String> {
        crate::load::to_yaml(&Self::crd())
    }

    /// The object's metadata.
    fn metadata(&self) -> &ObjectMeta;

    /// The object's metadata, mutably.
    fn metadata_mut(&mut self) -> &mut ObjectMeta;

    /// The engine compiled from this type's own CRD version (built once per type).
    #[cfg(feature = "engine")]
    fn engine() -> Result<&'static Engine, &'static EngineError>;

    /// What the API server does on create: prune unknown fields, apply defaults,
    /// validate. On success `self` is replaced by the admitted object, exactly as
    /// [`Engine::admit`] would leave its JSON.
    #[cfg(feature = "engine")]
    fn admit(&mut self) -> Result<(), AdmitError> {
        let engine = Self::engine().map_err(engine_error)?;
        *self = engine.admit_typed(self)?;
        Ok(())
    }

    /// The errors the API server would report for this object as it is (no pruning or
    /// defaulting; see [`CustomResourceExt::admit`] for the full create path).
    #[cfg(feature = "engine")]
    fn validate(&self) -> ErrorList {
        let engine = match Self::engine() {
            Ok(e) => e,
            Err(e) => return ErrorList(vec![internal(e)]),
        };
        match serde_json::to_value(self) {
            Ok(v) => engine.validate(&v),
            Err(e) => ErrorList(vec![FieldError::new(
                ErrorType::Internal,
                Path::root(),
                BadValue::Omit,
                format!("cannot serialize the object: {e}"),
            )]),
        }
    }

    /// The collection path (`POST` to create, `GET` to list or watch):
    /// `/apis/{group}/{version}/namespaces/{ns}/{plural}`, or `/apis/{group}/{version}/{plural}`
    /// for cluster-scoped resources and for listing across all namespaces (`None`).
    fn collection_path(namespace: Option<&str>) -> Result<String, PathError> {
        path_spec::<Self>().collection(namespace)
    }

    /// The path of one object (`GET`, `PUT`, `PATCH`, `DELETE`):
    /// `.../namespaces/{ns}/{plural}/{name}`. Namespaced resources need a namespace,
    /// cluster-scoped ones refuse one; names that cannot be a path segment are refused.
    fn object_path(namespace: Option<&str>, name: &str) -> Result<String, PathError> {
        path_spec::<Self>().object(namespace, name)
    }

    /// `.../{plural}/{name}/status`, when the CRD enables the status subresource.
    fn status_path(namespace: Option<&str>, name: &str) -> Result<String, PathError> {
        path_spec::<Self>().subresource(namespace, name, "status", Self::STATUS_SUBRESOURCE)
    }

    /// `.../{plural}/{name}/scale`, when the CRD enables the scale subresource.
    fn scale_path(namespace: Option<&str>, name: &str) -> Result<String, PathError> {
        path_spec::<Self>().subresource(namespace, name, "scale", Self::SCALE_SUBRESOURCE)
    }
}

fn path_spec<K: CustomResourceExt>() -> PathSpec {
    PathSpec {
        group: K::GROUP,
        version: K::VERSION,
        kind: K::KIND,
        plural: K::PLURAL,
        namespaced: K::SCOPE == Scope::Namespaced,
    }
}

#[cfg(feature = "engine")]
fn internal(e: &EngineError) -> FieldError {
    FieldError::new(
        ErrorType::Internal,
        Path::root(),
        BadValue::Omit,
        e.to_string(),
    )
}

#[cfg(feature = "engine")]
fn engine_error(e: &EngineError) -> AdmitError {
    AdmitError::Invalid(ErrorList(vec![internal(e)]))
}

/// `CustomResourceExt::engine` for a derived root, built once per type: emitted by the
/// derive as `__engine_fn!("v1")` inside the impl, and empty without feature `engine` (the
/// derive cannot see crd-runtime's features). Not a public API.
#[cfg(feature = "engine")]
#[doc(hidden)]
#[macro_export]
macro_rules! __engine_fn {
    ($version:expr) => {
        fn engine() -> ::core::result::Result<&'static $crate::Engine, &'static $crate::EngineError>
        {
            static ENGINE: ::std::sync::OnceLock<
                ::core::result::Result<$crate::Engine, $crate::EngineError>,
            > = ::std::sync::OnceLock::new();
            ENGINE
                .get_or_init(|| {
                    $crate::Engine::for_crd(&<Self as $crate::CustomResourceExt>::crd(), $version)
                })
                .as_ref()
        }
    };
}

/// Without feature `engine`, derived roots have no `engine()`. Not a public API.
#[cfg(not(feature = "engine"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __engine_fn {
    ($version:expr) => {};
}
