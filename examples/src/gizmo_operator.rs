//! The Gizmo operator: installs the three-version Gizmo CRD with its conversion webhook
//! and runs a kube-runtime `Controller` over the storage version, `gizmo::v1`, that
//! reports in `status` what each Gizmo shows (`cargo run --example versioned-operator`).
//!
//! Clients of `v1alpha1` and `v1beta1` read the same objects through the webhook;
//! the controller only ever sees `v1`.

use std::sync::Arc;
use std::time::Duration;

use crd_runtime::model::WebhookClientConfig;
use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use kube::{Api, Client, ResourceExt};
use serde_json::json;

use crate::gizmo::{self, v1};

/// The field manager of what the operator writes.
pub const FIELD_MANAGER: &str = "gizmo-operator";

/// The `phase` of a Gizmo whose spec the operator has reconciled.
pub const SHOWING: &str = "Showing";

/// What installing the CRD can fail with.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The CRD could not be built (the versions do not merge).
    #[error("{0}")]
    Crd(#[from] crd_runtime::MergeError),
    /// A request to the API server failed.
    #[error("{0}")]
    Kube(#[from] kube::Error),
    /// The CRD is not `Established` after the wait.
    #[error("the CRD {name} is not Established after {waited:?}")]
    NotEstablished {
        /// The CRD's name.
        name: String,
        /// How long it was waited for.
        waited: Duration,
    },
}

/// Creates or updates the Gizmo CRD (server-side apply), its conversion webhook at
/// `webhook`, and waits up to 20 s for it to be `Established`.
pub async fn install_crd(
    client: Client,
    webhook: WebhookClientConfig,
) -> Result<CustomResourceDefinition, InstallError> {
    let crd = gizmo::crd_with_webhook(webhook)?;
    let name = crd.metadata.name.clone().unwrap_or_default();
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let params = PatchParams::apply(FIELD_MANAGER).force();
    crds.patch(&name, &params, &Patch::Apply(&crd)).await?;
    let (step, steps) = (Duration::from_millis(100), 200);
    for _ in 0..steps {
        let current = crds.get(&name).await?;
        let established = current
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| {
                c.iter()
                    .any(|c| c.type_ == "Established" && c.status == "True")
            });
        if established {
            return Ok(current);
        }
        tokio::time::sleep(step).await;
    }
    Err(InstallError::NotEstablished {
        name,
        waited: step * steps,
    })
}

/// Runs the controller over every namespace (or one) until `shutdown` completes.
pub async fn run(
    client: Client,
    namespace: Option<String>,
    shutdown: impl std::future::Future<Output = ()> + Send + Sync + 'static,
) {
    let gizmos: Api<v1::Gizmo> = match namespace.as_deref() {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    };
    Controller::new(gizmos, watcher::Config::default())
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, Arc::new(client))
        // Failed reconciles are retried by `error_policy`; nothing else to do per result.
        .for_each(|_| futures::future::ready(()))
        .await;
}

/// The status the operator reports for `gizmo`.
pub fn desired_status(gizmo: &v1::Gizmo) -> gizmo::v1::GizmoStatus {
    let spec = &gizmo.spec;
    let how = match spec.mode {
        v1::Mode::Steady => "steady".to_string(),
        v1::Mode::Blink => format!("blinking every {} ms", spec.blink_millis),
        v1::Mode::Scroll => "scrolling".to_string(),
    };
    let colors = if spec.palette.is_empty() {
        String::new()
    } else {
        format!(" in {}", spec.palette.join("/"))
    };
    let lights = match spec.lights {
        1 => "1 light".to_string(),
        n => format!("{n} lights"),
    };
    v1::GizmoStatus {
        phase: Some(SHOWING.into()),
        shown: Some(format!("{:?} on {lights}, {how}{colors}", spec.message)),
        observed_generation: gizmo.metadata.generation,
    }
}

async fn reconcile(gizmo: Arc<v1::Gizmo>, client: Arc<Client>) -> Result<Action, kube::Error> {
    let status = desired_status(&gizmo);
    // Writing an unchanged status would only wake the controller again.
    if gizmo.status.as_ref() != Some(&status) {
        let api: Api<v1::Gizmo> = match gizmo.namespace() {
            Some(ns) => Api::namespaced((*client).clone(), &ns),
            None => Api::all((*client).clone()),
        };
        api.patch_status(
            &gizmo.name_any(),
            &PatchParams::default(),
            &Patch::Merge(json!({ "status": status })),
        )
        .await?;
    }
    Ok(Action::requeue(Duration::from_secs(300)))
}

fn error_policy(_gizmo: Arc<v1::Gizmo>, _error: &kube::Error, _client: Arc<Client>) -> Action {
    Action::requeue(Duration::from_secs(2))
}
