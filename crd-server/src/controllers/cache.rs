//! The workload controllers' shared informers, as client-go's `SharedInformerFactory`:
//! one list-then-watch per resource ([`super::informer::follow`]) however many
//! controllers read it, its objects decoded once and kept by namespace and name, and
//! each change handed to every subscribed handler (which queues work; the workers read
//! the cache).
//!
//! Writes the controllers make are written through ([`Informer::wrote`],
//! [`Informer::removed`]): the cache holds a created Pod before the watch reports it, so
//! a second pass over a ReplicaSet does not create it again (what client-go's
//! expectations guard against). A change is taken only when it is newer than what the
//! cache holds, and an object the controllers deleted is not brought back by a late
//! event about it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;

use super::informer::{self, Change};
use crate::api::kinds::Resource;
use crate::api::object::str_at;
use crate::api::state::Shared;
use crate::api::storage::decode;
use crate::store::KeyValue;

/// A change of one object: `old` absent for an addition, `new` absent for a deletion.
#[derive(Clone, Debug)]
pub struct Event {
    /// `namespace/name`, or `name` for a cluster-scoped object.
    pub key: String,
    pub old: Option<Arc<Value>>,
    pub new: Option<Arc<Value>>,
}

impl Event {
    /// The object now, or the last one seen of a deleted object.
    pub fn object(&self) -> &Value {
        self.new
            .as_deref()
            .or(self.old.as_deref())
            .unwrap_or(&Value::Null)
    }
}

/// What a subscriber does with each change (queue work; it must not block).
pub type Handler = Arc<dyn Fn(&Event) + Send + Sync>;

struct Entry {
    revision: u64,
    uid: String,
    obj: Arc<Value>,
}

#[derive(Default)]
struct State {
    objects: BTreeMap<String, Entry>,
    /// Uids the controllers deleted whose deletion the watch has not reported yet.
    gone: HashSet<String>,
    handlers: Vec<Handler>,
}

/// One resource's objects.
pub struct Informer {
    res: Resource,
    state: Mutex<State>,
    synced: watch::Sender<bool>,
}

/// `namespace/name` (or `name`) of an object.
pub fn key_of(obj: &Value) -> String {
    let (ns, name) = (
        str_at(obj, "/metadata/namespace"),
        str_at(obj, "/metadata/name"),
    );
    if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}/{name}")
    }
}

fn revision_of(obj: &Value) -> u64 {
    str_at(obj, "/metadata/resourceVersion")
        .parse()
        .unwrap_or(0)
}

impl Informer {
    fn new(res: Resource) -> Informer {
        Informer {
            res,
            state: Mutex::new(State::default()),
            synced: watch::channel(false).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The resource followed.
    pub fn resource(&self) -> &Resource {
        &self.res
    }

    /// Waits until the first list has been read.
    pub async fn synced(&self) {
        let mut rx = self.synced.subscribe();
        let _ = rx.wait_for(|s| *s).await;
    }

    /// Calls `handler` with every object held (as additions), then with every change.
    pub fn subscribe(&self, handler: Handler) {
        let existing: Vec<Event> = {
            let mut s = self.lock();
            s.handlers.push(handler.clone());
            s.objects
                .iter()
                .map(|(k, e)| Event {
                    key: k.clone(),
                    old: None,
                    new: Some(e.obj.clone()),
                })
                .collect()
        };
        for e in &existing {
            handler(e);
        }
    }

    /// The object `namespace/name` (`ns` empty for a cluster-scoped one).
    pub fn get(&self, ns: &str, name: &str) -> Option<Arc<Value>> {
        let key = if ns.is_empty() {
            name.to_string()
        } else {
            format!("{ns}/{name}")
        };
        self.get_key(&key)
    }

    /// The object of the key `key` (`ns/name`, or `name`, as [`key_of`] makes it).
    pub fn get_key(&self, key: &str) -> Option<Arc<Value>> {
        self.lock().objects.get(key).map(|e| e.obj.clone())
    }

    /// The objects of a namespace (every object when `ns` is `None`).
    pub fn list(&self, ns: Option<&str>) -> Vec<Arc<Value>> {
        let s = self.lock();
        match ns {
            None => s.objects.values().map(|e| e.obj.clone()).collect(),
            Some(ns) => {
                let prefix = format!("{ns}/");
                s.objects
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .map(|(_, e)| e.obj.clone())
                    .collect()
            }
        }
    }

    fn dispatch(&self, event: Option<Event>) {
        let Some(event) = event else { return };
        let handlers = self.lock().handlers.clone();
        for h in handlers {
            h(&event);
        }
    }

    /// Takes `obj` at its `resourceVersion` if it is newer than what is held.
    fn put(&self, obj: Value) -> Option<Event> {
        let key = key_of(&obj);
        let revision = revision_of(&obj);
        let uid = str_at(&obj, "/metadata/uid").to_string();
        let mut s = self.lock();
        if s.gone.contains(&uid) {
            return None;
        }
        if let Some(e) = s.objects.get(&key)
            && e.revision >= revision
        {
            return None;
        }
        let obj = Arc::new(obj);
        let old = s.objects.insert(
            key.clone(),
            Entry {
                revision,
                uid,
                obj: obj.clone(),
            },
        );
        Some(Event {
            key,
            old: old.map(|e| e.obj),
            new: Some(obj),
        })
    }

    /// Drops the object of `key` if it is still the one of `uid`.
    fn remove(&self, key: &str, uid: &str, by_watch: bool) -> Option<Event> {
        let mut s = self.lock();
        if by_watch {
            s.gone.remove(uid);
        } else if !uid.is_empty() {
            s.gone.insert(uid.to_string());
        }
        if s.objects.get(key).is_none_or(|e| e.uid != uid) {
            return None;
        }
        let old = s.objects.remove(key)?;
        Some(Event {
            key: key.to_string(),
            old: Some(old.obj),
            new: None,
        })
    }

    /// A write the controllers made (the object as the API answered it).
    pub fn wrote(&self, obj: &Value) {
        if obj.get("kind").and_then(Value::as_str) == Some("Status") {
            return;
        }
        let event = self.put(obj.clone());
        self.dispatch(event);
    }

    /// An object the controllers deleted (gone from the store).
    pub fn removed(&self, obj: &Value) {
        let event = self.remove(&key_of(obj), str_at(obj, "/metadata/uid"), false);
        self.dispatch(event);
    }

    fn observe(&self, change: Change) {
        match change {
            Change::Put { kv, .. } => {
                if let Some(obj) = self.decode(&kv) {
                    let event = self.put(obj);
                    self.dispatch(event);
                }
            }
            Change::Delete(kv) => {
                if let Some(obj) = self.decode(&kv) {
                    let event = self.remove(&key_of(&obj), str_at(&obj, "/metadata/uid"), true);
                    self.dispatch(event);
                }
            }
            Change::Synced(_) => {
                self.synced.send_replace(true);
            }
        }
    }

    fn decode(&self, kv: &KeyValue) -> Option<Value> {
        let mut obj = decode(kv).ok()?;
        if obj.get("apiVersion").is_none() {
            obj["apiVersion"] = Value::String(self.res.info().api_version());
            obj["kind"] = Value::String(self.res.info().q.kind.clone());
        }
        Some(obj)
    }
}

/// The informers of one run of the controllers; they stop when it is dropped.
pub struct Cache {
    shared: Arc<Shared>,
    informers: Mutex<HashMap<(String, String), Arc<Informer>>>,
    tasks: Mutex<Vec<AbortHandle>>,
}

impl Drop for Cache {
    fn drop(&mut self) {
        for t in self.tasks.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            t.abort();
        }
    }
}

impl Cache {
    /// An empty cache over the server's store.
    pub fn new(shared: Arc<Shared>) -> Arc<Cache> {
        Arc::new(Cache {
            shared,
            informers: Mutex::new(HashMap::new()),
            tasks: Mutex::new(Vec::new()),
        })
    }

    /// The informer of `group/v1 resource` (`""` for core), started on first use;
    /// `None` when the server does not serve it.
    pub fn informer(&self, group: &str, resource: &str) -> Option<Arc<Informer>> {
        self.informer_at(group, "v1", resource)
    }

    /// The informer of `group/version resource`.
    pub fn informer_at(&self, group: &str, version: &str, resource: &str) -> Option<Arc<Informer>> {
        let id = (group.to_string(), resource.to_string());
        let mut informers = self.informers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = informers.get(&id) {
            return Some(i.clone());
        }
        let res = self.shared.registry.resolve(group, version, resource)?;
        let informer = Arc::new(Informer::new(res.clone()));
        informers.insert(id, informer.clone());
        let (tx, mut rx) = mpsc::unbounded_channel();
        let follow = tokio::spawn(informer::follow(
            self.shared.store.clone(),
            res.info().list_prefix(None),
            tx,
        ));
        let feeder = informer.clone();
        let feed = tokio::spawn(async move {
            while let Some(change) = rx.recv().await {
                feeder.observe(change);
            }
        });
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        tasks.push(follow.abort_handle());
        tasks.push(feed.abort_handle());
        Some(informer)
    }
}
