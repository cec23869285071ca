//! The smallest Roles and ClusterRoles that allow a set of requests.

use std::collections::{BTreeMap, BTreeSet};

use crd_runtime::rbac::{PolicyRule, RBAC_GROUP, split_service_account};
use serde_json::{Value, json};

use super::{Request, verb_rank};

/// How [`minimal_roles`] names and shapes what it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleOptions {
    /// The name of every Role and ClusterRole (and binding) written.
    pub name: String,
    /// Limit `get`, `update`, `patch` and `delete` rules to the object names the
    /// requests named (`resourceNames`) — when every such request named one.
    pub resource_names: bool,
    /// Also write the RoleBindings and ClusterRoleBinding that give the roles to
    /// this user (`User`, or `ServiceAccount` for `system:serviceaccount:NS:NAME`).
    pub bindings_for: Option<String>,
}

impl RoleOptions {
    /// Roles called `name`, without resource names or bindings.
    pub fn named(name: &str) -> RoleOptions {
        RoleOptions {
            name: name.to_string(),
            resource_names: false,
            bindings_for: None,
        }
    }
}

/// Verbs whose requests always name one object, and which `resourceNames` can limit.
const NAMED_VERBS: [&str; 4] = ["get", "update", "patch", "delete"];

/// What one scope (a namespace, or `""` for cluster-wide) needs: per
/// (API group, resource or resource/subresource) the verbs, and per verb the names
/// (`None` once a request of that verb named nothing); per non-resource path the verbs.
#[derive(Default)]
struct Scope {
    resources: BTreeMap<(String, String), VerbNames>,
    paths: BTreeMap<String, BTreeSet<String>>,
}

/// Per verb, the object names its requests named (`None`: some named none).
type VerbNames = BTreeMap<String, Option<BTreeSet<String>>>;

/// A limited rule's API groups, resources and names.
type Limited = (Vec<String>, Vec<String>, Vec<String>);

/// Roles (one per namespace the requests touched) and a ClusterRole (for
/// cluster-scoped and all-namespace requests and non-resource URLs) whose rules
/// allow every request in `requests` and nothing a request did not need beyond
/// its verb, resource and API group — as `rbac.authorization.k8s.io/v1` objects,
/// the ClusterRole first, then the Roles by namespace, then any bindings.
pub fn minimal_roles(requests: &[Request], options: &RoleOptions) -> Vec<Value> {
    let mut scopes: BTreeMap<String, Scope> = BTreeMap::new();
    for r in requests {
        let a = &r.attributes;
        if !a.resource_request {
            scopes
                .entry(String::new())
                .or_default()
                .paths
                .entry(a.path.clone())
                .or_default()
                .insert(a.verb.clone());
            continue;
        }
        let names = scopes
            .entry(a.namespace.clone())
            .or_default()
            .resources
            .entry((a.api_group.clone(), a.combined_resource()))
            .or_default()
            .entry(a.verb.clone())
            .or_insert_with(|| Some(BTreeSet::new()));
        match names {
            Some(set) if !a.name.is_empty() => {
                set.insert(a.name.clone());
            }
            _ => *names = None,
        }
    }
    let mut out = Vec::new();
    let mut bound = Vec::new();
    for (namespace, scope) in &scopes {
        let rules = rules_of(scope, options.resource_names);
        let mut metadata = json!({"name": options.name});
        if !namespace.is_empty() {
            metadata["namespace"] = json!(namespace);
        }
        let kind = if namespace.is_empty() {
            "ClusterRole"
        } else {
            "Role"
        };
        out.push(json!({
            "apiVersion": format!("{RBAC_GROUP}/v1"),
            "kind": kind,
            "metadata": metadata,
            "rules": rules,
        }));
        bound.push(namespace.clone());
    }
    if let Some(user) = &options.bindings_for {
        for namespace in bound {
            out.push(binding(&options.name, &namespace, user));
        }
    }
    out
}

/// The rules of one scope: resources with the same API group, verbs (and no
/// names) share a rule; limited rules stand alone.
fn rules_of(scope: &Scope, resource_names: bool) -> Vec<PolicyRule> {
    // (group, verbs) -> resources; limited: one rule per (group, resource, verb, names).
    let mut shared: BTreeMap<(String, Vec<String>), Vec<String>> = BTreeMap::new();
    let mut limited: Vec<PolicyRule> = Vec::new();
    for ((group, resource), verbs) in &scope.resources {
        let mut open: Vec<String> = Vec::new();
        for (verb, names) in verbs {
            match names {
                Some(names) if resource_names && NAMED_VERBS.contains(&verb.as_str()) => limited
                    .push(PolicyRule {
                        api_groups: vec![group.clone()],
                        resources: vec![resource.clone()],
                        resource_names: names.iter().cloned().collect(),
                        verbs: vec![verb.clone()],
                        ..PolicyRule::default()
                    }),
                _ => open.push(verb.clone()),
            }
        }
        if !open.is_empty() {
            open.sort_by(|a, b| verb_rank(a).cmp(&verb_rank(b)));
            shared
                .entry((group.clone(), open))
                .or_default()
                .push(resource.clone());
        }
    }
    let mut rules: Vec<PolicyRule> = shared
        .into_iter()
        .map(|((group, verbs), resources)| PolicyRule {
            api_groups: vec![group],
            resources,
            verbs,
            ..PolicyRule::default()
        })
        .collect();
    // Limited rules of one resource and names with several verbs merge.
    let mut merged: BTreeMap<Limited, Vec<String>> = BTreeMap::new();
    for r in limited {
        merged
            .entry((r.api_groups, r.resources, r.resource_names))
            .or_default()
            .extend(r.verbs);
    }
    for ((api_groups, resources, resource_names), mut verbs) in merged {
        verbs.sort_by(|a, b| verb_rank(a).cmp(&verb_rank(b)));
        rules.push(PolicyRule {
            api_groups,
            resources,
            resource_names,
            verbs,
            ..PolicyRule::default()
        });
    }
    let mut by_verbs: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (path, verbs) in &scope.paths {
        let mut verbs: Vec<String> = verbs.iter().cloned().collect();
        verbs.sort_by(|a, b| verb_rank(a).cmp(&verb_rank(b)));
        by_verbs.entry(verbs).or_default().push(path.clone());
    }
    for (verbs, urls) in by_verbs {
        rules.push(PolicyRule {
            non_resource_urls: urls,
            verbs,
            ..PolicyRule::default()
        });
    }
    rules
}

/// The binding of role `name` in `namespace` (`""`: a ClusterRoleBinding) to `user`.
fn binding(name: &str, namespace: &str, user: &str) -> Value {
    let subject = match split_service_account(user) {
        Some((ns, sa)) => json!({"kind": "ServiceAccount", "name": sa, "namespace": ns}),
        None => json!({"kind": "User", "apiGroup": RBAC_GROUP, "name": user}),
    };
    let (kind, role_kind) = if namespace.is_empty() {
        ("ClusterRoleBinding", "ClusterRole")
    } else {
        ("RoleBinding", "Role")
    };
    let mut metadata = json!({"name": name});
    if !namespace.is_empty() {
        metadata["namespace"] = json!(namespace);
    }
    json!({
        "apiVersion": format!("{RBAC_GROUP}/v1"),
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": name},
        "subjects": [subject],
    })
}
