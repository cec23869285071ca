//! What the controllers do to objects, through the same verbs as any client (so a
//! delete honours finalizers and preconditions, an update is a compare-and-swap with
//! its managed fields recorded), in-process instead of over HTTP.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{meta_mut, now, str_at};
use crate::api::request::{DeleteOptions, Propagation, WriteOptions};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage::{self, Target};
use crate::api::write::delete::delete;
use crate::api::write::{self, Tracking, Update};
use crate::store::ListOptions;

use super::identity::{self, Call};

/// A controller's handle on the API, writing as `manager`, each call made as the
/// controller's identity ([`identity`]).
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
    manager: &'static str,
    user: Arc<crd_runtime::rbac::UserInfo>,
}

/// What an update's mutation decided.
pub enum Mutation {
    /// Write this object.
    Write(Value),
    /// Nothing to change.
    Keep,
}

/// `None` for a 404 (the object is gone: nothing left to do), the answer or the other
/// errors as they are.
fn unless_missing<T>(answer: Result<T, ApiError>) -> Result<Option<T>, ApiError> {
    match answer {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.code == http::StatusCode::NOT_FOUND => Ok(None),
        Err(e) => Err(e),
    }
}

impl Client {
    /// A client writing as `manager` (the name `managedFields` records).
    pub fn new(shared: Arc<Shared>, manager: &'static str) -> Client {
        let user = Arc::new(identity::of_manager(manager));
        Client {
            shared,
            manager,
            user,
        }
    }

    /// The same client calling as `user` (a controller whose field manager name does
    /// not tell its identity).
    pub fn acting_as(mut self, user: crd_runtime::rbac::UserInfo) -> Client {
        self.user = Arc::new(user);
        self
    }

    /// Runs `work` as this client's call `verb` on `res` (authorized, audited, and
    /// with the controller as the request's caller).
    async fn call<T>(
        &self,
        verb: &'static str,
        (res, ns, name, sub): (&Resource, Option<&str>, &str, Subresource),
        work: impl std::future::Future<Output = Result<T, ApiError>>,
    ) -> Result<T, ApiError> {
        let call = Call {
            verb,
            res,
            ns,
            name,
            sub,
        };
        identity::call(&self.shared, &self.user, call, work).await
    }

    /// The server's state (registry, store).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The object, or `None` when it does not exist.
    pub async fn get(
        &self,
        res: &Resource,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>, ApiError> {
        let t = Target { res, ns, name };
        let work = async { Ok(storage::find(&self.shared, t).await?.map(|c| c.obj)) };
        self.call("get", (res, ns, name, Subresource::Main), work)
            .await
    }

    /// Every object of `res` (in `ns`, or everywhere).
    pub async fn list(&self, res: &Resource, ns: Option<&str>) -> Result<Vec<Value>, ApiError> {
        let work = async {
            let prefix = res.info().list_prefix(ns);
            let listed = self
                .shared
                .store
                .list(&prefix, ListOptions::default())
                .await
                .map_err(|e| ApiError::from_store(&res.info().q, "", e))?;
            storage::present(res, &listed.items).await
        };
        self.call("list", (res, ns, "", Subresource::Main), work)
            .await
    }

    /// Deletes the object with `propagation`, only if its uid is still `uid` (when
    /// given). `Ok(None)`: it was already gone; otherwise the answer (the object while
    /// it waits on finalizers, or a `Status`).
    pub async fn delete(
        &self,
        res: &Resource,
        ns: Option<&str>,
        name: &str,
        propagation: Option<Propagation>,
        uid: Option<&str>,
    ) -> Result<Option<Value>, ApiError> {
        let options = DeleteOptions {
            precondition_uid: uid.map(str::to_string),
            propagation,
            ..DeleteOptions::default()
        };
        let deleted = self.delete_with(res, ns, name, &options).await?;
        Ok(deleted.map(|(body, _)| body))
    }

    /// Deletes the object with `options`: `Ok(None)` when it was already gone;
    /// otherwise the answer and whether the object is gone now (`false`: it waits on
    /// its finalizers or its grace period).
    pub async fn delete_with(
        &self,
        res: &Resource,
        ns: Option<&str>,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<Option<(Value, bool)>, ApiError> {
        let work = delete(&self.shared, Target { res, ns, name }, options);
        let deleted = self
            .call("delete", (res, ns, name, Subresource::Main), work)
            .await;
        unless_missing(deleted.map(|reply| (reply.body, reply.removed)))
    }

    /// Creates `obj` in `ns` (admitted and validated as any client's create); the
    /// object as stored.
    pub async fn create(
        &self,
        res: &Resource,
        ns: Option<&str>,
        mut obj: Value,
    ) -> Result<Value, ApiError> {
        write::check_body(res, &mut obj, ns, None)?;
        let opts = WriteOptions::server(self.manager);
        let name = str_at(&obj, "/metadata/name").to_string();
        let work = async {
            write::create(
                &self.shared,
                res,
                ns,
                obj,
                &opts,
                Tracking::Update(self.manager),
            )
            .await
            .map(|w| w.obj)
            .map_err(|e| e.into_api())
        };
        self.call("create", (res, ns, &name, Subresource::Main), work)
            .await
    }

    /// Binds the pod `ns/name` to `node` through its `binding` subresource's rules
    /// (refused when it is assigned already, being deleted or gated); the pod bound.
    pub async fn bind(
        &self,
        pods: &Resource,
        ns: &str,
        name: &str,
        node: &str,
    ) -> Result<Value, ApiError> {
        use crate::api::kinds::builtin::core::pod::subresources;
        let binding = json!({
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": ns},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        });
        let t = Target {
            res: pods,
            ns: Some(ns),
            name,
        };
        let work = write::storage_update(&self.shared, t, false, |pod| {
            subresources::assign(pod, &binding, node, name)
        });
        self.call("create", (pods, Some(ns), name, Subresource::Binding), work)
            .await
    }

    /// Updates the object through `sub` with what `mutate` makes of the current one,
    /// read again and retried when another writer got there first. `Ok(None)`: the
    /// object does not exist.
    pub async fn update(
        &self,
        res: &Resource,
        ns: Option<&str>,
        name: &str,
        sub: Subresource,
        mutate: impl FnMut(&Value) -> Mutation,
    ) -> Result<Option<Value>, ApiError> {
        let info = res.info();
        // kube-controller-manager's controllers change a Pod itself with patches
        // (adoption, release, finalizer removal); this read-modify-write stands for one.
        let verb = if sub == Subresource::Main && info.q.group.is_empty() && info.q.plural == "pods"
        {
            "patch"
        } else {
            "update"
        };
        self.write_as(verb, res, ns, name, sub, mutate).await
    }

    /// [`Client::update`] authorized and audited as `verb` (a controller whose upstream
    /// twin patches).
    pub async fn write_as(
        &self,
        verb: &'static str,
        res: &Resource,
        ns: Option<&str>,
        name: &str,
        sub: Subresource,
        mut mutate: impl FnMut(&Value) -> Mutation,
    ) -> Result<Option<Value>, ApiError> {
        let opts = WriteOptions::server(self.manager);
        let u = Update {
            shared: &self.shared,
            target: Target { res, ns, name },
            sub,
            opts: &opts,
            tracking: Tracking::Update(self.manager),
        };
        let work = write::guaranteed_update(&u, None, |current| {
            Ok(match mutate(&current.obj) {
                Mutation::Write(v) => v,
                Mutation::Keep => current.obj.clone(),
            })
        });
        let written = self.call(verb, (res, ns, name, sub), work).await;
        unless_missing(written.map(|w| w.obj))
    }

    /// Records a core/v1 Event about `obj` as client-go's event recorder does (named
    /// after the object and the time; a cluster-scoped object's events go to
    /// `default`), from `component`.
    pub async fn event(
        &self,
        obj: &Value,
        event_type: &str,
        reason: &str,
        message: &str,
        component: &str,
    ) -> Result<(), ApiError> {
        let Some(events) = self.shared.registry.resolve("", "v1", "events") else {
            return Ok(());
        };
        let ns = match str_at(obj, "/metadata/namespace") {
            "" => "default",
            ns => ns,
        };
        let name = str_at(obj, "/metadata/name");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let at = now();
        let mut involved = json!({
            "apiVersion": obj["apiVersion"],
            "kind": obj["kind"],
            "name": name,
            "uid": str_at(obj, "/metadata/uid"),
        });
        if let Some(n) = obj.pointer("/metadata/namespace") {
            involved["namespace"] = n.clone();
        }
        let mut event = json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": format!("{name}.{nanos:x}"), "namespace": ns},
            "involvedObject": involved,
            "reason": reason,
            "message": message,
            "type": event_type,
            "source": {"component": component},
            "firstTimestamp": at,
            "lastTimestamp": at,
            "count": 1,
            "reportingComponent": component,
            "reportingInstance": "",
        });
        meta_mut(&mut event);
        let opts = WriteOptions::server(self.manager);
        let event_name = str_at(&event, "/metadata/name").to_string();
        let work = async {
            write::create(
                &self.shared,
                &events,
                Some(ns),
                event,
                &opts,
                Tracking::Update(self.manager),
            )
            .await
            .map(|_| ())
            .map_err(|e| e.into_api())
        };
        self.call(
            "create",
            (&events, Some(ns), &event_name, Subresource::Main),
            work,
        )
        .await
    }
}
