//! Following the policies and bindings in the store, as the plugins' informers do:
//! each prefix is listed, then watched from the list's revision, and listed again when
//! the watch breaks (compaction, an etcd restart). Every change recompiles the sets.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::follow::{Follower, list_and_watch};
use crate::store::{EventKind, ListOptions, Store, WatchEvent};

/// The kinds followed, as indexes into [`Objects::kinds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Followed {
    ValidatingPolicy = 0,
    ValidatingBinding = 1,
    MutatingPolicy = 2,
    MutatingBinding = 3,
}

impl Followed {
    /// The storage prefix (api/kinds/builtin/admissionregistration/catalog.rs).
    pub fn prefix(self) -> &'static str {
        match self {
            Followed::ValidatingPolicy => "/registry/validatingadmissionpolicies/",
            Followed::ValidatingBinding => "/registry/validatingadmissionpolicybindings/",
            Followed::MutatingPolicy => "/registry/mutatingadmissionpolicies/",
            Followed::MutatingBinding => "/registry/mutatingadmissionpolicybindings/",
        }
    }
}

/// The stored objects of each followed kind, by name.
#[derive(Clone, Default)]
pub struct Objects {
    pub kinds: [BTreeMap<String, Value>; 4],
}

impl Objects {
    /// The objects of one kind, in name order.
    pub fn of(&self, kind: Followed) -> Vec<Value> {
        self.kinds[kind as usize].values().cloned().collect()
    }

    /// Whether any binding is stored.
    pub fn any_binding(&self) -> bool {
        !self.kinds[Followed::ValidatingBinding as usize].is_empty()
            || !self.kinds[Followed::MutatingBinding as usize].is_empty()
    }
}

/// Where a follower keeps what it saw and whom it tells.
pub trait Sink: Send + Sync + 'static {
    /// The followed objects, shared by the followers.
    fn objects(&self) -> &Mutex<Objects>;
    /// Called after every change, the objects updated and still locked.
    fn changed(&self, objects: &Objects);
}

fn parse(value: &[u8]) -> Option<Value> {
    crd_runtime::__private::depth::from_json_slice(value).ok()
}

/// Lists `kind` once into `sink` (the server waits for this at start).
pub async fn list_once(store: &dyn Store, kind: Followed, sink: &dyn Sink) -> Option<u64> {
    let listed = store
        .list(kind.prefix(), ListOptions::default())
        .await
        .ok()?;
    let map: BTreeMap<String, Value> = listed
        .items
        .iter()
        .filter_map(|kv| {
            let name = kv.key.strip_prefix(kind.prefix())?;
            Some((name.to_string(), parse(&kv.value)?))
        })
        .collect();
    // Compiled under the lock: two followers' changes cannot land out of order.
    let mut objects = sink.objects().lock().unwrap_or_else(|e| e.into_inner());
    objects.kinds[kind as usize] = map;
    sink.changed(&objects);
    Some(listed.revision)
}

/// Follows `kind` from `revision` (0: list first) until the task is aborted.
pub async fn follow(store: Arc<dyn Store>, kind: Followed, revision: u64, sink: Arc<dyn Sink>) {
    let mut follower = KindFollower {
        store: store.clone(),
        kind,
        sink,
    };
    list_and_watch(store.as_ref(), kind.prefix(), revision, &mut follower).await;
}

/// One followed kind, kept in its sink.
struct KindFollower {
    store: Arc<dyn Store>,
    kind: Followed,
    sink: Arc<dyn Sink>,
}

impl Follower for KindFollower {
    async fn relist(&mut self) -> ControlFlow<(), Option<u64>> {
        ControlFlow::Continue(list_once(self.store.as_ref(), self.kind, self.sink.as_ref()).await)
    }

    fn on_event(&mut self, e: WatchEvent) -> ControlFlow<()> {
        let Some(name) = e.kv.key.strip_prefix(self.kind.prefix()) else {
            return ControlFlow::Continue(());
        };
        let mut objects = self
            .sink
            .objects()
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let map = &mut objects.kinds[self.kind as usize];
        match (e.kind, parse(&e.kv.value)) {
            (EventKind::Put, Some(v)) => {
                map.insert(name.to_string(), v);
            }
            _ => {
                map.remove(name);
            }
        }
        self.sink.changed(&objects);
        ControlFlow::Continue(())
    }
}
