//! Given RBAC objects against the requests a user made: what is missing, what is
//! never used.

use std::collections::{BTreeMap, BTreeSet};

use crd_runtime::rbac::{Binding, Policy, PolicyRule, RBAC_GROUP, RoleRef, Subject, applies_to};

use super::{Request, verb_rank};

/// A request the given RBAC objects do not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// The request.
    pub request: Request,
    /// kube-apiserver's denial text for it
    /// (`User "u" cannot list resource "pods" in API group "" in the namespace "demo"`).
    pub message: String,
}

/// A rule of a given role that no request needed (one API group, resource and set of
/// names; the verbs no request used).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unused {
    /// The role: `Role "demo/name"`, `ClusterRole "name"`, or `ClusterRole "name" in
    /// the namespace "demo"` when a RoleBinding grants it.
    pub role: String,
    /// The unused part of its rules.
    pub rule: PolicyRule,
}

/// What [`check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// How many distinct requests were checked.
    pub requests: usize,
    /// How many roles applied to the user.
    pub roles: usize,
    /// Requests the roles do not allow, in request order.
    pub missing: Vec<Missing>,
    /// Rules no request used, by role.
    pub unused: Vec<Unused>,
}

/// Compares `policy` with the requests one user made. The roles that count are the
/// ones `policy`'s bindings give that user (by name, group or service account, as
/// kube-apiserver resolves them); a policy without any binding is read as if every
/// Role were bound in its namespace and every ClusterRole cluster-wide.
pub fn check(requests: &[Request], policy: &Policy) -> CheckReport {
    let Some(first) = requests.first() else {
        return CheckReport::default();
    };
    let mut bound;
    let policy = if policy.bindings.is_empty() {
        bound = policy.clone();
        bind_everything(&mut bound, &first.attributes.user.name);
        &bound
    } else {
        policy
    };
    let missing = requests
        .iter()
        .filter(|r| policy.authorize(&r.attributes).is_err())
        .map(|r| Missing {
            request: r.clone(),
            message: r.attributes.forbidden_message(),
        })
        .collect();
    let user = &first.attributes.user;
    let applying: Vec<&Binding> = policy
        .bindings
        .iter()
        .filter(|b| b.subjects.iter().any(|s| applies_to(user, s, &b.namespace)))
        .collect();
    let mut seen_roles = BTreeSet::new();
    // (role, group, resource, names or URL) -> unused verbs, in first-seen order.
    let mut unused: BTreeMap<(String, PolicyRule), BTreeSet<String>> = BTreeMap::new();
    let mut order: Vec<(String, PolicyRule)> = Vec::new();
    for binding in applying {
        let Ok(rules) = policy.role_ref_rules(&binding.role_ref, &binding.namespace) else {
            continue;
        };
        let role = describe(&binding.role_ref, &binding.namespace);
        if !seen_roles.insert(role.clone()) {
            continue;
        }
        for piece in rules.iter().flat_map(PolicyRule::breakdown) {
            let used = requests.iter().any(|r| {
                (binding.namespace.is_empty() || r.attributes.namespace == binding.namespace)
                    && piece.allows(&r.attributes)
            });
            if used {
                continue;
            }
            let verb = piece.verbs[0].clone();
            let key = (
                role.clone(),
                PolicyRule {
                    verbs: Vec::new(),
                    ..piece
                },
            );
            if !unused.contains_key(&key) {
                order.push(key.clone());
            }
            unused.entry(key).or_default().insert(verb);
        }
    }
    let unused = order
        .into_iter()
        .map(|key| {
            let mut verbs: Vec<String> = unused[&key].iter().cloned().collect();
            verbs.sort_by(|a, b| verb_rank(a).cmp(&verb_rank(b)));
            let (role, rule) = key;
            Unused {
                role,
                rule: PolicyRule { verbs, ..rule },
            }
        })
        .collect();
    CheckReport {
        requests: requests.len(),
        roles: seen_roles.len(),
        missing,
        unused,
    }
}

/// Binds every Role (in its namespace) and ClusterRole (cluster-wide) to `user`.
fn bind_everything(policy: &mut Policy, user: &str) {
    let subject = Subject {
        kind: "User".into(),
        api_group: RBAC_GROUP.into(),
        name: user.to_string(),
        namespace: String::new(),
    };
    let role_ref = |kind: &str, name: &str| RoleRef {
        api_group: RBAC_GROUP.into(),
        kind: kind.into(),
        name: name.into(),
    };
    let roles = policy.roles.keys().map(|(ns, name)| Binding {
        name: name.clone(),
        namespace: ns.clone(),
        subjects: vec![subject.clone()],
        role_ref: role_ref("Role", name),
    });
    let cluster_roles = policy.cluster_roles.keys().map(|name| Binding {
        name: name.clone(),
        namespace: String::new(),
        subjects: vec![subject.clone()],
        role_ref: role_ref("ClusterRole", name),
    });
    let bindings: Vec<Binding> = roles.chain(cluster_roles).collect();
    policy.bindings = bindings;
}

fn describe(role_ref: &RoleRef, binding_namespace: &str) -> String {
    let q = crd_runtime::__private::go::quote;
    match (role_ref.kind.as_str(), binding_namespace) {
        ("Role", ns) => format!("Role {}", q(&format!("{ns}/{}", role_ref.name))),
        (kind, "") => format!("{kind} {}", q(&role_ref.name)),
        (kind, ns) => format!("{kind} {} in the namespace {}", q(&role_ref.name), q(ns)),
    }
}
