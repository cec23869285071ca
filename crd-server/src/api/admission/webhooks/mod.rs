//! MutatingAdmissionWebhook and ValidatingAdmissionWebhook, as kube-apiserver runs
//! them: the webhooks of the stored MutatingWebhookConfigurations and
//! ValidatingWebhookConfigurations ([`config`], followed in the store), matched to
//! each request ([`matcher`]), called over HTTPS with an `AdmissionReview`
//! ([`call`]) — mutating ones in order, their patches applied ([`mutating`]),
//! validating ones all at once ([`validating`]).

pub mod call;

pub mod configurations;
pub mod matcher;
pub mod mutating;
pub mod validating;

use std::sync::{Arc, RwLock};

use crd_runtime::KubeVersion;
use crd_runtime::admission::Attributes;

use crate::api::admission::{Backend, Warnings};
use crate::store::Store;
use configurations::{Current, HookSet};

/// The webhook configurations of a server.
pub struct Webhooks {
    mutating: Arc<Current>,
    validating: Arc<Current>,
    /// The followers: they hold the store, so they end with the plugin.
    tasks: Vec<tokio::task::AbortHandle>,
}

impl Webhooks {
    /// Starts following the webhook configurations in `store`.
    pub async fn start(store: Arc<dyn Store>, version: KubeVersion) -> Webhooks {
        let mut tasks = Vec::new();
        let mut currents = Vec::new();
        for prefix in [
            configurations::MUTATING_PREFIX,
            configurations::VALIDATING_PREFIX,
        ] {
            let (followed, revision) = configurations::load(store.as_ref(), prefix, version).await;
            let current: Arc<Current> = Arc::new(RwLock::new(Arc::new(HookSet::default())));
            configurations::publish(&current, &followed);
            let task = tokio::spawn(configurations::follow(
                store.clone(),
                prefix,
                Arc::downgrade(&current),
                followed,
                revision,
            ));
            tasks.push(task.abort_handle());
            currents.push(current);
        }
        let validating = currents.pop().unwrap_or_default();
        let mutating = currents.pop().unwrap_or_default();
        Webhooks {
            mutating,
            validating,
            tasks,
        }
    }

    fn snapshot(current: &Current) -> Arc<HookSet> {
        current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether no webhook is configured.
    pub fn is_idle(&self) -> bool {
        Self::snapshot(&self.mutating).hooks.is_empty()
            && Self::snapshot(&self.validating).hooks.is_empty()
    }

    /// Calls the mutating webhooks that match.
    pub async fn mutate(&self, shared: &Backend<'_>, attrs: &mut Attributes) -> Warnings {
        let set = Self::snapshot(&self.mutating);
        if set.hooks.is_empty() || exempt(attrs) {
            return Ok(Vec::new());
        }
        mutating::dispatch(&set, shared, attrs).await
    }

    /// Calls the validating webhooks that match.
    pub async fn validate(&self, shared: &Backend<'_>, attrs: &Attributes) -> Warnings {
        let set = Self::snapshot(&self.validating);
        if set.hooks.is_empty() || exempt(attrs) {
            return Ok(Vec::new());
        }
        validating::dispatch(&set, shared, attrs).await
    }
}

impl Drop for Webhooks {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// The admission configuration kinds are never sent to webhooks (a broken webhook
/// could otherwise lock out its own fix), as in kube-apiserver.
fn exempt(attrs: &Attributes) -> bool {
    attrs.kind.group == "admissionregistration.k8s.io"
        && matches!(
            attrs.kind.kind.as_str(),
            "ValidatingWebhookConfiguration"
                | "MutatingWebhookConfiguration"
                | "ValidatingAdmissionPolicy"
                | "ValidatingAdmissionPolicyBinding"
                | "MutatingAdmissionPolicy"
                | "MutatingAdmissionPolicyBinding"
        )
}
