//! MutatingAdmissionWebhook and ValidatingAdmissionWebhook (being built).

use std::sync::Arc;

use crd_runtime::KubeVersion;
use crd_runtime::admission::Attributes;

use crate::api::kinds::Resource;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::store::Store;

/// The webhook configurations of a server.
pub struct Webhooks {}

impl Webhooks {
    /// Starts following the webhook configurations in `store`.
    pub async fn start(_store: Arc<dyn Store>, _version: KubeVersion) -> Webhooks {
        Webhooks {}
    }

    /// Whether no webhook is configured.
    pub fn is_idle(&self) -> bool {
        true
    }

    /// Calls the mutating webhooks that match.
    pub async fn mutate(
        &self,
        _shared: &Shared,
        _res: &Resource,
        _attrs: &mut Attributes,
    ) -> Result<Vec<String>, ApiError> {
        Ok(Vec::new())
    }

    /// Calls the validating webhooks that match.
    pub async fn validate(
        &self,
        _shared: &Shared,
        _res: &Resource,
        _attrs: &Attributes,
    ) -> Result<Vec<String>, ApiError> {
        Ok(Vec::new())
    }
}
