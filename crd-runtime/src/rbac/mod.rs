//! Kubernetes RBAC as kube-apiserver evaluates it: who is asking ([`UserInfo`]),
//! what they ask ([`Attributes`], the authorizer's request attributes), which
//! [`PolicyRule`]s Roles and bindings give them ([`Policy`]), whether a rule allows a
//! request, whether some rules cover others (the escalation check), and the
//! `Forbidden` message. One copy of these rules, used by crd-server's authorizer and
//! by `crd-gen rbac`'s least-privilege report.

pub(crate) mod authorize;
mod policy;
mod rules;

pub use authorize::{Authorize, AuthzDecision, with_authorizer};
pub use policy::{
    Binding, Policy, PolicyError, RBAC_GROUP, RoleRef, RuleSource, Subject, Visited, applies_to,
};
pub use rules::{ALL, PolicyRule, covers, go_quoted_list, rules_allow};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Prefix of service-account user names (`system:serviceaccount:NS:NAME`).
pub const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// Every authenticated user's group.
pub const AUTHENTICATED: &str = "system:authenticated";

/// The user name of a service account.
pub fn service_account_username(namespace: &str, name: &str) -> String {
    format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}")
}

/// The namespace and name of a service account user name, if it is one.
pub fn split_service_account(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let (namespace, name) = rest.split_once(':')?;
    (!namespace.is_empty() && !name.is_empty() && !name.contains(':')).then_some((namespace, name))
}

/// An authenticated identity (`user.Info`; `authentication.k8s.io/v1` `UserInfo`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInfo {
    /// The user name.
    #[serde(rename = "username", default)]
    pub name: String,
    /// A unique id, when the authenticator knows one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// The groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// Extra attributes (bound-token claims and the like).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// A user in the `system:authenticated` group.
    pub fn user(name: &str) -> UserInfo {
        UserInfo {
            name: name.to_string(),
            groups: vec![AUTHENTICATED.to_string()],
            ..UserInfo::default()
        }
    }

    /// A service account, with the groups kube-apiserver gives it
    /// (`system:serviceaccounts`, `system:serviceaccounts:NS`, `system:authenticated`).
    pub fn service_account(namespace: &str, name: &str) -> UserInfo {
        UserInfo {
            name: service_account_username(namespace, name),
            groups: vec![
                "system:serviceaccounts".to_string(),
                format!("system:serviceaccounts:{namespace}"),
                AUTHENTICATED.to_string(),
            ],
            ..UserInfo::default()
        }
    }
}

/// One request as the authorizer sees it (`authorizer.Attributes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// Who asks.
    pub user: UserInfo,
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
    /// `deletecollection`, `impersonate`, ...; for non-resource requests the
    /// lower-cased HTTP method (`get`, `post`, ...).
    pub verb: String,
    /// The namespace (empty: cluster-scoped, or all namespaces).
    pub namespace: String,
    /// The API group (`""`: core).
    pub api_group: String,
    /// The API version.
    pub api_version: String,
    /// The resource (plural).
    pub resource: String,
    /// The subresource (`status`, `log`, ...).
    pub subresource: String,
    /// The object name (empty for lists and creates).
    pub name: String,
    /// The request path (non-resource requests).
    pub path: String,
    /// A resource request (else a non-resource URL).
    pub resource_request: bool,
}

impl Attributes {
    /// `resource` or `resource/subresource`.
    pub fn combined_resource(&self) -> String {
        if self.subresource.is_empty() {
            self.resource.clone()
        } else {
            format!("{}/{}", self.resource, self.subresource)
        }
    }

    /// kube-apiserver's denial text (`forbiddenMessage`, responsewriters):
    /// `User "alice" cannot list resource "pods" in API group "" in the namespace
    /// "demo"`, `... at the cluster scope`, or `User "u" cannot get path "/x"`.
    pub fn forbidden_message(&self) -> String {
        let q = crate::go::quote;
        if !self.resource_request {
            return format!(
                "User {} cannot {} path {}",
                q(&self.user.name),
                self.verb,
                q(&self.path)
            );
        }
        let resource = q(&self.combined_resource());
        if self.namespace.is_empty() {
            format!(
                "User {} cannot {} resource {resource} in API group {} at the cluster scope",
                q(&self.user.name),
                self.verb,
                q(&self.api_group)
            )
        } else {
            format!(
                "User {} cannot {} resource {resource} in API group {} in the namespace {}",
                q(&self.user.name),
                self.verb,
                q(&self.api_group),
                q(&self.namespace)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_messages_read_as_kube_apiservers() {
        let mut a = Attributes {
            user: UserInfo::user("alice"),
            verb: "list".into(),
            resource: "pods".into(),
            namespace: "demo".into(),
            resource_request: true,
            ..Attributes::default()
        };
        assert_eq!(
            a.forbidden_message(),
            r#"User "alice" cannot list resource "pods" in API group "" in the namespace "demo""#
        );
        a.namespace.clear();
        a.verb = "delete".into();
        a.resource = "nodes".into();
        assert_eq!(
            a.forbidden_message(),
            r#"User "alice" cannot delete resource "nodes" in API group "" at the cluster scope"#
        );
        let path = Attributes {
            user: UserInfo::user("bob"),
            verb: "get".into(),
            path: "/metrics".into(),
            ..Attributes::default()
        };
        assert_eq!(
            path.forbidden_message(),
            r#"User "bob" cannot get path "/metrics""#
        );
    }

    #[test]
    fn service_account_names_split_both_ways() {
        let name = service_account_username("demo", "robot");
        assert_eq!(name, "system:serviceaccount:demo:robot");
        assert_eq!(split_service_account(&name), Some(("demo", "robot")));
        assert_eq!(split_service_account("system:serviceaccount:demo"), None);
        assert_eq!(split_service_account("alice"), None);
    }
}
