//! kube-aggregator's part of the server: the APIServices served by an extension API
//! server, followed from the store into a table the router consults. A request for such
//! a group/version is proxied to its server ([`proxy`]) with the caller's identity in
//! headers; its discovery and OpenAPI are read from that server in the background
//! ([`documents`]) and merged into the server's own. Local APIServices (no `service`)
//! name what this server serves itself and change nothing here.
//!
//! A remote APIService wins over a CRD serving the same group/version, as in
//! kube-aggregator, where the CRD's own APIService is automanaged and a user's
//! APIService of that name replaces it.

pub mod documents;
pub mod proxy;
pub mod remote;
pub mod trust;

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use serde_json::Value;

use self::documents::Documents;
use self::remote::Remote;
use crate::follow::{Follower, list_and_watch};
use crate::store::{EventKind, ListOptions, Store, WatchEvent};
use crate::webhook_client::ClientIdentity;

/// The APIServices' group.
pub const GROUP: &str = "apiregistration.k8s.io";

/// Where APIServices are stored.
pub const PREFIX: &str = "/registry/apiregistration.k8s.io/apiservices/";

/// How often the documents of every available extension server are read again.
const REFRESH: Duration = Duration::from_secs(30);

/// A group/version an extension API server serves (a remote APIService), with the
/// resources its discovery listed (`None`: it never answered) and whether that answer
/// is current.
#[derive(Clone, Debug)]
pub struct ExtensionVersion {
    pub group: String,
    pub version: String,
    pub group_priority: i64,
    pub version_priority: i64,
    pub resources: Option<Vec<Value>>,
    pub fresh: bool,
}

/// The group/versions extension servers serve.
#[derive(Clone, Debug, Default)]
pub struct Extensions {
    pub versions: Vec<ExtensionVersion>,
}

/// The remote APIServices, by group and version.
#[derive(Default)]
pub struct Table {
    by_version: HashMap<(String, String), Arc<Remote>>,
}

impl Table {
    /// The remote APIService serving `group`/`version`, if any.
    pub fn get(&self, group: &str, version: &str) -> Option<&Arc<Remote>> {
        if self.by_version.is_empty() {
            return None;
        }
        self.by_version
            .get(&(group.to_string(), version.to_string()))
    }

    /// Every remote APIService.
    pub fn all(&self) -> impl Iterator<Item = &Arc<Remote>> {
        self.by_version.values()
    }

    pub fn is_empty(&self) -> bool {
        self.by_version.is_empty()
    }
}

/// The aggregator's state.
pub struct Aggregator {
    store: Arc<dyn Store>,
    /// The client certificate shown to extension servers (`--proxy-client-cert-file`).
    identity: Option<ClientIdentity>,
    /// The APIService objects by name, as followed.
    objects: Mutex<HashMap<String, Value>>,
    table: RwLock<Arc<Table>>,
    /// What each extension server's discovery and OpenAPI said, by APIService name.
    documents: RwLock<HashMap<String, Arc<Documents>>>,
    /// Wakes the reader of documents when the table changes.
    changed: Arc<tokio::sync::Notify>,
    /// The store revision the table reflects.
    seen: tokio::sync::watch::Sender<u64>,
    tasks: Mutex<Vec<tokio::task::AbortHandle>>,
}

impl Drop for Aggregator {
    fn drop(&mut self) {
        for t in self.tasks.get_mut().map(std::mem::take).unwrap_or_default() {
            t.abort();
        }
    }
}

impl Aggregator {
    /// Reads the APIServices and starts following them (and reading their servers'
    /// documents).
    pub async fn start(
        store: Arc<dyn Store>,
        identity: Option<ClientIdentity>,
    ) -> Result<Arc<Aggregator>, String> {
        let this = Arc::new(Aggregator {
            store: store.clone(),
            identity,
            objects: Mutex::new(HashMap::new()),
            table: RwLock::new(Arc::new(Table::default())),
            documents: RwLock::new(HashMap::new()),
            changed: Arc::new(tokio::sync::Notify::new()),
            seen: tokio::sync::watch::channel(0).0,
            tasks: Mutex::new(Vec::new()),
        });
        let revision = this.read_all().await?;
        let weak = Arc::downgrade(&this);
        let follow = tokio::spawn(async move {
            let mut follower = ApiServiceFollower { this: weak };
            list_and_watch(store.as_ref(), PREFIX, revision, &mut follower).await;
        });
        let refresh = tokio::spawn(documents::refresh_loop(Arc::downgrade(&this), REFRESH));
        *this.tasks.lock().unwrap_or_else(|e| e.into_inner()) =
            vec![follow.abort_handle(), refresh.abort_handle()];
        Ok(this)
    }

    /// The client certificate shown to extension servers.
    pub fn identity(&self) -> Option<&ClientIdentity> {
        self.identity.as_ref()
    }

    /// The remote APIServices now.
    pub fn table(&self) -> Arc<Table> {
        self.table.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The remote APIService a request path (`/apis/GROUP/VERSION[/...]`) goes to.
    pub fn route(&self, path: &str) -> Option<Arc<Remote>> {
        let table = self.table();
        if table.is_empty() {
            return None;
        }
        let rest = path.strip_prefix("/apis/")?;
        let mut parts = rest.splitn(3, '/');
        let (group, version) = (parts.next()?, parts.next()?);
        table.get(group, version).cloned()
    }

    /// The group/versions extension servers serve, for discovery.
    pub fn extensions(&self) -> Extensions {
        let table = self.table();
        let versions = table
            .all()
            .map(|r| {
                let docs = self.documents(r);
                ExtensionVersion {
                    group: r.group.clone(),
                    version: r.version.clone(),
                    group_priority: r.group_priority,
                    version_priority: r.version_priority,
                    resources: docs.as_ref().and_then(|d| d.resources.clone()),
                    fresh: r.available && docs.is_some_and(|d| d.fresh),
                }
            })
            .collect();
        Extensions { versions }
    }

    /// The documents read from `remote`'s server, if any were.
    pub fn documents(&self, remote: &Remote) -> Option<Arc<Documents>> {
        self.documents
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&remote.name)
            .cloned()
    }

    /// What wakes the reader of documents.
    fn changed_signal(&self) -> Arc<tokio::sync::Notify> {
        self.changed.clone()
    }

    /// The documents of every remote APIService that has some, by group and version.
    pub fn all_documents(&self) -> Vec<(Arc<Remote>, Arc<Documents>)> {
        let table = self.table();
        table
            .all()
            .filter_map(|r| Some((r.clone(), self.documents(r)?)))
            .collect()
    }

    /// Keeps `docs` as what `name`'s server said (unless it is gone meanwhile).
    fn set_documents(&self, name: &str, docs: Documents) {
        if !self.table().all().any(|r| r.name == name) {
            return;
        }
        self.documents
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), Arc::new(docs));
    }

    /// Lists the APIServices and rebuilds the table; answers the list's revision.
    async fn read_all(&self) -> Result<u64, String> {
        let listed = self
            .store
            .list(PREFIX, ListOptions::default())
            .await
            .map_err(|e| format!("cannot read {PREFIX}: {e}"))?;
        let mut objects = HashMap::new();
        for kv in listed.items {
            if let Ok(v) = serde_json::from_slice::<Value>(&kv.value) {
                objects.insert(kv.key, v);
            }
        }
        *self.objects.lock().unwrap_or_else(|e| e.into_inner()) = objects;
        self.rebuild();
        self.saw(listed.revision);
        Ok(listed.revision)
    }

    fn saw(&self, revision: u64) {
        self.seen.send_if_modified(|seen| {
            let newer = revision > *seen;
            if newer {
                *seen = revision;
            }
            newer
        });
    }

    /// Waits (at most 5 s) until the table reflects the store at `revision`: an
    /// APIService written through this server is routed as written when the write
    /// returns (as a CRD is served).
    pub async fn caught_up(&self, revision: u64) {
        let mut rx = self.seen.subscribe();
        let wait = rx.wait_for(|seen| *seen >= revision);
        let _ = tokio::time::timeout(Duration::from_secs(5), wait).await;
    }

    fn apply(&self, key: String, value: Option<Value>) {
        {
            let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
            match value {
                Some(v) => objects.insert(key, v),
                None => objects.remove(&key),
            };
        }
        self.rebuild();
    }

    /// The table of the followed objects. An APIService whose spec and availability did
    /// not change keeps its entry (and the connections its client pools).
    fn rebuild(&self) {
        let objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        let old = self.table();
        let mut by_version = HashMap::new();
        for obj in objects.values() {
            let Some(remote) = Remote::of(obj, self.identity.as_ref()) else {
                continue;
            };
            let key = (remote.group.clone(), remote.version.clone());
            let kept = old
                .get(&key.0, &key.1)
                .filter(|o| o.same_as(&remote))
                .cloned();
            by_version.insert(key, kept.unwrap_or_else(|| Arc::new(remote)));
        }
        drop(objects);
        let names: Vec<String> = by_version.values().map(|r| r.name.clone()).collect();
        self.documents
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|name, _| names.contains(name));
        *self.table.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(Table { by_version });
        self.changed.notify_one();
    }
}

/// The APIServices, while the aggregator is held.
struct ApiServiceFollower {
    this: Weak<Aggregator>,
}

impl Follower for ApiServiceFollower {
    async fn relist(&mut self) -> ControlFlow<(), Option<u64>> {
        let Some(this) = self.this.upgrade() else {
            return ControlFlow::Break(());
        };
        ControlFlow::Continue(this.read_all().await.ok())
    }

    fn on_event(&mut self, e: WatchEvent) -> ControlFlow<()> {
        let Some(this) = self.this.upgrade() else {
            return ControlFlow::Break(());
        };
        let value = match e.kind {
            EventKind::Put => serde_json::from_slice(&e.kv.value).ok(),
            EventKind::Delete => None,
        };
        let revision = e.kv.mod_revision;
        this.apply(e.kv.key, value);
        this.saw(revision);
        ControlFlow::Continue(())
    }
}

/// Whether `apiservice`'s `Available` condition is `True`.
pub fn is_available(apiservice: &Value) -> bool {
    apiservice
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Available" && c["status"] == "True")
}
