//! `validatingadmissionpolicy-status-controller`: writes each ValidatingAdmissionPolicy's
//! `status.typeChecking` and `status.observedGeneration` through the status subresource
//! (what to write is decided by [`crate::api::admission::policies::type_checking`]).

use std::sync::Arc;

use serde_json::Value;

use super::client::{Client, Mutation};
use crate::api::admission::policies::type_checking::{self as status, Pending};
use crate::api::kinds::Subresource;
use crate::api::state::Shared;

/// The manager the controller writes as (its name in kube-controller-manager).
const MANAGER: &str = "validatingadmissionpolicy-status-controller";

/// Runs the controller until the task is aborted.
pub async fn run(shared: Arc<Shared>) {
    let Some(res) = shared.registry.resolve(
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicies",
    ) else {
        return;
    };
    let client = Client::new(shared.clone(), MANAGER);
    let write = |p: Pending| {
        let (client, res) = (client.clone(), res.clone());
        async move {
            let mutate = |current: &Value| {
                // Only the generation type-checked, and only once.
                if !status::outdated(current, p.generation) {
                    return Mutation::Keep;
                }
                let mut next = current.clone();
                next["status"] = p.status.clone();
                Mutation::Write(next)
            };
            client
                .update(&res, None, &p.name, Subresource::Status, mutate)
                .await
                .map(|_| ())
                .map_err(|e| e.message)
        }
    };
    let registry = shared.registry.clone();
    let schema_of = move |group: &str, version: &str, resource: &str| {
        let res = registry.resolve(group, version, resource)?;
        Some((res.info().q.kind.clone(), res.schema()?.clone()))
    };
    status::run(&shared.admission.policies, &schema_of, write).await;
}
