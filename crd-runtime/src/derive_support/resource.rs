//! [`CustomResourceExt`]: what `#[derive(CustomResource)]` gives a root type.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::engine::{AdmitError, Engine, EngineError};
use crate::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use crate::model::{CustomResourceDefinition, ObjectMeta};

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

/// A custom resource type: its identity, its CRD, and the API server's admission
/// (prune, default, validate) bound to its own schema.
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
    /// Plural resource name (`crontabs`).
    const PLURAL: &'static str;
    /// Scope.
    const SCOPE: Scope;

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
    fn engine() -> Result<&'static Engine, &'static EngineError>;

    /// What the API server does on create: prune unknown fields, apply defaults,
    /// validate. On success `self` is replaced by the admitted object, exactly as
    /// [`Engine::admit`] would leave its JSON.
    fn admit(&mut self) -> Result<(), AdmitError> {
        let engine = Self::engine().map_err(engine_error)?;
        *self = engine.admit_typed(self)?;
        Ok(())
    }

    /// The errors the API server would report for this object as it is (no pruning or
    /// defaulting; see [`CustomResourceExt::admit`] for the full create path).
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
}

fn internal(e: &EngineError) -> FieldError {
    FieldError::new(
        ErrorType::Internal,
        Path::root(),
        BadValue::Omit,
        e.to_string(),
    )
}

fn engine_error(e: &EngineError) -> AdmitError {
    AdmitError::Invalid(ErrorList(vec![internal(e)]))
}
