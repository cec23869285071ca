//! MutatingAdmissionPolicy and ValidatingAdmissionPolicy (being built).

use std::sync::Arc;

use crd_runtime::KubeVersion;
use crd_runtime::admission::Attributes;

use crate::api::kinds::Resource;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::store::Store;

/// The admission policies and bindings of a server.
pub struct Policies {}

impl Policies {
    /// Starts following the policies, bindings in `store`.
    pub async fn start(_store: Arc<dyn Store>, _version: KubeVersion) -> Policies {
        Policies {}
    }

    /// Whether no policy is bound.
    pub fn is_idle(&self) -> bool {
        true
    }

    /// Applies the mutating policies that match.
    pub async fn mutate(
        &self,
        _shared: &Shared,
        _res: &Resource,
        _attrs: &mut Attributes,
    ) -> Result<Vec<String>, ApiError> {
        Ok(Vec::new())
    }

    /// Evaluates the validating policies that match.
    pub async fn validate(
        &self,
        _shared: &Shared,
        _res: &Resource,
        _attrs: &Attributes,
    ) -> Result<Vec<String>, ApiError> {
        Ok(Vec::new())
    }
}
