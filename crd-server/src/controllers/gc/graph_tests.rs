use super::*;

fn owner_ref(uid: &str, name: &str, blocks: bool) -> OwnerRef {
    OwnerRef {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: name.into(),
        uid: uid.into(),
        controller: None,
        block_owner_deletion: blocks.then_some(true),
    }
}

fn meta(ns: &str, name: &str, uid: &str, owners: Vec<OwnerRef>) -> Meta {
    Meta {
        name: name.into(),
        namespace: ns.into(),
        uid: uid.into(),
        owners,
        ..Meta::default()
    }
}

/// The object `ns/name` of `uid`, a dependent of the owner named `owner` of `owner_uid`.
fn dep(ns: &str, name: &str, uid: &str, owner_uid: &str, blocks: bool) -> Meta {
    meta(ns, name, uid, vec![owner_ref(owner_uid, "owner", blocks)])
}

/// A graph that has seen the owner `a/owner` of `uid`.
fn with_owner(uid: &str) -> Graph {
    let mut g = Graph::default();
    put(&mut g, meta("a", "owner", uid, vec![]));
    g
}

fn key(ns: &str, name: &str) -> String {
    format!("/registry/configmaps/{ns}/{name}")
}

fn put(g: &mut Graph, m: Meta) -> Vec<Action> {
    let k = key(&m.namespace, &m.name);
    g.observe(&k, "v1", "ConfigMap", m)
}

fn deletes(actions: &[Action]) -> Vec<String> {
    let mut uids: Vec<String> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Delete(u) => Some(u.to_string()),
            _ => None,
        })
        .collect();
    uids.sort();
    uids
}

#[test]
fn an_owner_seen_first_links_its_dependents_quietly() {
    let mut g = Graph::default();
    assert!(put(&mut g, meta("a", "owner", "o", vec![])).is_empty());
    let refs = vec![owner_ref("o", "owner", true)];
    assert!(put(&mut g, meta("a", "dep", "d", refs)).is_empty());
    let owner = g.node("o").unwrap();
    assert_eq!((owner.dependent_count(), owner.blocking()), (1, 1));
    assert_eq!(
        g.known(&owner_ref("o", "owner", false), "a", true),
        Some(Known::Solid)
    );
}

#[test]
fn an_owner_not_seen_yet_is_virtual_and_attempted() {
    let mut g = Graph::default();
    let actions = put(&mut g, dep("a", "dep", "d", "o", false));
    assert_eq!(actions, [Action::Delete("o".into())]);
    assert!(!g.node("o").unwrap().observed());
    assert_eq!(g.known(&owner_ref("o", "owner", false), "a", true), None);
    // Observed later: the same node, its dependents kept.
    assert!(put(&mut g, meta("a", "owner", "o", vec![])).is_empty());
    let owner = g.node("o").unwrap();
    assert!(owner.observed());
    assert_eq!(owner.dependent_count(), 1);
}

#[test]
fn a_deleted_owner_sends_its_dependents_to_attempts() {
    let mut g = with_owner("o");
    put(&mut g, dep("a", "d1", "d1", "o", false));
    put(&mut g, dep("a", "d2", "d2", "o", false));
    let actions = g.remove(&key("a", "owner"));
    assert_eq!(deletes(&actions), ["d1", "d2"]);
    assert!(g.node("o").is_none());
    // Whatever the coordinates: no object has that uid any more.
    assert_eq!(
        g.known(&owner_ref("o", "other-name", false), "b", true),
        Some(Known::Dangling)
    );
    // Only once the owner's scope is known (a cluster-scoped dependent of a namespaced
    // owner is invalid, not garbage).
    assert!(!g.is_absent(&owner_ref("o", "owner", false), ""));
    // A dependent's deletion no longer touches the owner.
    assert!(g.remove(&key("a", "d1")).is_empty());
}

#[test]
fn foreground_deletion_attempts_every_dependent_once() {
    let mut g = with_owner("o");
    put(&mut g, dep("a", "d1", "d1", "o", true));
    put(&mut g, dep("a", "d2", "d2", "o", false));
    let mut deleting = meta("a", "owner", "o", vec![]);
    deleting.being_deleted = true;
    deleting.foreground = true;
    let actions = put(&mut g, deleting.clone());
    assert_eq!(deletes(&actions), ["d1", "d2", "o"]);
    assert_eq!(
        g.known(&owner_ref("o", "owner", false), "a", true),
        Some(Known::Waiting)
    );
    // The same state again is no transition.
    assert!(put(&mut g, deleting).is_empty());
    assert_eq!(g.node("o").unwrap().blocking(), 1);
    // The blocking dependent goes: the owner is attempted (it may finish now).
    assert_eq!(deletes(&g.remove(&key("a", "d1"))), ["o"]);
    assert_eq!(g.node("o").unwrap().blocking(), 0);
    // A dependent added while the owner waits is attempted at once.
    let actions = put(&mut g, dep("a", "d3", "d3", "o", true));
    assert_eq!(deletes(&actions), ["d3"]);
}

#[test]
fn orphaning_starts_once() {
    let mut g = Graph::default();
    let mut m = meta("a", "owner", "o", vec![]);
    put(&mut g, m.clone());
    m.being_deleted = true;
    m.orphan = true;
    assert_eq!(put(&mut g, m.clone()), [Action::Orphan("o".into())]);
    assert!(put(&mut g, m).is_empty());
    // A dependent appearing meanwhile brings the orphaning back.
    let actions = put(&mut g, dep("a", "late", "l", "o", false));
    assert_eq!(actions, [Action::Orphan("o".into())]);
}

#[test]
fn an_unblocked_reference_lets_the_owner_be_attempted() {
    let mut g = with_owner("o");
    put(&mut g, dep("a", "d", "d", "o", true));
    assert_eq!(g.node("o").unwrap().blocking(), 1);
    let actions = put(&mut g, dep("a", "d", "d", "o", false));
    assert_eq!(deletes(&actions), ["o"]);
    assert_eq!(g.node("o").unwrap().blocking(), 0);
    assert_eq!(g.node("o").unwrap().dependent_count(), 1);
    let actions = put(&mut g, meta("a", "d", "d", vec![]));
    assert!(deletes(&actions).is_empty());
    assert_eq!(g.node("o").unwrap().dependent_count(), 0);
}

#[test]
fn owners_in_another_namespace_are_reported() {
    let mut g = with_owner("o");
    let actions = put(&mut g, dep("b", "dep", "d", "o", false));
    let Action::InvalidNamespace { dependent, owner } = &actions[0] else {
        panic!("expected a warning first: {actions:?}");
    };
    assert_eq!((&*dependent.namespace, owner.uid.as_str()), ("b", "o"));
    assert_eq!(deletes(&actions), ["d"]);
    // Nor does the graph vouch for it from there.
    assert_eq!(g.known(&owner_ref("o", "owner", false), "b", true), None);
    // A cluster-scoped dependent of a namespaced owner, likewise.
    let k = "/registry/clusterroles/cr";
    let actions = g.observe(
        k,
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        dep("", "cr", "c", "o", false),
    );
    assert!(
        matches!(&actions[0], Action::InvalidNamespace { dependent, .. } if dependent.namespace.is_empty())
    );
}

#[test]
fn a_virtual_owner_seen_elsewhere_reports_its_dependents() {
    let mut g = Graph::default();
    put(&mut g, dep("b", "dep", "d", "o", false));
    let actions = put(&mut g, meta("a", "owner", "o", vec![]));
    assert!(
        matches!(&actions[0], Action::InvalidNamespace { dependent, .. } if &*dependent.uid == "d")
    );
    assert_eq!(deletes(&actions), ["d"]);
}

#[test]
fn an_absent_virtual_owner_goes_unless_named_otherwise() {
    let mut g = Graph::default();
    put(&mut g, dep("a", "d1", "d1", "o", false));
    let id = owner_ref("o", "owner", false).identity("a");
    assert_eq!(deletes(&g.absent(&id, true)), ["d1"]);
    assert!(g.node("o").is_none());
    assert!(g.is_absent(&owner_ref("o", "owner", false), "a"));
    assert!(!g.is_absent(&owner_ref("o", "owner", false), "b"));

    // Two dependents name the uid differently: the node stays for the other name.
    put(
        &mut g,
        meta("a", "d2", "d2", vec![owner_ref("p", "one", false)]),
    );
    put(
        &mut g,
        meta("a", "d3", "d3", vec![owner_ref("p", "two", false)]),
    );
    let id = owner_ref("p", "one", false).identity("a");
    assert_eq!(deletes(&g.absent(&id, true)), ["d2", "d3"]);
    assert!(g.node("p").is_some());
    // An observed node is the informer's to remove.
    put(&mut g, meta("a", "owner", "q", vec![]));
    let id = owner_ref("q", "owner", false).identity("a");
    assert!(g.absent(&id, true).is_empty());
    assert!(g.node("q").is_some());
}

#[test]
fn a_virtual_node_lives_while_named() {
    let mut g = Graph::default();
    put(&mut g, dep("a", "d", "d", "o", false));
    assert!(g.node("o").is_some());
    put(&mut g, meta("a", "d", "d", vec![]));
    assert!(g.node("o").is_none());
    assert_eq!(g.len(), 1);
}

#[test]
fn a_key_recreated_with_another_uid_replaces_the_old_object() {
    let mut g = with_owner("o1");
    put(&mut g, dep("a", "d", "d", "o1", false));
    // Deleted and created again while the watch was broken: one put, another uid.
    let actions = put(&mut g, meta("a", "owner", "o2", vec![]));
    assert_eq!(deletes(&actions), ["d"]);
    assert!(g.node("o1").is_none());
    // Same name, other uid: the reference is dangling.
    assert_eq!(
        g.known(&owner_ref("o1", "owner", false), "a", true),
        Some(Known::Dangling)
    );
}

#[test]
fn recent_forgets_the_oldest() {
    let mut r = Recent::new(2);
    r.insert(1);
    r.insert(2);
    r.insert(2);
    r.insert(3);
    assert!(!r.contains(&1) && r.contains(&2) && r.contains(&3));
}

#[test]
fn each_uid_and_key_is_held_once() {
    let mut g = with_owner("o");
    put(&mut g, dep("a", "d", "d", "o", true));
    // Seen again: the copies stay the ones first made.
    put(&mut g, dep("a", "d", "d", "o", true));
    let (uid, node) = g.nodes.get_key_value("d").unwrap();
    assert!(Arc::ptr_eq(uid, &node.identity.uid));
    let key = node.key.as_ref().unwrap();
    let (table_key, table_uid) = g.by_key.get_key_value(&**key).unwrap();
    assert!(Arc::ptr_eq(table_key, key) && Arc::ptr_eq(table_uid, uid));
    let owner = g.node("o").unwrap();
    let dependent = owner.dependents().next().unwrap();
    assert!(Arc::ptr_eq(dependent, uid));
    // No dependent, no table.
    assert!(g.node("d").unwrap().dependents.0.is_none());
    assert!(owner.dependents.0.is_some());
}
