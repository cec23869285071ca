//! What the workload controllers share: their handle on the API with writes written
//! through to the shared informers ([`Api`], [`resources`]), how a controller is
//! wired to them ([`Wiring`]), the loop of their workers ([`work`]) running a
//! [`Reconciler`]'s passes, and the rules of kube-controller-manager's `pkg/controller` they all follow — Pods
//! ([`pods`]), controller references ([`owners`]), conditions ([`conditions`]),
//! int-or-percent values ([`intstr`]).

pub mod claiming;
pub mod conditions;
pub mod history;
pub mod intstr;
pub mod owners;
mod pod_control;
pub mod pods;
pub mod resources;
mod wiring;

pub use owners::owner_keys;
pub use pod_control::{create_pods, delete_pods};
pub use wiring::Wiring;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

use super::cache::{Cache, Event, Informer, key_of};
use super::client::{Client, Mutation};
use super::clock::Clock;
use super::options::Workloads;
use super::queue::Queue;
use crate::api::kinds::Subresource;
use crate::api::object::{is_deleting, str_at};
use crate::api::request::DeleteOptions;
use crate::api::status::ApiError;

/// The longest a failed item waits for its retry (client-go's default controller
/// limiter caps at 1000 s; the tests want less).
pub const MAX_RETRY: Duration = Duration::from_secs(30);

/// A controller's handle on the API: the client's writes, each written through to the
/// informer of its resource.
#[derive(Clone)]
pub struct Api {
    pub client: Client,
    pub cache: Arc<Cache>,
    pub clock: Clock,
    pub workloads: Arc<Workloads>,
}

impl Api {
    /// The informer of `group/v1 resource`, or an error naming what the server lacks.
    pub fn informer(&self, group: &str, resource: &str) -> Result<Arc<Informer>, String> {
        self.cache
            .informer(group, resource)
            .ok_or_else(|| format!("the server does not serve {resource}.{group}"))
    }

    /// The informers of `resources` (each `(group, resource)`), in their order; `None`
    /// when the server lacks one (the controller then has nothing to run on).
    pub fn informers<const N: usize>(
        &self,
        resources: [(&str, &str); N],
    ) -> Option<[Arc<Informer>; N]> {
        let found: Vec<Arc<Informer>> = resources
            .into_iter()
            .map(|(group, resource)| self.informer(group, resource).ok())
            .collect::<Option<_>>()?;
        found.try_into().ok()
    }

    /// The same handle calling as kube-apiserver's loopback user: for what a cluster's
    /// bootstrap creates rather than a controller (system namespaces, the nodes a kwok
    /// cluster is made with, installed manifests such as CRDs and the default
    /// StorageClass), which no controller role grants.
    pub fn as_bootstrap(&self) -> Api {
        Api {
            client: self
                .client
                .clone()
                .acting_as(crate::controllers::identity::of_manager("kube-apiserver")),
            ..self.clone()
        }
    }

    /// Creates `obj` in `ns` (`""`: cluster-scoped).
    pub async fn create(&self, inf: &Informer, ns: &str, obj: Value) -> Result<Value, ApiError> {
        let ns = (!ns.is_empty()).then_some(ns);
        let created = self.client.create(inf.resource(), ns, obj).await?;
        inf.wrote(&created);
        Ok(created)
    }

    /// Updates `ns/name` through `sub` with what `mutate` makes of it (read again on a
    /// conflict); `Ok(None)` when it is gone.
    pub async fn update(
        &self,
        inf: &Informer,
        ns: &str,
        name: &str,
        sub: Subresource,
        mutate: impl FnMut(&Value) -> Mutation,
    ) -> Result<Option<Value>, ApiError> {
        let ns = (!ns.is_empty()).then_some(ns);
        let written = self
            .client
            .update(inf.resource(), ns, name, sub, mutate)
            .await?;
        if let Some(obj) = &written {
            inf.wrote(obj);
        }
        Ok(written)
    }

    /// [`Api::update`] of the object `obj` (its namespace and name), only while the
    /// stored one has `obj`'s uid: another object of the same name is left alone.
    pub async fn update_same(
        &self,
        inf: &Informer,
        obj: &Value,
        sub: Subresource,
        mut mutate: impl FnMut(&Value) -> Mutation,
    ) -> Result<Option<Value>, ApiError> {
        let uid = &obj["metadata"]["uid"];
        let (ns, name) = (
            str_at(obj, "/metadata/namespace"),
            str_at(obj, "/metadata/name"),
        );
        self.update(inf, ns, name, sub, |current| {
            if current["metadata"]["uid"] != *uid {
                return Mutation::Keep;
            }
            mutate(current)
        })
        .await
    }

    /// Deletes `obj` (only while it has the same uid) with no grace period left, as
    /// a kubelet or the pod GC does once nothing runs any more.
    pub async fn delete_now(&self, inf: &Informer, obj: &Value) -> Result<(), ApiError> {
        let options = DeleteOptions {
            grace_period_seconds: Some(0),
            ..DeleteOptions::default()
        };
        self.delete(inf, obj, options).await
    }

    /// Deletes `obj` (only while it has the same uid) with `options`.
    pub async fn delete(
        &self,
        inf: &Informer,
        obj: &Value,
        mut options: DeleteOptions,
    ) -> Result<(), ApiError> {
        let meta = |f: &str| {
            obj.pointer(&format!("/metadata/{f}"))
                .and_then(Value::as_str)
        };
        let ns = meta("namespace").filter(|n| !n.is_empty());
        let name = meta("name").unwrap_or("");
        options.precondition_uid = meta("uid").map(str::to_string);
        match self
            .client
            .delete_with(inf.resource(), ns, name, &options)
            .await
        {
            Ok(Some((_, true))) | Ok(None) => inf.removed(obj),
            Ok(Some((body, false))) => inf.wrote(&body),
            // The object is not the one meant any more: nothing to delete.
            Err(e) if e.code == http::StatusCode::CONFLICT => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Records an Event about `obj` (best effort, as client-go's recorder).
    pub async fn event(&self, obj: &Value, kind: &str, reason: &str, message: &str, from: &str) {
        let _ = self.client.event(obj, kind, reason, message, from).await;
    }
}

/// What a pass over one item asks for next.
pub enum Next {
    /// Nothing until something changes.
    Done,
    /// Another pass after this long (a deadline, a `minReadySeconds`).
    After(Duration),
}

/// Runs `workers` workers over `queue` until aborted: each pass that fails is retried
/// after a doubling back-off, one that asks for another pass gets it then.
pub async fn work<T, F, Fut>(queue: Arc<Queue<T>>, workers: usize, sync: F)
where
    T: Clone + Eq + std::hash::Hash + Send + Sync + 'static,
    F: Fn(T) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Next, String>> + Send,
{
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..workers.max(1) {
        let (queue, sync) = (queue.clone(), sync.clone());
        tasks.spawn(async move {
            loop {
                let item = queue.get().await;
                match sync(item.clone()).await {
                    Ok(Next::Done) => queue.forget(&item),
                    Ok(Next::After(d)) => {
                        queue.forget(&item);
                        queue.add_after(item.clone(), d);
                    }
                    Err(_) => queue.retry(item.clone()),
                }
                queue.done(&item);
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}

/// Waits until each of `informers` has listed its objects (a controller's first
/// passes must see everything that already exists).
pub async fn synced(informers: &[&Arc<Informer>]) {
    for informer in informers {
        informer.synced().await;
    }
}

/// A controller whose workers make one pass per queue key (`ns/name`).
pub trait Reconciler: Send + Sync + 'static {
    /// One pass over the object of `key`.
    fn sync(&self, key: &str) -> impl Future<Output = Result<Next, String>> + Send;
}

/// The `sync` that [`work`] and [`work_with_clock`] run for `controller`: its
/// [`Reconciler::sync`] over each key taken from the queue.
pub fn each_key<C: Reconciler>(
    controller: Arc<C>,
) -> impl Fn(String) -> BoxFuture<'static, Result<Next, String>> + Clone + Send + Sync + 'static {
    move |key: String| {
        let c = controller.clone();
        Box::pin(async move { c.sync(&key).await })
    }
}

/// A work queue fed with the key of every change to `primary`'s objects (the
/// controller's own kind).
pub fn queue_of(primary: &Informer) -> Arc<Queue<String>> {
    let queue = Arc::new(Queue::new(MAX_RETRY));
    let q = queue.clone();
    primary.subscribe(Arc::new(move |e: &Event| q.add(e.key.clone())));
    queue
}

/// Feeds `queue` with the owners in `owners` (of `kind`) of every changed object of
/// `dependents`, as [`owner_keys`] finds them.
pub fn queue_owners(
    queue: &Arc<Queue<String>>,
    dependents: &Informer,
    owners: &Arc<Informer>,
    kind: &'static str,
    adopt_orphans: bool,
) {
    let (q, owners) = (queue.clone(), owners.clone());
    dependents.subscribe(Arc::new(move |e: &Event| {
        for key in owner_keys(&owners, kind, e, adopt_orphans) {
            q.add(key);
        }
    }));
}

/// [`work`], and besides it every object of `requeue` queued again whenever the
/// server's clock is moved (a deadline or a schedule may have passed).
pub async fn work_with_clock<F, Fut>(
    api: &Api,
    requeue: Arc<Informer>,
    queue: Arc<Queue<String>>,
    workers: usize,
    sync: F,
) where
    F: Fn(String) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Next, String>> + Send,
{
    let (q, mut moved) = (queue.clone(), api.clock.moved());
    let on_move = async move {
        while moved.changed().await.is_ok() {
            for obj in requeue.list(None) {
                q.add(key_of(&obj));
            }
        }
    };
    tokio::select! {
        _ = work(queue, workers, sync) => {}
        _ = on_move => {}
    }
}

/// The pass after the first of `pods` that is ready but not yet available becomes
/// available (ready for `min_ready` seconds on the server's clock); none: `Done`.
pub fn when_available(clock: &Clock, pods: &[Arc<Value>], min_ready: i64) -> Next {
    let now = clock.now();
    let soonest = pods
        .iter()
        .filter_map(|p| pods::available_at(p, min_ready, now))
        .min();
    match soonest {
        Some(at) => Next::After(clock.until(at) + Duration::from_millis(10)),
        None => Next::Done,
    }
}

/// The object of the queue key `key` in `inf`, unless it is gone or being deleted (a
/// pass then has nothing to do).
pub fn live(inf: &Informer, key: &str) -> Option<Arc<Value>> {
    inf.get_key(key).filter(|obj| !is_deleting(obj))
}

/// The object at `path` under `value`, each step made an empty object where it is
/// missing or not an object (to set a label, an annotation, a selector's field).
pub fn object_at<'a>(value: &'a mut Value, path: &[&str]) -> &'a mut Value {
    let mut at = value;
    for key in path {
        if !at.get(*key).is_some_and(Value::is_object) {
            at[*key] = serde_json::json!({});
        }
        at = &mut at[*key];
    }
    at
}

/// The namespace and name of a queue key (`ns/name`; `name` alone: cluster-scoped).
pub fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}
