//! The RBAC objects the authorizer decides with, followed in the store as
//! kube-apiserver's RBAC informers follow them: Roles, ClusterRoles, RoleBindings and
//! ClusterRoleBindings listed at start, then watched; every change rebuilds the
//! [`Policy`] (aggregated ClusterRoles resolved to the union of the rules of the
//! ClusterRoles their selectors match, as the aggregation controller writes them).
//!
//! A denial re-reads the store when it changed since the last read, so a request that
//! follows the write of a binding sees it (what a test expects of its own writes).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, RwLock, Weak};

use crd_runtime::rbac::{Policy, PolicyRule};
use serde_json::{Value, json};

use crate::follow::{Follower, list_and_watch};
use crate::store::{EventKind, ListOptions, Store, WatchEvent};

const PREFIXES: [&str; 4] = [
    "/registry/roles/",
    "/registry/clusterroles/",
    "/registry/rolebindings/",
    "/registry/clusterrolebindings/",
];

/// Whether a ClusterRole's labels match one of an `aggregationRule`'s selectors (the
/// server's label selector matching, given by the caller).
pub type LabelMatcher = fn(&Value, Option<&serde_json::Map<String, Value>>) -> bool;

/// The followed objects and the policy built from them.
pub struct RbacPolicy {
    store: Arc<dyn Store>,
    matches: LabelMatcher,
    policy: RwLock<Arc<Policy>>,
    /// The stored objects of each prefix, by key; and the store revision of the last
    /// full read.
    objects: Mutex<([BTreeMap<String, Value>; 4], u64)>,
    tasks: Mutex<Vec<tokio::task::AbortHandle>>,
}

impl Drop for RbacPolicy {
    fn drop(&mut self) {
        for t in self.tasks.get_mut().map(std::mem::take).unwrap_or_default() {
            t.abort();
        }
    }
}

impl RbacPolicy {
    /// Reads the RBAC objects and starts following them.
    pub async fn start(
        store: Arc<dyn Store>,
        matches: LabelMatcher,
    ) -> Result<Arc<RbacPolicy>, String> {
        let this = Arc::new(RbacPolicy {
            store: store.clone(),
            matches,
            policy: RwLock::new(Arc::new(Policy::new())),
            objects: Mutex::new((Default::default(), 0)),
            tasks: Mutex::new(Vec::new()),
        });
        let revisions = this.read_all().await?;
        let mut tasks = Vec::new();
        for (i, revision) in revisions.into_iter().enumerate() {
            let weak = Arc::downgrade(&this);
            let store = store.clone();
            tasks.push(tokio::spawn(follow(store, i, revision, weak)).abort_handle());
        }
        *this.tasks.lock().unwrap_or_else(|e| e.into_inner()) = tasks;
        Ok(this)
    }

    /// The policy now.
    pub fn current(&self) -> Arc<Policy> {
        self.policy
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Re-reads the store if it changed since the last full read; answers whether the
    /// policy may have changed.
    pub async fn refresh(&self) -> bool {
        let Ok(now) = self.store.current_revision().await else {
            return false;
        };
        let last = self.objects.lock().unwrap_or_else(|e| e.into_inner()).1;
        if now == last {
            return false;
        }
        self.read_all().await.is_ok()
    }

    /// Lists every prefix and rebuilds; answers each list's revision.
    async fn read_all(&self) -> Result<Vec<u64>, String> {
        let mut maps: [BTreeMap<String, Value>; 4] = Default::default();
        let mut revisions = Vec::new();
        let mut oldest = u64::MAX;
        for (i, prefix) in PREFIXES.iter().enumerate() {
            let listed = self
                .store
                .list(prefix, ListOptions::default())
                .await
                .map_err(|e| format!("cannot read {prefix}: {e}"))?;
            for kv in listed.items {
                if let Ok(v) = serde_json::from_slice::<Value>(&kv.value) {
                    maps[i].insert(kv.key, v);
                }
            }
            oldest = oldest.min(listed.revision);
            revisions.push(listed.revision);
        }
        self.install(maps, oldest);
        Ok(revisions)
    }

    /// Takes the objects listed at `revision` unless a read listed after them has
    /// been taken already: two reads may overlap (two requests refused at once), and
    /// the earlier one finishing last would judge requests by a policy from before a
    /// binding they are allowed by.
    fn install(&self, maps: [BTreeMap<String, Value>; 4], revision: u64) -> bool {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        if revision < objects.1 {
            return false;
        }
        objects.0 = maps;
        objects.1 = revision;
        self.rebuild(&objects.0);
        true
    }

    fn rebuild(&self, maps: &[BTreeMap<String, Value>; 4]) {
        let policy = build(maps, self.matches);
        *self.policy.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(policy);
    }

    fn apply(&self, i: usize, key: String, value: Option<Value>) {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        match value {
            Some(v) => objects.0[i].insert(key, v),
            None => objects.0[i].remove(&key),
        };
        self.rebuild(&objects.0);
    }
}

async fn follow(store: Arc<dyn Store>, i: usize, revision: u64, this: Weak<RbacPolicy>) {
    let mut follower = PrefixFollower { i, this };
    list_and_watch(store.as_ref(), PREFIXES[i], revision, &mut follower).await;
}

/// The objects of `PREFIXES[i]`, while the policy is held.
struct PrefixFollower {
    i: usize,
    this: Weak<RbacPolicy>,
}

impl Follower for PrefixFollower {
    async fn relist(&mut self) -> ControlFlow<(), Option<u64>> {
        let Some(policy) = self.this.upgrade() else {
            return ControlFlow::Break(());
        };
        let read = policy.read_all().await;
        ControlFlow::Continue(read.ok().map(|revisions| revisions[self.i]))
    }

    fn on_event(&mut self, e: WatchEvent) -> ControlFlow<()> {
        let Some(policy) = self.this.upgrade() else {
            return ControlFlow::Break(());
        };
        let value = match e.kind {
            EventKind::Put => serde_json::from_slice(&e.kv.value).ok(),
            EventKind::Delete => None,
        };
        policy.apply(self.i, e.kv.key, value);
        ControlFlow::Continue(())
    }
}

/// The policy of the stored objects: aggregated ClusterRoles resolved first.
pub fn build(maps: &[BTreeMap<String, Value>; 4], matches: LabelMatcher) -> Policy {
    let mut cluster_roles: Vec<Value> = maps[1].values().cloned().collect();
    aggregate(&mut cluster_roles, matches);
    let mut policy = Policy::new();
    let objects = maps[0]
        .values()
        .chain(cluster_roles.iter())
        .chain(maps[2].values())
        .chain(maps[3].values());
    for obj in objects {
        // A stored object the policy cannot read is left out (its write was validated).
        let _ = policy.add(obj);
    }
    policy
}

/// Gives each ClusterRole with an `aggregationRule` the rules of the ClusterRoles its
/// selectors match (repeated until nothing changes: `view` aggregates into `edit`,
/// `edit` into `admin`).
pub fn aggregate(roles: &mut [Value], matches: LabelMatcher) {
    for _ in 0..roles.len().max(1) {
        let mut changed = false;
        for i in 0..roles.len() {
            let Some(selectors) = roles[i]
                .pointer("/aggregationRule/clusterRoleSelectors")
                .and_then(Value::as_array)
                .cloned()
            else {
                continue;
            };
            let name = roles[i]["metadata"]["name"].clone();
            let mut rules: Vec<Value> = Vec::new();
            for other in roles.iter() {
                if other["metadata"]["name"] == name {
                    continue;
                }
                let labels = other.pointer("/metadata/labels").and_then(Value::as_object);
                if selectors.iter().any(|s| matches(s, labels)) {
                    for rule in other["rules"].as_array().into_iter().flatten() {
                        if !rules.contains(rule) {
                            rules.push(rule.clone());
                        }
                    }
                }
            }
            let rules = json!(rules);
            if roles[i].get("rules") != Some(&rules) {
                roles[i]["rules"] = rules;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// The rules of a user's policy as a rules review lists them.
pub fn review_rules(rules: &[PolicyRule]) -> (Vec<Value>, Vec<Value>) {
    let mut resources = Vec::new();
    let mut non_resources = Vec::new();
    for r in rules {
        if r.non_resource_urls.is_empty() {
            let mut v =
                json!({"verbs": r.verbs, "apiGroups": r.api_groups, "resources": r.resources});
            if !r.resource_names.is_empty() {
                v["resourceNames"] = json!(r.resource_names);
            }
            resources.push(v);
        } else {
            non_resources.push(json!({"verbs": r.verbs, "nonResourceURLs": r.non_resource_urls}));
        }
    }
    (resources, non_resources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_read_that_listed_earlier_never_replaces_one_that_listed_later() {
        let store: Arc<dyn Store> = Arc::new(crate::store::MemoryStore::new());
        let matches: LabelMatcher = |_, _| false;
        let rbac = RbacPolicy::start(store, matches).await.expect("start");
        let binding = json!({"metadata": {"name": "b"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
            "subjects": [{"kind": "User", "name": "alice"}]});
        let mut newer: [BTreeMap<String, Value>; 4] = Default::default();
        newer[3].insert("/registry/clusterrolebindings/b".into(), binding);
        assert!(rbac.install(newer, 20));
        let bindings = |r: &RbacPolicy| r.objects.lock().unwrap().0[3].len();
        assert_eq!(bindings(&rbac), 1);
        assert!(!rbac.install(Default::default(), 10));
        assert_eq!(bindings(&rbac), 1);
        assert!(rbac.install(Default::default(), 20));
        assert_eq!(bindings(&rbac), 0);
    }

    #[test]
    fn aggregated_cluster_roles_take_the_rules_of_the_roles_they_select() {
        let mut roles = vec![
            json!({"metadata": {"name": "view", "labels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
                   "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}}]}}),
            json!({"metadata": {"name": "edit"},
                   "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}}]}}),
            json!({"metadata": {"name": "widgets-view", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
                   "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}]}),
        ];
        // matchLabels only, enough for the test.
        let matches: LabelMatcher = |s, labels| {
            let want = s["matchLabels"].as_object();
            want.is_some_and(|w| {
                !w.is_empty()
                    && w.iter()
                        .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
            })
        };
        aggregate(&mut roles, matches);
        assert_eq!(roles[0]["rules"][0]["resources"], json!(["widgets"]));
        // Through `view`, which aggregates into `edit`.
        assert_eq!(roles[1]["rules"], roles[0]["rules"]);
    }
}
