//! The registry of served kinds: the built-in ones (CustomResourceDefinitions, and the
//! kinds of `api/kinds/builtin/`, each API group's in its folder — Namespaces among
//! core's) and one custom kind per established CRD, rebuilt from the stored CRDs by a
//! watch on their keys ([`follow`]), so every replica sharing a store (etcd) serves
//! the same kinds and a CRD written through one replica appears on all.
//!
//! Every verb finds a kind's strategy here ([`Registry::resolve`]). A kind's
//! [`Strategy`](crate::api::kinds::Strategy) is its small traits, one per concern
//! (`api/kinds/strategy.rs`); adding a built-in kind is a catalog entry in its
//! group's folder (`api/kinds/builtin/<group>/mod.rs`) with the concerns it changes
//! (`api/kinds/builtin/behaviour.rs`); a kind with a strategy of its own (Namespaces,
//! CRDs) is also an entry in [`Registry::builtins`].

mod follow;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crd_runtime::engine::EngineOptions;
use crd_runtime::model::CustomResourceDefinition;
use serde_json::Value;
use tokio::sync::watch;

use crate::api::conversion::ConversionWebhooks;
use crate::api::kinds::Resource;
use crate::api::kinds::builtin::core::namespace::Namespaces;
use crate::api::kinds::builtin::{self, BuiltinKind};
use crate::api::kinds::crd::{CRD_PREFIX, Crds};
use crate::api::kinds::custom::{CustomKind, CustomResource};
use crate::api::priority::compare_versions;
use crate::store::{ListOptions, Revision, Store, StoreError};

/// The custom kinds served at one moment, each at each served version.
#[derive(Default)]
pub struct CustomKinds {
    kinds: Vec<Arc<CustomKind>>,
    /// (group, version, plural) → the kind at that version.
    resources: HashMap<(String, String, String), Resource>,
    /// Each kind at its served version of highest priority (the version whose strategy
    /// reads its stored objects' metadata, for the controllers).
    preferred: Vec<Resource>,
}

impl CustomKinds {
    fn build(
        crds: &HashMap<String, Value>,
        options: EngineOptions,
        in_process: &ConversionWebhooks,
    ) -> CustomKinds {
        let mut out = CustomKinds::default();
        for v in crds.values().filter(|v| established(v)) {
            let Ok(crd) = serde_json::from_value::<CustomResourceDefinition>(v.clone()) else {
                continue;
            };
            let kind = Arc::new(CustomKind::from_crd(&crd, options, in_process));
            for version in kind.versions.iter().filter(|v| v.served) {
                if let Some(res) = CustomResource::new(kind.clone(), &version.name) {
                    let key = (
                        kind.q.group.clone(),
                        version.name.clone(),
                        kind.q.plural.clone(),
                    );
                    out.resources.insert(key, Arc::new(res));
                }
            }
            out.kinds.push(kind);
        }
        out.kinds
            .sort_by(|a, b| (&a.q.group, &a.q.plural).cmp(&(&b.q.group, &b.q.plural)));
        out.preferred = out
            .kinds
            .iter()
            .filter_map(|kind| {
                let version = kind
                    .versions
                    .iter()
                    .filter(|v| v.served)
                    .map(|v| v.name.as_str())
                    .min_by(|a, b| compare_versions(a, b))?;
                let key = (
                    kind.q.group.clone(),
                    version.to_string(),
                    kind.q.plural.clone(),
                );
                out.resources.get(&key).cloned()
            })
            .collect();
        out
    }

    /// Every custom kind, sorted by group then plural.
    pub fn all(&self) -> &[Arc<CustomKind>] {
        &self.kinds
    }
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

/// The registry: the served kinds and the store revision the custom ones reflect.
pub struct Registry {
    /// The Kubernetes release whose validation the engines follow.
    options: EngineOptions,
    /// Conversion webhooks served in process (a test server's).
    in_process: ConversionWebhooks,
    builtins: Vec<Resource>,
    custom: RwLock<Arc<CustomKinds>>,
    seen: watch::Sender<Revision>,
    /// Namespaces known to exist, each with whether it is terminating (followed by a
    /// watch; a miss is checked in the store).
    namespaces: Arc<RwLock<HashMap<String, bool>>>,
    /// The tasks following CRDs and namespaces: they hold the store and the registry,
    /// so they are aborted when the API goes away ([`Registry::stop`]).
    tasks: std::sync::Mutex<Vec<tokio::task::AbortHandle>>,
    /// The `/openapi/v3` index and the custom kinds it was computed for (a `Weak`: the
    /// allocation stays while held, so a new set never compares equal to a freed one).
    openapi_index: std::sync::Mutex<Option<(std::sync::Weak<CustomKinds>, Value)>>,
}

impl Registry {
    /// The built-in kinds of a server following `options`' release.
    fn builtins(options: EngineOptions) -> Vec<Resource> {
        let mut kinds: Vec<Resource> = vec![
            Arc::new(Crds::new(options.kube_version)),
            Arc::new(Namespaces::new(options.kube_version)),
        ];
        kinds.extend(
            builtin::catalog()
                .filter(|spec| spec.behaviour.served_in(options.kube_version))
                .map(|spec| Arc::new(BuiltinKind::new(spec, options)) as Resource),
        );
        kinds
    }

    /// Loads the stored CRDs and keeps following them (and the namespaces) in the
    /// background until [`Registry::stop`].
    pub async fn start(
        store: Arc<dyn Store>,
        options: EngineOptions,
        in_process: ConversionWebhooks,
    ) -> Result<Arc<Registry>, StoreError> {
        let listed = store.list(CRD_PREFIX, ListOptions::default()).await?;
        let crds = follow::decoded(&listed);
        let (seen, _) = watch::channel(listed.revision);
        let registry = Arc::new(Registry {
            options,
            in_process,
            builtins: Self::builtins(options),
            custom: RwLock::new(Arc::new(CustomKinds::default())),
            seen,
            namespaces: Arc::new(RwLock::new(HashMap::new())),
            tasks: std::sync::Mutex::new(Vec::new()),
            openapi_index: std::sync::Mutex::new(None),
        });
        registry.rebuild(&crds);
        let namespace_task = tokio::spawn(follow::namespaces(
            store.clone(),
            Arc::downgrade(&registry.namespaces),
        ));
        let crd_task = tokio::spawn(follow::crds(registry.clone(), store, listed.revision, crds));
        *registry.tasks.lock().unwrap_or_else(|e| e.into_inner()) =
            vec![namespace_task.abort_handle(), crd_task.abort_handle()];
        Ok(registry)
    }

    /// Stops following the store. The API's state calls it when dropped: the tasks hold
    /// the store, which would otherwise stay open (a data directory locked) after the
    /// server is gone.
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
        let kinds = CustomKinds::build(crds, self.options, &self.in_process);
        *self.custom.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(kinds);
    }

    /// The kind served as `resource` in `group/version`.
    pub fn resolve(&self, group: &str, version: &str, resource: &str) -> Option<Resource> {
        let builtin = self.builtins.iter().find(|r| {
            let info = r.info();
            info.q.group == group && info.version == version && info.q.plural == resource
        });
        if let Some(r) = builtin {
            return Some(r.clone());
        }
        self.custom()
            .resources
            .get(&(group.to_string(), version.to_string(), resource.to_string()))
            .cloned()
    }

    /// The kind an `apiVersion` and `kind` name (an owner reference's), at that version.
    /// Called per owner lookup: no list of every resource is built.
    pub fn resolve_kind(&self, api_version: &str, kind: &str) -> Option<Resource> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let builtin = self.builtins.iter().find(|r| {
            let info = r.info();
            info.q.group == group && info.version == version && info.q.kind == kind
        });
        if let Some(r) = builtin {
            return Some(r.clone());
        }
        let custom = self.custom();
        let plural = custom
            .kinds
            .iter()
            .find(|k| k.q.group == group && k.q.kind == kind)
            .map(|k| k.q.plural.clone())?;
        custom
            .resources
            .get(&(group.to_string(), version.to_string(), plural))
            .cloned()
    }

    /// The served resource a storage key belongs to (a custom kind at its version of
    /// highest priority: every version reads the same metadata), with the key's
    /// namespace and name. Called for every change the controllers see: it scans the
    /// kinds without building a list of every resource.
    pub fn resource_for_key(&self, key: &str) -> Option<(Resource, Option<String>, String)> {
        let custom = self.custom();
        self.builtins
            .iter()
            .chain(custom.preferred.iter())
            .find_map(|r| {
                let info = r.info();
                let rest = key.strip_prefix(info.prefix.as_str())?;
                if info.namespaced {
                    let (ns, name) = rest.split_once('/')?;
                    (!name.contains('/'))
                        .then(|| (r.clone(), Some(ns.to_string()), name.to_string()))
                } else {
                    (!rest.contains('/')).then(|| (r.clone(), None, rest.to_string()))
                }
            })
    }

    /// Every served resource: the built-in kinds, then the custom kinds by group and
    /// plural, versions in priority order.
    pub fn resources(&self) -> Vec<Resource> {
        let custom = self.custom();
        let mut out = self.builtins.clone();
        for kind in custom.all() {
            let mut versions: Vec<&str> = kind
                .versions
                .iter()
                .filter(|v| v.served)
                .map(|v| v.name.as_str())
                .collect();
            versions.sort_by(|a, b| compare_versions(a, b));
            for v in versions {
                let key = (kind.q.group.clone(), v.to_string(), kind.q.plural.clone());
                out.extend(custom.resources.get(&key).cloned());
            }
        }
        out
    }

    /// The `/openapi/v3` index for the kinds served now: `compute`d again only when the
    /// custom kinds have changed since it was last computed.
    pub fn memo_openapi_index(&self, compute: impl FnOnce() -> Value) -> Value {
        let custom = Arc::downgrade(&self.custom());
        let mut memo = self.openapi_index.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kinds, index)) = memo.as_ref()
            && kinds.ptr_eq(&custom)
        {
            return index.clone();
        }
        let index = compute();
        *memo = Some((custom, index.clone()));
        index
    }

    /// The Kubernetes release this server follows.
    pub fn kube_version(&self) -> crd_runtime::KubeVersion {
        self.options.kube_version
    }

    /// The custom kinds served now.
    pub fn custom(&self) -> Arc<CustomKinds> {
        self.custom
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether the namespace is `Terminating` (`None`: not seen yet, ask the store).
    pub fn namespace_terminating(&self, name: &str) -> Option<bool> {
        self.namespaces
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .copied()
    }

    /// Told the store revision of every change of the custom kinds the registry reads.
    pub fn changes(&self) -> watch::Receiver<Revision> {
        self.seen.subscribe()
    }

    /// Waits (at most 5 s) until the registry reflects the store at `revision`, so a CRD
    /// written by this server is served when the write returns.
    pub async fn caught_up(&self, revision: Revision) {
        let mut rx = self.seen.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(5), rx.wait_for(|r| *r >= revision)).await;
    }
}
