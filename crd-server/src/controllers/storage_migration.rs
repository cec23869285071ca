//! Storage version migration, as kube-controller-manager's
//! `storage-version-migrator-controller` (with its migration runner): a
//! StorageVersionMigration (storagemigration.k8s.io/v1, served from 1.37) names a
//! resource; the oldest one not finished for that resource becomes `Running` (and its
//! CRD gets the `StorageMigrating` condition at the CRD's generation), every object is
//! rewritten in the storage version by a no-op update that carries the listed
//! `resourceVersion` — a `409 Conflict` means another writer stored it already, a 404
//! that it is gone, so both are skipped — and the migration ends `Succeeded` or
//! `Failed`. A CRD whose generation did not move meanwhile then has
//! `status.storedVersions` trimmed to its storage version, so an old version can be
//! removed. Every step is read again from the store, so another replica or a restart
//! picks up where this one stopped.
//!
//! [`trigger`] is kube-storage-version-migrator's trigger (off by default,
//! `--controllers=*,storage-version-migration-trigger`): it creates a migration for
//! every CRD whose `storedVersions` lists a version other than its storage version.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::AbortOnDrop;
use super::client::{Client, Mutation};
use super::informer::{Change, follow};
use super::queue::Queue;
use crate::api::kinds::builtin::storagemigration::migrations::condition_true;
use crate::api::kinds::crd::CRD_PREFIX;
use crate::api::kinds::crd::conditions::set_condition;
use crate::api::kinds::{Resource, Subresource};
use crate::api::object::{name_of, str_at};
use crate::api::state::Shared;
use crate::api::status::ApiError;

/// kube-controller-manager's name for the migrator (and its field manager).
pub const COMPONENT: &str = "storage-version-migrator-controller";
/// The trigger's name and field manager.
pub const TRIGGER: &str = "storage-version-migration-trigger";

const GROUP: &str = "storagemigration.k8s.io";
const PREFIX: &str = "/registry/storageversionmigrations/";
/// The CRD condition a running migration sets.
const STORAGE_MIGRATING: &str = "StorageMigrating";

/// The longest wait between retries of a failed pass.
const MAX_RETRY: Duration = Duration::from_secs(30);

/// `group` and `resource` of a migration's `spec.resource`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct GroupResource {
    group: String,
    resource: String,
}

impl GroupResource {
    fn of(migration: &Value) -> GroupResource {
        GroupResource {
            group: str_at(migration, "/spec/resource/group").to_string(),
            resource: str_at(migration, "/spec/resource/resource").to_string(),
        }
    }

    /// The name of the CRD that would serve it (`resource.group`).
    fn crd_name(&self) -> String {
        format!("{}.{}", self.resource, self.group)
    }
}

/// Runs the migrator until the task is aborted.
pub async fn run(shared: Arc<Shared>) {
    let Some(migrations) = shared
        .registry
        .resolve(GROUP, "v1", "storageversionmigrations")
    else {
        // Not served by this release.
        return;
    };
    let Some(crds) =
        shared
            .registry
            .resolve("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    else {
        return;
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let follower = tokio::spawn(follow(shared.store.clone(), PREFIX.into(), tx));
    let _stop = AbortOnDrop(follower.abort_handle());
    let migrator = Migrator {
        client: Client::new(shared, COMPONENT),
        migrations,
        crds,
    };
    let queue = Queue::<GroupResource>::new(MAX_RETRY);
    loop {
        tokio::select! {
            biased;
            resource = queue.get() => {
                match migrator.sync(&resource).await {
                    Ok(()) => queue.forget(&resource),
                    Err(_) => queue.retry(resource.clone()),
                }
                queue.done(&resource);
            }
            change = rx.recv() => match change {
                Some(Change::Put { kv, .. } | Change::Delete(kv)) => {
                    if let Ok(m) = crd_runtime::__private::depth::from_json_slice::<Value>(&kv.value) {
                        queue.add(GroupResource::of(&m));
                    }
                }
                Some(Change::Synced(_)) => {}
                None => return,
            },
        }
    }
}

struct Migrator {
    client: Client,
    migrations: Resource,
    crds: Resource,
}

fn finished(m: &Value) -> bool {
    condition_true(m, "Succeeded") || condition_true(m, "Failed")
}

fn running(m: &Value) -> bool {
    condition_true(m, "Running")
}

fn generation(obj: &Value) -> i64 {
    obj.pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Sets a `metav1.Condition` (with `observedGeneration`).
fn set(obj: &mut Value, kind: &str, status: bool, reason: &str, message: &str, observed: i64) {
    set_condition(obj, kind, status, reason, message);
    if let Some(c) = obj
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
        .and_then(|cs| cs.iter_mut().find(|c| c["type"] == kind))
    {
        c["observedGeneration"] = json!(observed);
    }
}

/// What one migration pass ended with.
enum Outcome {
    Succeeded,
    Failed(&'static str),
}

impl Migrator {
    /// One pass over the migrations of `resource`: finish a running one, or start the
    /// oldest waiting one and run it.
    async fn sync(&self, resource: &GroupResource) -> Result<(), ApiError> {
        let mut all: Vec<Value> = self
            .client
            .list(&self.migrations, None)
            .await?
            .into_iter()
            .filter(|m| GroupResource::of(m) == *resource)
            .collect();
        // Oldest first (creation time, then name), as the runner promotes them.
        all.sort_by(|a, b| {
            (str_at(a, "/metadata/creationTimestamp"), name_of(a))
                .cmp(&(str_at(b, "/metadata/creationTimestamp"), name_of(b)))
        });
        let next = match all.iter().find(|m| running(m) && !finished(m)) {
            Some(m) => m.clone(),
            None => match all.iter().find(|m| !running(m) && !finished(m)) {
                Some(m) => self.start(m, resource).await?,
                None => return Ok(()),
            },
        };
        let outcome = self.migrate(resource).await?;
        self.finish(&next, resource, outcome).await
    }

    /// Marks the CRD `StorageMigrating` and the migration `Running` at the store's
    /// current revision; the migration as written.
    async fn start(&self, m: &Value, resource: &GroupResource) -> Result<Value, ApiError> {
        let name = name_of(m).to_string();
        self.client
            .update(
                &self.crds,
                None,
                &resource.crd_name(),
                Subresource::Status,
                |crd| {
                    let mut crd = crd.clone();
                    let message = format!("Migration {name} is running");
                    let observed = generation(&crd);
                    set(
                        &mut crd,
                        STORAGE_MIGRATING,
                        true,
                        "MigrationRunning",
                        &message,
                        observed,
                    );
                    Mutation::Write(crd)
                },
            )
            .await?;
        let revision = self
            .client
            .shared()
            .store
            .current_revision()
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?;
        let started = self
            .client
            .update(&self.migrations, None, &name, Subresource::Status, |m| {
                let mut m = m.clone();
                if m.pointer("/status/resourceVersion").is_none_or(|v| v == "") {
                    m["status"]["resourceVersion"] = json!(revision.to_string());
                }
                let observed = generation(&m);
                set(
                    &mut m,
                    "Running",
                    true,
                    "MigrationRunning",
                    "The migration is running",
                    observed,
                );
                Mutation::Write(m)
            })
            .await?;
        started.ok_or_else(|| ApiError::not_found(&self.migrations.info().q, &name))
    }

    /// Rewrites every object of `resource` in its storage version.
    async fn migrate(&self, resource: &GroupResource) -> Result<Outcome, ApiError> {
        let Some(res) = self.storage_resource(resource) else {
            return Ok(Outcome::Failed("resource does not exist in discovery"));
        };
        let objects = match self.client.list(&res, None).await {
            Ok(objects) => objects,
            // Objects the server cannot read in the storage version (a conversion webhook
            // that fails) cannot be migrated: the migration fails, as its patches would
            // upstream. Other errors (the store unavailable) are retried.
            Err(e) if e.code == http::StatusCode::INTERNAL_SERVER_ERROR => {
                return Ok(Outcome::Failed("migration encountered unhandled error"));
            }
            Err(e) => return Err(e),
        };
        for obj in objects {
            let ns = obj.pointer("/metadata/namespace").and_then(Value::as_str);
            let listed_rv = str_at(&obj, "/metadata/resourceVersion").to_string();
            let uid = str_at(&obj, "/metadata/uid").to_string();
            let written = self
                .client
                .write_as(
                    "patch",
                    &res,
                    ns,
                    name_of(&obj),
                    Subresource::Main,
                    |current| {
                        if str_at(current, "/metadata/uid") != uid {
                            // Deleted and created again: stored by its own create.
                            return Mutation::Keep;
                        }
                        let mut again = current.clone();
                        // The listed revision is the precondition: a newer write has
                        // stored the object in the storage version already (409).
                        again["metadata"]["resourceVersion"] = json!(listed_rv);
                        Mutation::Write(again)
                    },
                )
                .await;
            match written {
                Ok(_) => {}
                Err(e)
                    if e.code == http::StatusCode::CONFLICT
                        || e.code == http::StatusCode::NOT_FOUND => {}
                Err(_) => return Ok(Outcome::Failed("migration encountered unhandled error")),
            }
        }
        Ok(Outcome::Succeeded)
    }

    /// The resource at its storage version: a CRD's storage version, or the version a
    /// built-in kind is served in.
    fn storage_resource(&self, gr: &GroupResource) -> Option<Resource> {
        let registry = &self.client.shared().registry;
        let custom = registry.custom();
        if let Some(kind) = custom
            .all()
            .iter()
            .find(|k| k.q.group == gr.group && k.q.plural == gr.resource)
        {
            return registry.resolve(&gr.group, &kind.storage_version, &gr.resource);
        }
        registry
            .resources()
            .into_iter()
            .find(|r| r.info().q.group == gr.group && r.info().q.plural == gr.resource)
    }

    /// Records the outcome on the migration, then on its CRD: `StorageMigrating` false
    /// and, when the CRD did not change meanwhile, `storedVersions` trimmed.
    async fn finish(
        &self,
        m: &Value,
        resource: &GroupResource,
        outcome: Outcome,
    ) -> Result<(), ApiError> {
        let name = name_of(m).to_string();
        let succeeded = matches!(outcome, Outcome::Succeeded);
        self.client
            .update(&self.migrations, None, &name, Subresource::Status, |m| {
                let mut m = m.clone();
                let observed = generation(&m);
                match &outcome {
                    Outcome::Succeeded => set(
                        &mut m,
                        "Succeeded",
                        true,
                        "StorageVersionMigrationSucceeded",
                        "",
                        observed,
                    ),
                    Outcome::Failed(why) => set(
                        &mut m,
                        "Failed",
                        true,
                        "StorageVersionMigrationFailed",
                        why,
                        observed,
                    ),
                }
                set(
                    &mut m,
                    "Running",
                    false,
                    "MigrationCompleted",
                    "Migration completed",
                    observed,
                );
                Mutation::Write(m)
            })
            .await?;
        self.client
            .update(&self.crds, None, &resource.crd_name(), Subresource::Status, |crd| {
                let mut crd = crd.clone();
                let generation = generation(&crd);
                let unchanged = crd
                    .pointer("/status/conditions")
                    .and_then(Value::as_array)
                    .and_then(|cs| cs.iter().find(|c| c["type"] == STORAGE_MIGRATING))
                    .is_some_and(|c| c["observedGeneration"] == json!(generation));
                let (reason, message) = match (succeeded, unchanged) {
                    (true, true) => ("MigrationSucceeded", "The migration has succeeded and the stored versions have been updated"),
                    (true, false) => ("MigrationSucceeded", "The migration has succeeded but the stored versions have not been updated due to a generation mismatch"),
                    (false, _) => ("MigrationFailed", "The migration has failed"),
                };
                set(&mut crd, STORAGE_MIGRATING, false, reason, message, generation);
                if succeeded && unchanged {
                    let storage = crd
                        .pointer("/spec/versions")
                        .and_then(Value::as_array)
                        .and_then(|vs| vs.iter().find(|v| v["storage"] == true))
                        .map(|v| v["name"].clone());
                    if let Some(storage) = storage {
                        crd["status"]["storedVersions"] = json!([storage]);
                    }
                }
                Mutation::Write(crd)
            })
            .await?;
        Ok(())
    }
}

/// kube-storage-version-migrator's trigger: a migration for every established CRD whose
/// `storedVersions` lists another version than its storage version, named after the
/// CRD and its generation (so each generation is migrated once).
pub async fn trigger(shared: Arc<Shared>) {
    let Some(migrations) = shared
        .registry
        .resolve(GROUP, "v1", "storageversionmigrations")
    else {
        return;
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let follower = tokio::spawn(follow(shared.store.clone(), CRD_PREFIX.into(), tx));
    let _stop = AbortOnDrop(follower.abort_handle());
    let client = Client::new(shared, TRIGGER);
    let queue = Queue::<String>::new(MAX_RETRY);
    loop {
        tokio::select! {
            biased;
            name = queue.get() => {
                match request_migration(&client, &migrations, &name).await {
                    Ok(()) => queue.forget(&name),
                    Err(_) => queue.retry(name.clone()),
                }
                queue.done(&name);
            }
            change = rx.recv() => match change {
                Some(Change::Put { kv, .. }) => {
                    if let Ok(crd) = crd_runtime::__private::depth::from_json_slice::<Value>(&kv.value) {
                        queue.add(name_of(&crd).to_string());
                    }
                }
                Some(_) => {}
                None => return,
            },
        }
    }
}

/// The storage version of a CRD object, and whether `storedVersions` lists another.
fn stale_versions(crd: &Value) -> Option<String> {
    let storage = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)?
        .iter()
        .find(|v| v["storage"] == true)?["name"]
        .as_str()?
        .to_string();
    let stored = crd
        .pointer("/status/storedVersions")
        .and_then(Value::as_array)?;
    stored
        .iter()
        .any(|v| v != storage.as_str())
        .then_some(storage)
}

async fn request_migration(
    client: &Client,
    migrations: &Resource,
    crd_name: &str,
) -> Result<(), ApiError> {
    let crds = client
        .shared()
        .registry
        .resolve("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .ok_or_else(|| ApiError::internal("CustomResourceDefinitions are not served"))?;
    let Some(crd) = client.get(&crds, None, crd_name).await? else {
        return Ok(());
    };
    let established = condition_true(&crd, "Established");
    if !established || stale_versions(&crd).is_none() {
        return Ok(());
    }
    let migration = json!({
        "apiVersion": format!("{GROUP}/v1"),
        "kind": "StorageVersionMigration",
        "metadata": {"name": format!("{crd_name}-{}", generation(&crd))},
        "spec": {"resource": {
            "group": str_at(&crd, "/spec/group"),
            "resource": str_at(&crd, "/spec/names/plural"),
        }},
    });
    match client.create(migrations, None, migration).await {
        Ok(_) => Ok(()),
        Err(e) if e.code == http::StatusCode::CONFLICT => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_versions_are_the_stored_ones_besides_the_storage_version() {
        let crd = |stored: Value| {
            json!({"spec": {"versions": [{"name": "v1", "storage": false}, {"name": "v2", "storage": true}]},
                   "status": {"storedVersions": stored}})
        };
        assert_eq!(stale_versions(&crd(json!(["v1", "v2"]))), Some("v2".into()));
        assert_eq!(stale_versions(&crd(json!(["v2"]))), None);
    }

    #[test]
    fn conditions_carry_the_generation_they_saw() {
        let mut m = json!({"metadata": {"generation": 3}});
        set(
            &mut m,
            "Running",
            true,
            "MigrationRunning",
            "The migration is running",
            3,
        );
        set(
            &mut m,
            "Running",
            false,
            "MigrationCompleted",
            "Migration completed",
            3,
        );
        let c = &m["status"]["conditions"][0];
        assert_eq!(
            (c["status"].as_str(), c["reason"].as_str()),
            (Some("False"), Some("MigrationCompleted"))
        );
        assert_eq!(c["observedGeneration"], 3);
        assert_eq!(m["status"]["conditions"].as_array().map(Vec::len), Some(1));
    }
}
