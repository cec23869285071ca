//! [`CustomResourceExt`]: what `#[derive(CustomResource)]` gives a root type.

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

/// A custom resource type: its identity and its CRD.
pub trait CustomResourceExt: Sized {
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
}
