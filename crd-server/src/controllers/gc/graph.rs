//! The dependency graph (upstream's `GraphBuilder` state): one node per uid seen, with
//! its owner references and its dependents, built only from the informer's events.
//! Owners referenced before they are observed get a *virtual* node, verified against
//! the API by an attempt. Every change answers the work it makes ([`Action`]); the
//! graph itself never talks to the API.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::Arc;

use super::refs::{Identity, Meta, Names, OwnerRef, Uid, group_of};

/// Work a change of the graph makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Attempt to delete the object of this uid (or to finish its foreground deletion).
    Delete(Uid),
    /// Orphan the dependents of this uid, then drop its `orphan` finalizer.
    Orphan(Uid),
    /// `dependent` names an owner that lives in another namespace (upstream's
    /// `OwnerRefInvalidNamespace` warning).
    InvalidNamespace {
        dependent: Identity,
        owner: OwnerRef,
    },
}

/// One object, observed or only referenced.
#[derive(Debug)]
pub struct Node {
    pub identity: Identity,
    /// The storage key of an observed object (shared with the graph's key table);
    /// `None` for a virtual node.
    pub key: Option<Arc<str>>,
    pub owners: Vec<OwnerRef>,
    dependents: Dependents,
    /// How many dependents block (kept with `dependents`, so that a foreground deletion
    /// knows without a scan when it may finish).
    blocking: usize,
    /// The object has a `deletionTimestamp` (a one-way trip).
    pub being_deleted: bool,
    /// Being deleted with the `foregroundDeletion` finalizer.
    pub deleting_dependents: bool,
    /// Being deleted with the `orphan` finalizer.
    orphaning: bool,
}

impl Node {
    fn new(identity: Identity, key: Option<Arc<str>>) -> Node {
        Node {
            identity,
            key,
            owners: Vec::new(),
            dependents: Dependents::default(),
            blocking: 0,
            being_deleted: false,
            deleting_dependents: false,
            orphaning: false,
        }
    }

    /// Seen through the informer (not only named by a dependent).
    pub fn observed(&self) -> bool {
        self.key.is_some()
    }

    /// Dependents holding its deletion back.
    pub fn blocking(&self) -> usize {
        self.blocking
    }

    pub fn dependent_count(&self) -> usize {
        self.dependents.len()
    }

    pub fn dependents(&self) -> impl Iterator<Item = &Uid> {
        self.dependents.keys()
    }
}

/// A node's dependents: uid → whether it blocks the node's deletion
/// (`blockOwnerDeletion`). Most objects own nothing: the table is allocated with the
/// first dependent and dropped with the last, and costs a pointer until then.
#[derive(Debug, Default)]
struct Dependents(Option<Box<HashMap<Uid, bool>>>);

impl Dependents {
    /// Answers whether a dependent of this uid was there, and blocked.
    fn insert(&mut self, uid: Uid, blocks: bool) -> Option<bool> {
        self.0.get_or_insert_default().insert(uid, blocks)
    }

    fn remove(&mut self, uid: &str) -> Option<bool> {
        let table = self.0.as_mut()?;
        let was = table.remove(uid);
        if table.is_empty() {
            self.0 = None;
        }
        was
    }

    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |t| t.len())
    }

    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn keys(&self) -> impl Iterator<Item = &Uid> {
        self.0.iter().flat_map(|t| t.keys())
    }

    fn into_keys(self) -> impl Iterator<Item = Uid> {
        self.0.into_iter().flat_map(|t| t.into_keys())
    }
}

/// A set that keeps its most recent `cap` entries (upstream's LRU `absentOwnerCache`).
struct Recent<T> {
    set: HashSet<T>,
    order: VecDeque<T>,
    cap: usize,
}

impl<T: Clone + Eq + Hash> Recent<T> {
    fn new(cap: usize) -> Self {
        Recent {
            set: HashSet::new(),
            order: VecDeque::new(),
            cap,
        }
    }

    fn insert(&mut self, v: T) {
        if self.set.insert(v.clone()) {
            self.order.push_back(v);
            if self.order.len() > self.cap
                && let Some(old) = self.order.pop_front()
            {
                self.set.remove(&old);
            }
        }
    }

    fn contains<Q: Hash + Eq + ?Sized>(&self, v: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.set.contains(v)
    }
}

/// What the graph knows of an owner reference without asking the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// The owner does not exist (deleted, or verified absent).
    Dangling,
    /// The owner exists.
    Solid,
    /// The owner exists and waits for its dependents (foreground deletion).
    Waiting,
}

/// How many absent owners and deleted uids are remembered.
const REMEMBERED: usize = 4096;

/// The dependency graph.
pub struct Graph {
    /// Boxed: the table moves and grows with every object in the store, and a node is
    /// ten times the size of its pointer. Keyed by the node's own copy of its uid.
    nodes: HashMap<Uid, Box<Node>>,
    /// Storage key (the node's copy) → uid of the observed object there.
    by_key: HashMap<Arc<str>, Uid>,
    /// Uids of observed objects that were deleted: no object has them any more.
    gone: Recent<Uid>,
    /// Owners an API lookup did not find under these coordinates.
    absent: Recent<Identity>,
    /// The nodes' `apiVersion`s, kinds and namespaces, one copy each.
    names: Names,
}

impl Default for Graph {
    fn default() -> Self {
        Graph {
            nodes: HashMap::new(),
            by_key: HashMap::new(),
            gone: Recent::new(REMEMBERED),
            absent: Recent::new(REMEMBERED),
            names: Names::default(),
        }
    }
}

impl Graph {
    pub fn node(&self, uid: &str) -> Option<&Node> {
        self.nodes.get(uid).map(|n| &**n)
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The object at `key` is now `meta`, of kind `api_version`/`kind`.
    pub fn observe(&mut self, key: &str, api_version: &str, kind: &str, meta: Meta) -> Vec<Action> {
        let mut out = Vec::new();
        let Meta {
            name,
            namespace,
            uid,
            owners,
            being_deleted,
            foreground,
            orphan,
        } = meta;
        // One copy of the uid and of the key for every table that holds them.
        let uid: Uid = match self.nodes.get_key_value(uid.as_str()) {
            Some((known, _)) => known.clone(),
            None => Arc::from(uid),
        };
        let held = (self.by_key.get_key_value(key)).map(|(k, old)| (k.clone(), *old == uid));
        let key: Arc<str> = match held {
            Some((key, true)) => key,
            // The key holds another object than before: the old one went while the
            // watch was broken.
            Some((key, false)) => {
                out.extend(self.remove(&key));
                self.by_key.insert(key.clone(), uid.clone());
                key
            }
            None => {
                let key: Arc<str> = Arc::from(key);
                self.by_key.insert(key.clone(), uid.clone());
                key
            }
        };
        // Every event of every object comes here: what is already known is compared,
        // not copied again.
        let same_as = |id: &Identity| {
            *id.api_version == *api_version
                && *id.kind == *kind
                && *id.namespace == *namespace
                && id.name == name
        };
        let names = &mut self.names;
        let mut identity = |namespace: String, name| Identity {
            api_version: names.get(api_version),
            kind: names.get(kind),
            namespace: names.get(&namespace),
            name,
            uid: uid.clone(),
        };
        let (was_orphaning, was_deleting_dependents, renamed) = match self.nodes.get_mut(&uid) {
            None => {
                let identity = identity(namespace, name);
                self.nodes
                    .insert(uid.clone(), Box::new(Node::new(identity, Some(key))));
                (false, false, false)
            }
            Some(node) => {
                let flags = if node.observed() {
                    (node.orphaning, node.deleting_dependents)
                } else {
                    (false, false)
                };
                let same = same_as(&node.identity);
                let renamed = !node.observed() && !same;
                if !node.key.as_ref().is_some_and(|k| Arc::ptr_eq(k, &key)) {
                    node.key = Some(key);
                }
                if !same {
                    node.identity = identity(namespace, name);
                }
                (flags.0, flags.1, renamed)
            }
        };
        if renamed && let Some(node) = self.nodes.get(&uid) {
            self.recheck_dependents(&node.identity, &mut out);
        }
        self.set_owners(&uid, owners, &mut out);
        let Some(node) = self.nodes.get_mut(&uid) else {
            return out;
        };
        node.being_deleted |= being_deleted;
        node.deleting_dependents = being_deleted && foreground;
        node.orphaning = being_deleted && orphan;
        // Transitions (upstream's `processTransitions`): a deletion that starts waiting
        // on the garbage collector.
        if node.orphaning && !was_orphaning {
            out.push(Action::Orphan(uid));
        } else if node.deleting_dependents && !was_deleting_dependents {
            out.extend(node.dependents.keys().cloned().map(Action::Delete));
            out.push(Action::Delete(uid));
        }
        out
    }

    /// A virtual node became observed under `observed`: its dependents that named it
    /// otherwise are checked again, and those in another namespace reported.
    fn recheck_dependents(&self, observed: &Identity, out: &mut Vec<Action>) {
        let Some(node) = self.nodes.get(&observed.uid) else {
            return;
        };
        for dep in node.dependents.keys().filter_map(|d| self.nodes.get(d)) {
            let elsewhere =
                !observed.namespace.is_empty() && dep.identity.namespace != observed.namespace;
            let mismatch = elsewhere
                || dep
                    .owners
                    .iter()
                    .any(|r| *r.uid == *observed.uid && !r.matches(observed));
            if !mismatch {
                continue;
            }
            if elsewhere && let Some(r) = dep.owners.iter().find(|r| *r.uid == *observed.uid) {
                out.push(Action::InvalidNamespace {
                    dependent: dep.identity.clone(),
                    owner: r.clone(),
                });
            }
            out.push(Action::Delete(dep.identity.uid.clone()));
        }
    }

    /// The observed object at `key` was deleted.
    pub fn remove(&mut self, key: &str) -> Vec<Action> {
        let mut out = Vec::new();
        let Some(uid) = self.by_key.remove(key) else {
            return out;
        };
        let Some(node) = self.nodes.remove(&uid) else {
            return out;
        };
        for owner in unique_uids(&node.owners) {
            self.unlink(&owner, &uid);
            // An owner waiting for its dependents may be done now.
            if let Some((owner, o)) = self.nodes.get_key_value(owner.as_str())
                && o.deleting_dependents
            {
                out.push(Action::Delete(owner.clone()));
            }
        }
        if !node.dependents.is_empty() {
            self.gone.insert(uid);
        }
        out.extend(node.dependents.into_keys().map(Action::Delete));
        out
    }

    /// An attempt found no object for the virtual node `identity` (upstream's virtual
    /// delete event): the owner is absent under these coordinates (remembered when
    /// `record`), and its dependents are attempted. The node stays while some
    /// dependent names the uid otherwise.
    pub fn absent(&mut self, identity: &Identity, record: bool) -> Vec<Action> {
        let Some(node) = self.nodes.get(&identity.uid) else {
            return Vec::new();
        };
        if node.observed() {
            // The informer is the authority on observed objects: its delete follows.
            return Vec::new();
        }
        let deps: Vec<Uid> = node.dependents.keys().cloned().collect();
        let all_match = deps.iter().filter_map(|d| self.nodes.get(d)).all(|dep| {
            (identity.namespace.is_empty() || dep.identity.namespace == identity.namespace)
                && dep
                    .owners
                    .iter()
                    .filter(|r| *r.uid == *identity.uid)
                    .all(|r| r.matches(identity))
        });
        if record {
            self.absent.insert(identity.clone());
        }
        if all_match {
            self.nodes.remove(&identity.uid);
        }
        deps.into_iter().map(Action::Delete).collect()
    }

    /// What the graph knows of `r`, named by a dependent in `namespace`, whose kind is
    /// namespaced or not (`None`: ask the API).
    pub fn known(&self, r: &OwnerRef, namespace: &str, namespaced: bool) -> Option<Known> {
        if self.gone.contains(r.uid.as_str()) {
            return Some(Known::Dangling);
        }
        let owner_ns = if namespaced { namespace } else { "" };
        if self.absent.contains(&r.identity(owner_ns)) {
            return Some(Known::Dangling);
        }
        let node = self.nodes.get(r.uid.as_str()).filter(|n| n.observed())?;
        let id = &node.identity;
        let same = id.name == r.name
            && *id.kind == *r.kind
            && group_of(&id.api_version) == group_of(&r.api_version)
            && *id.namespace == *owner_ns;
        // Anything else (another namespace, other coordinates) is for the API to say.
        same.then_some(if node.deleting_dependents {
            Known::Waiting
        } else {
            Known::Solid
        })
    }

    /// Whether an attempt verified the owner `r` names absent (upstream checks its
    /// cache under the cluster-scoped coordinates, then the dependent's namespace).
    /// Deleted uids are not consulted here: a cluster-scoped dependent of a deleted
    /// namespaced owner is invalid, not garbage ([`Graph::known`] comes after that).
    pub fn is_absent(&self, r: &OwnerRef, namespace: &str) -> bool {
        self.absent.contains(&r.identity("")) || self.absent.contains(&r.identity(namespace))
    }

    /// Records an owner an API lookup did not find.
    pub fn record_absent(&mut self, identity: Identity) {
        self.absent.insert(identity);
    }

    /// Replaces the owners of `uid` (upstream's `referencesDiffs` and what follows).
    fn set_owners(&mut self, uid: &str, new: Vec<OwnerRef>, out: &mut Vec<Action>) {
        let Some(node) = self.nodes.get_mut(uid) else {
            return;
        };
        let old = std::mem::replace(&mut node.owners, new.clone());
        if old == new {
            return;
        }
        let before: HashMap<&str, &OwnerRef> = old.iter().map(|r| (r.uid.as_str(), r)).collect();
        let after: HashMap<&str, &OwnerRef> = new.iter().map(|r| (r.uid.as_str(), r)).collect();
        // A blocking reference removed or made non-blocking may let its owner go.
        for (owner, r) in &before {
            let unblocked = r.blocks() && after.get(owner).is_none_or(|n| !n.blocks());
            if unblocked && let Some((owner, _)) = self.nodes.get_key_value(*owner) {
                out.push(Action::Delete(owner.clone()));
            }
        }
        for owner in before.keys().filter(|o| !after.contains_key(*o)) {
            self.unlink(owner, uid);
        }
        let added: Vec<OwnerRef> = new
            .iter()
            .filter(|r| !before.contains_key(r.uid.as_str()))
            .cloned()
            .collect();
        for r in new.iter().filter(|r| before.contains_key(r.uid.as_str())) {
            let blocks = blocks_owner(&new, &r.uid);
            self.link(&r.uid, uid, blocks);
        }
        self.add_to_owners(uid, &added, out);
    }

    /// Adds `uid` to the dependents of the owners `refs` name, making virtual nodes for
    /// owners not seen yet (upstream's `addDependentToOwners`).
    fn add_to_owners(&mut self, uid: &str, refs: &[OwnerRef], out: &mut Vec<Action>) {
        let Some(node) = self.nodes.get(uid) else {
            return;
        };
        let me = node.identity.clone();
        let all = node.owners.clone();
        let mut suspicious = false;
        for r in refs {
            let blocks = blocks_owner(&all, &r.uid);
            let Some((owner_uid, owner)) = self.nodes.get_key_value(r.uid.as_str()) else {
                let owner = r.identity(&me.namespace);
                let owner_uid = owner.uid.clone();
                self.nodes
                    .insert(owner_uid.clone(), Box::new(Node::new(owner, None)));
                self.link(&r.uid, uid, blocks);
                out.push(Action::Delete(owner_uid));
                continue;
            };
            let owner_uid = owner_uid.clone();
            let (waiting, orphaning) = (owner.deleting_dependents, owner.orphaning);
            if !suspicious {
                let owner_id = &owner.identity;
                let owner_namespaced = !owner_id.namespace.is_empty();
                if owner_namespaced && owner_id.namespace != me.namespace {
                    if owner.observed() {
                        out.push(Action::InvalidNamespace {
                            dependent: me.clone(),
                            owner: r.clone(),
                        });
                    }
                    suspicious = true;
                } else if !r.matches(owner_id)
                    || (!owner_namespaced
                        && owner_id.namespace != me.namespace
                        && !owner.observed())
                {
                    suspicious = true;
                }
            }
            self.link(&r.uid, uid, blocks);
            if waiting {
                // Its owner already waits for its dependents: this one too.
                out.push(Action::Delete(me.uid.clone()));
            }
            if orphaning {
                // Named by a dependent while it orphans them: this one is orphaned too.
                out.push(Action::Orphan(owner_uid));
            }
        }
        if suspicious {
            out.push(Action::Delete(me.uid));
        }
    }

    fn link(&mut self, owner: &str, dependent: &str, blocks: bool) {
        // The dependent's node holds the copy of its uid to share.
        let dependent = match self.nodes.get_key_value(dependent) {
            Some((uid, _)) => uid.clone(),
            None => Arc::from(dependent),
        };
        let Some(o) = self.nodes.get_mut(owner) else {
            return;
        };
        if o.dependents.insert(dependent, blocks) == Some(true) {
            o.blocking -= 1;
        }
        if blocks {
            o.blocking += 1;
        }
    }

    fn unlink(&mut self, owner: &str, dependent: &str) {
        let Some(o) = self.nodes.get_mut(owner) else {
            return;
        };
        if o.dependents.remove(dependent) == Some(true) {
            o.blocking -= 1;
        }
        // A virtual node lives only while something names it.
        if !o.observed() && o.dependents.is_empty() {
            self.nodes.remove(owner);
        }
    }
}

/// Whether any of `refs` naming `owner` blocks its deletion.
fn blocks_owner(refs: &[OwnerRef], owner: &str) -> bool {
    refs.iter().any(|r| r.uid == owner && r.blocks())
}

fn unique_uids(refs: &[OwnerRef]) -> Vec<String> {
    let mut uids: Vec<String> = refs.iter().map(|r| r.uid.clone()).collect();
    uids.sort();
    uids.dedup();
    uids
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
