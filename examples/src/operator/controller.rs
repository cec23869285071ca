//! The reconcile loop: children applied, status reported, Events recorded, a
//! finalizer guarding the site's deletion.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::api::{Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{Event as Finalizer, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use serde_json::json;

use super::children;
use super::site::StaticSite;

/// The field manager of everything the operator writes.
pub const FIELD_MANAGER: &str = "site-operator";

/// The finalizer the operator puts on every site.
pub const FINALIZER: &str = "sites.example.com/cleanup";

/// What a reconcile can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the API server failed.
    #[error("{0}")]
    Kube(#[from] kube::Error),
    /// The site has no namespace or uid yet (not as stored).
    #[error("site {0} has no namespace or uid")]
    NotStored(String),
    /// Adding or removing the finalizer, or the reconcile inside it, failed.
    #[error("{0}")]
    Finalizer(#[source] Box<kube::runtime::finalizer::Error<Error>>),
}

/// What every reconcile shares.
pub struct Context {
    /// The client.
    pub client: Client,
    /// Writes the Events of every reconcile.
    pub recorder: Recorder,
}

impl Context {
    /// A context whose Events are reported by `instance` of the operator.
    pub fn new(client: Client, instance: &str) -> Context {
        let reporter = Reporter {
            controller: FIELD_MANAGER.into(),
            instance: Some(instance.into()),
        };
        Context {
            recorder: Recorder::new(client.clone(), reporter),
            client,
        }
    }
}

/// Runs the controller over every namespace (or one) until `shutdown` completes.
pub async fn run(
    ctx: Arc<Context>,
    namespace: Option<String>,
    shutdown: impl std::future::Future<Output = ()> + Send + Sync + 'static,
) {
    let api = |client: Client| -> (Api<StaticSite>, Api<ConfigMap>, Api<Deployment>) {
        match namespace.as_deref() {
            Some(ns) => (
                Api::namespaced(client.clone(), ns),
                Api::namespaced(client.clone(), ns),
                Api::namespaced(client, ns),
            ),
            None => (
                Api::all(client.clone()),
                Api::all(client.clone()),
                Api::all(client),
            ),
        }
    };
    let (sites, pages, deployments) = api(ctx.client.clone());
    let children = watcher::Config::default().labels(children::SITE_LABEL);
    Controller::new(sites, watcher::Config::default())
        .owns(pages, children.clone())
        .owns(deployments, children)
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, ctx)
        // Failed reconciles are retried by `error_policy`; nothing else to do per result.
        .for_each(|_| futures::future::ready(()))
        .await;
}

async fn reconcile(site: Arc<StaticSite>, ctx: Arc<Context>) -> Result<Action, Error> {
    let ns = site
        .namespace()
        .ok_or_else(|| Error::NotStored(site.name_any()))?;
    let sites: Api<StaticSite> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&sites, FINALIZER, site, |event| async {
        match event {
            Finalizer::Apply(site) => apply(&site, &ctx).await,
            Finalizer::Cleanup(site) => cleanup(&site, &ctx).await,
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

fn error_policy(_site: Arc<StaticSite>, _error: &Error, _ctx: Arc<Context>) -> Action {
    Action::requeue(Duration::from_secs(5))
}

/// Applies the children, then reports what the Deployment says.
async fn apply(site: &StaticSite, ctx: &Context) -> Result<Action, Error> {
    let ns = site
        .namespace()
        .ok_or_else(|| Error::NotStored(site.name_any()))?;
    let owner = children::owner_reference(site).ok_or_else(|| Error::NotStored(site.name_any()))?;
    // `force`: the operator is the authority on the fields it sets; a hand edit of one
    // of them is taken back on the next reconcile.
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let pages = children::pages(site, &owner);
    Api::<ConfigMap>::namespaced(ctx.client.clone(), &ns)
        .patch(&children::pages_name(site), &params, &Patch::Apply(&pages))
        .await?;
    let deployment = children::deployment(site, &owner);
    let deployment = Api::<Deployment>::namespaced(ctx.client.clone(), &ns)
        .patch(&site.name_any(), &params, &Patch::Apply(&deployment))
        .await?;

    let available = deployment
        .status
        .as_ref()
        .and_then(|s| s.available_replicas)
        .unwrap_or(0);
    // A rollout that stopped progressing leaves the site not ready, whatever still runs.
    let stalled = stalled(&deployment);
    let ready = available >= site.spec.replicas && stalled.is_none();
    let was_ready = site.ready().map(|c| c.status == "True");
    let was_stalled = site
        .ready()
        .is_some_and(|c| c.reason == PROGRESS_DEADLINE_EXCEEDED);
    let condition = ready_condition(site, ready, available, was_ready, stalled.as_deref());
    let status = json!({
        "apiVersion": StaticSite::api_version(&()),
        "kind": StaticSite::kind(&()),
        "status": {
            "observedGeneration": site.metadata.generation,
            "availableReplicas": available,
            "conditions": [condition],
        }
    });
    Api::<StaticSite>::namespaced(ctx.client.clone(), &ns)
        .patch_status(&site.name_any(), &params, &Patch::Apply(&status))
        .await?;

    if let Some(message) = stalled.as_deref().filter(|_| !was_stalled) {
        let event = Event {
            type_: EventType::Warning,
            reason: PROGRESS_DEADLINE_EXCEEDED.into(),
            note: Some(message.to_string()),
            action: "Reconcile".into(),
            secondary: None,
        };
        ctx.recorder.publish(&event, &site.object_ref(&())).await?;
    } else if was_ready != Some(ready) {
        let (type_, reason, note) = if ready {
            (
                EventType::Normal,
                "Ready",
                format!("{available} of {} copies available", site.spec.replicas),
            )
        } else {
            (
                EventType::Normal,
                "Progressing",
                format!(
                    "waiting for {} copies, {available} available",
                    site.spec.replicas
                ),
            )
        };
        let event = Event {
            type_,
            reason: reason.into(),
            note: Some(note),
            action: "Reconcile".into(),
            secondary: None,
        };
        ctx.recorder.publish(&event, &site.object_ref(&())).await?;
    }
    Ok(Action::requeue(Duration::from_secs(300)))
}

/// The reason the deployment controller gives a rollout that stopped progressing.
pub const PROGRESS_DEADLINE_EXCEEDED: &str = "ProgressDeadlineExceeded";

/// The Deployment's message when its rollout exceeded its progress deadline
/// (`Progressing=False`, reason `ProgressDeadlineExceeded`, as `kubectl rollout status`
/// reads it).
fn stalled(deployment: &Deployment) -> Option<String> {
    let conditions = deployment.status.as_ref()?.conditions.as_ref()?;
    conditions
        .iter()
        .find(|c| {
            c.type_.as_deref() == Some("Progressing")
                && c.status.as_deref() == Some("False")
                && c.reason.as_deref() == Some(PROGRESS_DEADLINE_EXCEEDED)
        })
        .map(|c| c.message.clone().unwrap_or_default())
}

/// The `Ready` condition; its transition time moves only when its status changes.
fn ready_condition(
    site: &StaticSite,
    ready: bool,
    available: i32,
    was: Option<bool>,
    stalled: Option<&str>,
) -> Condition {
    let status = if ready { "True" } else { "False" };
    let last_transition_time = match (site.ready(), was == Some(ready)) {
        (Some(old), true) => old.last_transition_time.clone(),
        _ => Time(k8s_openapi::jiff::Timestamp::now()),
    };
    Condition {
        type_: "Ready".into(),
        status: status.into(),
        reason: match (ready, stalled) {
            (true, _) => "Available",
            (false, Some(_)) => PROGRESS_DEADLINE_EXCEEDED,
            (false, None) => "Progressing",
        }
        .into(),
        message: match stalled {
            Some(why) => format!("{available}/{} copies available: {why}", site.spec.replicas),
            None => format!("{available}/{} copies available", site.spec.replicas),
        },
        observed_generation: site.metadata.generation,
        last_transition_time,
    }
}

/// The site is going: its children go with it through their owner references (the
/// garbage collector's job); the operator records that it let go.
async fn cleanup(site: &StaticSite, ctx: &Context) -> Result<Action, Error> {
    let event = Event {
        type_: EventType::Normal,
        reason: "Deleting".into(),
        note: Some(format!("site {} released", site.name_any())),
        action: "Cleanup".into(),
        secondary: None,
    };
    ctx.recorder.publish(&event, &site.object_ref(&())).await?;
    Ok(Action::await_change())
}
