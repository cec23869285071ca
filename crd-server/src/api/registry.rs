//! Which custom resources are served: one [`CustomKind`] per established CRD, rebuilt
//! from the stored CRDs by a watch on their keys, so every replica sharing a store (etcd)
//! serves the same kinds and a CRD written through one replica appears on all of them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crd_runtime::engine::{Engine, EngineOptions};
use crd_runtime::model::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceSubresourceScale,
    JSONSchemaProps,
};
use futures::StreamExt;
use serde_json::Value;
use tokio::sync::watch;

use super::status::Qualified;
use crate::store::{EventKind, ListOptions, Revision, Store, WatchItem};

/// Where CRDs are stored (kube-apiserver's key).
pub const CRD_PREFIX: &str = "/registry/apiextensions.k8s.io/customresourcedefinitions/";

/// One served version of a custom resource.
pub struct ServedVersion {
    /// Version name.
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// The admission engine (with CEL), or why it could not be built.
    pub engine: Result<Arc<Engine>, String>,
    /// The version's schema.
    pub schema: Option<JSONSchemaProps>,
    /// Status subresource on.
    pub status: bool,
    /// Scale subresource.
    pub scale: Option<CustomResourceSubresourceScale>,
    /// Printer columns.
    pub columns: Vec<CustomResourceColumnDefinition>,
    /// `selectableFields` json paths.
    pub selectable: Vec<String>,
    /// `deprecationWarning` (or the default text) when `deprecated`.
    pub warning: Option<String>,
}

/// A custom resource kind served from a CRD.
pub struct CustomKind {
    /// The CRD's name (`crontabs.stable.example.com`).
    pub crd_name: String,
    /// Group, plural, kind.
    pub q: Qualified,
    /// Singular name.
    pub singular: String,
    /// List kind.
    pub list_kind: String,
    /// Namespaced scope.
    pub namespaced: bool,
    /// Short names.
    pub short_names: Vec<String>,
    /// Categories.
    pub categories: Vec<String>,
    /// Versions in the CRD's order.
    pub versions: Vec<ServedVersion>,
    /// The CRD as stored (for OpenAPI).
    pub crd: CustomResourceDefinition,
    /// How objects convert between versions.
    pub conversion: super::conversion::Strategy,
    /// The storage version's name.
    pub storage_version: String,
}

impl CustomKind {
    /// Builds the kind of an established CRD.
    pub fn from_crd(crd: CustomResourceDefinition, options: EngineOptions) -> CustomKind {
        let names = &crd.spec.names;
        let versions = crd
            .spec
            .versions
            .iter()
            .map(|v| {
                let schema = v.open_api_schema().cloned();
                // The engine runs the schema and its CEL rules.
                let engine = Engine::for_crd_with(&crd, &v.name, options)
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                let sub = v.subresources.as_ref();
                let warning = (v.deprecated == Some(true)).then(|| {
                    v.deprecation_warning.clone().unwrap_or_else(|| {
                        format!("{}/{} {} is deprecated", crd.spec.group, v.name, names.kind)
                    })
                });
                ServedVersion {
                    name: v.name.clone(),
                    served: v.served,
                    storage: v.storage,
                    engine,
                    schema,
                    status: sub.is_some_and(|s| s.status.is_some()),
                    scale: sub.and_then(|s| s.scale.clone()),
                    columns: v.additional_printer_columns.clone().unwrap_or_default(),
                    selectable: v
                        .selectable_fields
                        .iter()
                        .flatten()
                        .map(|f| f.json_path.clone())
                        .collect(),
                    warning,
                }
            })
            .collect();
        CustomKind {
            crd_name: crd.name().to_string(),
            q: Qualified {
                group: crd.spec.group.clone(),
                plural: names.plural.clone(),
                kind: names.kind.clone(),
            },
            singular: names
                .singular
                .clone()
                .unwrap_or_else(|| names.kind.to_lowercase()),
            list_kind: names
                .list_kind
                .clone()
                .unwrap_or_else(|| format!("{}List", names.kind)),
            namespaced: crd.spec.scope != "Cluster",
            short_names: names.short_names.clone().unwrap_or_default(),
            categories: names.categories.clone().unwrap_or_default(),
            versions,
            conversion: super::conversion::Strategy::of(&crd),
            storage_version: crd
                .spec
                .versions
                .iter()
                .find(|v| v.storage)
                .map(|v| v.name.clone())
                .unwrap_or_default(),
            crd,
        }
    }

    /// A served version by name.
    pub fn version(&self, name: &str) -> Option<&ServedVersion> {
        self.versions.iter().find(|v| v.name == name && v.served)
    }

    /// Where objects of this kind are stored: `/registry/{group}/{plural}/`.
    pub fn prefix(&self) -> String {
        format!("/registry/{}/{}/", self.q.group, self.q.plural)
    }
}

/// The served kinds at one moment.
#[derive(Default)]
pub struct Kinds {
    by_resource: HashMap<(String, String), Arc<CustomKind>>,
}

impl Kinds {
    /// The kind served as `plural` in `group`.
    pub fn get(&self, group: &str, plural: &str) -> Option<Arc<CustomKind>> {
        self.by_resource
            .get(&(group.to_string(), plural.to_string()))
            .cloned()
    }

    /// Every kind, sorted by group then plural.
    pub fn all(&self) -> Vec<Arc<CustomKind>> {
        let mut all: Vec<_> = self.by_resource.values().cloned().collect();
        all.sort_by(|a, b| (&a.q.group, &a.q.plural).cmp(&(&b.q.group, &b.q.plural)));
        all
    }
}

/// The registry: a snapshot of the served kinds and the store revision it reflects.
pub struct Registry {
    /// The Kubernetes release whose validation the engines follow.
    options: EngineOptions,
    kinds: RwLock<Arc<Kinds>>,
    seen: watch::Sender<Revision>,
    /// Namespaces known to exist (followed by a watch; a miss is checked in the store).
    namespaces: Arc<RwLock<HashSet<String>>>,
    /// The tasks following CRDs and namespaces: they hold the store and the registry,
    /// so they are aborted when the API goes away ([`Registry::stop`]).
    tasks: std::sync::Mutex<Vec<tokio::task::AbortHandle>>,
}

/// Whether a stored CRD serves objects (its `Established` condition).
fn established(crd: &Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Established" && c["status"] == "True")
        })
}

impl Registry {
    /// Loads the stored CRDs and keeps following them in the background (until the
    /// store's watch ends).
    pub async fn start(
        store: Arc<dyn Store>,
        options: EngineOptions,
    ) -> Result<Arc<Registry>, crate::store::StoreError> {
        let listed = store.list(CRD_PREFIX, ListOptions::default()).await?;
        let mut crds: HashMap<String, Value> = HashMap::new();
        for kv in &listed.items {
            if let Ok(v) = serde_json::from_slice::<Value>(&kv.value) {
                crds.insert(kv.key.clone(), v);
            }
        }
        let (seen, _) = watch::channel(listed.revision);
        let namespaces = Arc::new(RwLock::new(HashSet::new()));
        let registry = Arc::new(Registry {
            options,
            kinds: RwLock::new(Arc::new(Kinds::default())),
            seen,
            namespaces: namespaces.clone(),
            tasks: std::sync::Mutex::new(Vec::new()),
        });
        let namespace_task = tokio::spawn(follow_namespaces(
            store.clone(),
            Arc::downgrade(&namespaces),
        ));
        registry.rebuild(&crds);
        let follower = registry.clone();
        let mut revision = listed.revision;
        let crd_task = tokio::spawn(async move {
            loop {
                let mut events = match store.watch(CRD_PREFIX, revision).await {
                    Ok(w) => w,
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        continue;
                    }
                };
                while let Some(item) = events.next().await {
                    match item {
                        Ok(WatchItem::Event(e)) => {
                            revision = e.kv.mod_revision;
                            match e.kind {
                                EventKind::Put => {
                                    if let Ok(v) = serde_json::from_slice(&e.kv.value) {
                                        crds.insert(e.kv.key.clone(), v);
                                    }
                                }
                                EventKind::Delete => {
                                    crds.remove(&e.kv.key);
                                }
                            }
                            follower.rebuild(&crds);
                            follower.seen.send_replace(revision);
                        }
                        Ok(WatchItem::Progress(r)) => {
                            revision = revision.max(r);
                            follower.seen.send_replace(revision);
                        }
                        Err(_) => break,
                    }
                }
                if Arc::strong_count(&follower) == 1 {
                    return; // the server is gone
                }
                // The watch broke (compaction, etcd restart): start over from a list.
                match store.list(CRD_PREFIX, ListOptions::default()).await {
                    Ok(listed) => {
                        crds = listed
                            .items
                            .iter()
                            .filter_map(|kv| {
                                serde_json::from_slice(&kv.value)
                                    .ok()
                                    .map(|v| (kv.key.clone(), v))
                            })
                            .collect();
                        revision = listed.revision;
                        follower.rebuild(&crds);
                        follower.seen.send_replace(revision);
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        });
        *registry.tasks.lock().unwrap_or_else(|e| e.into_inner()) =
            vec![namespace_task.abort_handle(), crd_task.abort_handle()];
        Ok(registry)
    }

    /// Stops following the store. The API's shared state calls it when dropped: the
    /// tasks hold the store, which would otherwise stay open (a data directory
    /// locked) after the server is gone.
    pub fn stop(&self) {
        for task in self
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            task.abort();
        }
    }

    fn rebuild(&self, crds: &HashMap<String, Value>) {
        let mut kinds = Kinds::default();
        for v in crds.values().filter(|v| established(v)) {
            let Ok(crd) = serde_json::from_value::<CustomResourceDefinition>(v.clone()) else {
                continue;
            };
            let kind = CustomKind::from_crd(crd, self.options);
            kinds.by_resource.insert(
                (kind.q.group.clone(), kind.q.plural.clone()),
                Arc::new(kind),
            );
        }
        *self.kinds.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(kinds);
    }

    /// Whether the namespace is known to exist (false: not seen yet, ask the store).
    pub fn has_namespace(&self, name: &str) -> bool {
        self.namespaces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(name)
    }

    /// The served kinds now.
    pub fn kinds(&self) -> Arc<Kinds> {
        self.kinds.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Waits (at most 5 s) until the registry reflects the store at `revision`, so a CRD
    /// written by this server is served when the write returns.
    pub async fn caught_up(&self, revision: Revision) {
        let mut rx = self.seen.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(5), rx.wait_for(|r| *r >= revision)).await;
    }
}

/// Keeps the set of namespace names current: a list, then a watch; again after a break.
/// Ends when the registry is dropped.
async fn follow_namespaces(store: Arc<dyn Store>, names: std::sync::Weak<RwLock<HashSet<String>>>) {
    let prefix = super::resource::NAMESPACE_PREFIX;
    loop {
        let Ok(listed) = store.list(prefix, ListOptions::default()).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        {
            let Some(names) = names.upgrade() else { return };
            let mut set = names.write().unwrap_or_else(|e| e.into_inner());
            set.clear();
            set.extend(
                listed
                    .items
                    .iter()
                    .filter_map(|kv| kv.key.strip_prefix(prefix).map(str::to_string)),
            );
        }
        let Ok(mut events) = store.watch(prefix, listed.revision).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        while let Some(Ok(item)) = events.next().await {
            let Some(names) = names.upgrade() else { return };
            if let WatchItem::Event(e) = item {
                let Some(name) = e.kv.key.strip_prefix(prefix) else {
                    continue;
                };
                let mut set = names.write().unwrap_or_else(|e| e.into_inner());
                match e.kind {
                    EventKind::Put => set.insert(name.to_string()),
                    EventKind::Delete => set.remove(name),
                };
            }
        }
    }
}
