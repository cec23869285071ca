//! Roles, bindings and the rules they give a user in a namespace — kube-apiserver's
//! `DefaultRuleResolver` (pkg/registry/rbac/validation/rule.go) over a fixed set of
//! objects — and the RBAC authorizer's decision on it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Attributes, PolicyRule, UserInfo};

/// The API group of RBAC objects.
pub const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// A binding's `subjects[]` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// `User`, `Group` or `ServiceAccount`.
    pub kind: String,
    /// `rbac.authorization.k8s.io` for users and groups, `""` for service accounts.
    #[serde(rename = "apiGroup", default, skip_serializing_if = "String::is_empty")]
    pub api_group: String,
    /// The user, group or service account name.
    pub name: String,
    /// A service account's namespace (defaults to a RoleBinding's own).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
}

/// A binding's `roleRef`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleRef {
    /// `rbac.authorization.k8s.io`.
    #[serde(rename = "apiGroup", default)]
    pub api_group: String,
    /// `Role` or `ClusterRole`.
    pub kind: String,
    /// The role's name.
    pub name: String,
}

/// A RoleBinding (with `namespace`) or a ClusterRoleBinding (without).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Binding {
    /// The binding's name.
    pub name: String,
    /// Its namespace; empty for a ClusterRoleBinding.
    pub namespace: String,
    /// Whom it binds.
    pub subjects: Vec<Subject>,
    /// What it binds them to.
    pub role_ref: RoleRef,
}

/// Where a rule came from, as kube-apiserver names it in an `allowed by` reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSource {
    /// `ClusterRoleBinding "name" of ClusterRole "r" to User "alice"` and the like.
    pub description: String,
}

/// What [`Policy::visit_rules_for`] meets: a rule and the binding that gives it, or
/// a binding whose role cannot be resolved.
#[derive(Clone, Copy, Debug)]
pub enum Visited<'a> {
    /// A rule that applies.
    Rule(&'a RuleSource, &'a PolicyRule),
    /// A resolution error (`clusterrole... "x" not found`).
    Error(&'a str),
}

/// The RBAC objects of a cluster (or of some manifests), indexed for resolving.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Roles by (namespace, name).
    pub roles: BTreeMap<(String, String), Vec<PolicyRule>>,
    /// ClusterRoles by name.
    pub cluster_roles: BTreeMap<String, Vec<PolicyRule>>,
    /// RoleBindings and ClusterRoleBindings.
    pub bindings: Vec<Binding>,
}

/// Why an RBAC object could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The object's kind.
    pub kind: String,
    /// Its `namespace/name` (or name).
    pub name: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.kind,
            crate::go::quote(&self.name),
            self.message
        )
    }
}

impl std::error::Error for PolicyError {}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn typed<T: serde::de::DeserializeOwned>(
    obj: &Value,
    field: &str,
    kind: &str,
    name: &str,
) -> Result<T, PolicyError> {
    let v = obj.get(field).cloned().unwrap_or(Value::Null);
    serde_json::from_value(if v.is_null() {
        Value::Array(Vec::new())
    } else {
        v
    })
    .map_err(|e| PolicyError {
        kind: kind.to_string(),
        name: name.to_string(),
        message: format!("{field}: {e}"),
    })
}

impl Policy {
    /// An empty policy.
    pub fn new() -> Policy {
        Policy::default()
    }

    /// Adds one object if it is a Role, ClusterRole, RoleBinding or
    /// ClusterRoleBinding of `rbac.authorization.k8s.io/v1`; returns whether it was.
    /// Other objects are ignored.
    pub fn add(&mut self, obj: &Value) -> Result<bool, PolicyError> {
        let api_version = str_at(obj, "/apiVersion");
        if api_version != format!("{RBAC_GROUP}/v1") {
            return Ok(false);
        }
        let kind = str_at(obj, "/kind");
        let name = str_at(obj, "/metadata/name").to_string();
        let namespace = str_at(obj, "/metadata/namespace").to_string();
        let shown = if namespace.is_empty() {
            name.clone()
        } else {
            format!("{namespace}/{name}")
        };
        match kind {
            "Role" | "ClusterRole" => {
                let rules: Vec<PolicyRule> = typed(obj, "rules", kind, &shown)?;
                if kind == "Role" {
                    self.roles.insert((namespace, name), rules);
                } else {
                    self.cluster_roles.insert(name, rules);
                }
            }
            "RoleBinding" | "ClusterRoleBinding" => {
                let subjects: Vec<Subject> = typed(obj, "subjects", kind, &shown)?;
                let role_ref: RoleRef =
                    serde_json::from_value(obj.get("roleRef").cloned().unwrap_or(Value::Null))
                        .map_err(|e| PolicyError {
                            kind: kind.to_string(),
                            name: shown.clone(),
                            message: format!("roleRef: {e}"),
                        })?;
                self.bindings.push(Binding {
                    name,
                    namespace: if kind == "RoleBinding" {
                        namespace
                    } else {
                        String::new()
                    },
                    subjects,
                    role_ref,
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The rules a role reference resolves to (`GetRoleReferenceRules`).
    pub fn role_ref_rules(
        &self,
        role_ref: &RoleRef,
        binding_namespace: &str,
    ) -> Result<&[PolicyRule], String> {
        match role_ref.kind.as_str() {
            "Role" => self
                .roles
                .get(&(binding_namespace.to_string(), role_ref.name.clone()))
                .map(Vec::as_slice)
                .ok_or_else(|| {
                    format!(
                        "role.rbac.authorization.k8s.io {:?} not found",
                        role_ref.name
                    )
                }),
            "ClusterRole" => self
                .cluster_roles
                .get(&role_ref.name)
                .map(Vec::as_slice)
                .ok_or_else(|| {
                    format!(
                        "clusterrole.rbac.authorization.k8s.io {:?} not found",
                        role_ref.name
                    )
                }),
            other => Err(format!("unsupported role reference kind: {other:?}")),
        }
    }

    /// Calls `visit` with every rule that applies to `user` in `namespace` (empty:
    /// cluster-wide only), ClusterRoleBindings first, then the namespace's
    /// RoleBindings (`VisitRulesFor`); `visit` returns `false` to stop. Bindings to
    /// missing roles are passed as errors.
    pub fn visit_rules_for(
        &self,
        user: &UserInfo,
        namespace: &str,
        visit: &mut dyn FnMut(Visited<'_>) -> bool,
    ) {
        let passes = [(true, ""), (false, namespace)];
        for (cluster, ns) in passes {
            if !cluster && ns.is_empty() {
                continue;
            }
            for binding in self
                .bindings
                .iter()
                .filter(|b| b.namespace.is_empty() == cluster && (cluster || b.namespace == ns))
            {
                let Some(subject) = binding
                    .subjects
                    .iter()
                    .find(|s| applies_to(user, s, &binding.namespace))
                else {
                    continue;
                };
                let rules = match self.role_ref_rules(&binding.role_ref, &binding.namespace) {
                    Ok(rules) => rules,
                    Err(e) => {
                        if !visit(Visited::Error(&e)) {
                            return;
                        }
                        continue;
                    }
                };
                let source = RuleSource {
                    description: describe(binding, subject),
                };
                for rule in rules {
                    if !visit(Visited::Rule(&source, rule)) {
                        return;
                    }
                }
            }
        }
    }

    /// Every rule that applies to `user` in `namespace` (`RulesFor`).
    pub fn rules_for(&self, user: &UserInfo, namespace: &str) -> Vec<PolicyRule> {
        let mut out = Vec::new();
        self.visit_rules_for(user, namespace, &mut |visited| {
            if let Visited::Rule(_, rule) = visited {
                out.push(rule.clone());
            }
            true
        });
        out
    }

    /// The RBAC authorizer's answer: `Ok(reason)` when a rule allows the request
    /// (`RBAC: allowed by ...`), `Err(reason)` otherwise (no opinion: empty, or the
    /// resolution errors met, `RBAC: [...]`).
    pub fn authorize(&self, attrs: &Attributes) -> Result<String, String> {
        let mut allowed = None;
        let mut errors = Vec::new();
        self.visit_rules_for(&attrs.user, &attrs.namespace, &mut |visited| {
            match visited {
                Visited::Rule(source, rule) if rule.allows(attrs) => {
                    allowed = Some(format!("RBAC: allowed by {}", source.description));
                    return false;
                }
                Visited::Rule(..) => {}
                Visited::Error(e) => errors.push(e.to_string()),
            }
            true
        });
        match allowed {
            Some(reason) => Ok(reason),
            None if errors.is_empty() => Err(String::new()),
            None => Err(format!("RBAC: {}", aggregate(&errors))),
        }
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one message as it is, several in brackets.
fn aggregate(messages: &[String]) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let unique: Vec<&String> = messages.iter().filter(|m| seen.insert(*m)).collect();
    match unique.as_slice() {
        [one] => one.to_string(),
        many => format!(
            "[{}]",
            many.iter()
                .map(|m| m.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `appliesToUser`: a service account subject without a namespace takes the
/// binding's.
pub fn applies_to(user: &UserInfo, subject: &Subject, binding_namespace: &str) -> bool {
    match subject.kind.as_str() {
        "User" => user.name == subject.name,
        "Group" => user.groups.contains(&subject.name),
        "ServiceAccount" => {
            let namespace = if subject.namespace.is_empty() {
                binding_namespace
            } else {
                &subject.namespace
            };
            !namespace.is_empty()
                && user.name == super::service_account_username(namespace, &subject.name)
        }
        _ => false,
    }
}

fn describe(binding: &Binding, subject: &Subject) -> String {
    let who = match subject.kind.as_str() {
        "ServiceAccount" => {
            let ns = if subject.namespace.is_empty() {
                &binding.namespace
            } else {
                &subject.namespace
            };
            format!(
                "{} {}",
                subject.kind,
                crate::go::quote(&format!("{}/{ns}", subject.name))
            )
        }
        _ => format!("{} {}", subject.kind, crate::go::quote(&subject.name)),
    };
    if binding.namespace.is_empty() {
        format!(
            "ClusterRoleBinding {} of {} {} to {who}",
            crate::go::quote(&binding.name),
            binding.role_ref.kind,
            crate::go::quote(&binding.role_ref.name)
        )
    } else {
        format!(
            "RoleBinding {} of {} {} to {who}",
            crate::go::quote(&format!("{}/{}", binding.name, binding.namespace)),
            binding.role_ref.kind,
            crate::go::quote(&binding.role_ref.name)
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn policy() -> Policy {
        let mut p = Policy::new();
        for obj in [
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "reader", "namespace": "demo"},
                   "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "robot-reads", "namespace": "demo"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
                   "subjects": [{"kind": "ServiceAccount", "name": "robot"}]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                   "metadata": {"name": "node-viewer"},
                   "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": "ops-nodes"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "node-viewer"},
                   "subjects": [{"kind": "Group", "name": "ops", "apiGroup": "rbac.authorization.k8s.io"}]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": "dangling"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gone"},
                   "subjects": [{"kind": "User", "name": "carol"}]}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}),
        ] {
            p.add(&obj).unwrap();
        }
        p
    }

    fn attrs(user: UserInfo, verb: &str, resource: &str, ns: &str) -> Attributes {
        Attributes {
            user,
            verb: verb.into(),
            resource: resource.into(),
            namespace: ns.into(),
            resource_request: true,
            ..Attributes::default()
        }
    }

    #[test]
    fn bindings_resolve_as_upstream() {
        let p = policy();
        let robot = UserInfo::service_account("demo", "robot");
        assert_eq!(
            p.authorize(&attrs(robot.clone(), "list", "pods", "demo")),
            Ok(r#"RBAC: allowed by RoleBinding "robot-reads/demo" of Role "reader" to ServiceAccount "robot/demo""#.into())
        );
        // The Role is namespaced: nothing in another namespace or cluster-wide.
        assert_eq!(
            p.authorize(&attrs(robot.clone(), "list", "pods", "other")),
            Err(String::new())
        );
        assert_eq!(
            p.authorize(&attrs(robot, "delete", "pods", "demo")),
            Err(String::new())
        );
        let ops = UserInfo {
            name: "bob".into(),
            groups: vec!["ops".into()],
            ..UserInfo::default()
        };
        assert_eq!(
            p.authorize(&attrs(ops, "get", "nodes", "")),
            Ok(r#"RBAC: allowed by ClusterRoleBinding "ops-nodes" of ClusterRole "node-viewer" to Group "ops""#.into())
        );
        let carol = UserInfo::user("carol");
        assert_eq!(
            p.authorize(&attrs(carol, "get", "nodes", "")),
            Err(r#"RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found"#.into())
        );
    }

    #[test]
    fn malformed_rbac_objects_name_the_field() {
        let mut p = Policy::new();
        let err = p
            .add(&json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                         "metadata": {"name": "r", "namespace": "demo"}, "rules": [{"verbs": "get"}]}))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Role \"demo/r\": rules: invalid type: string \"get\", expected a sequence"
        );
    }
}
