//! Admission as kube-apiserver runs it, the parts that need no server: what a request
//! looks like to admission ([`Attributes`]), the `admission.k8s.io` `AdmissionReview`
//! a webhook answers ([`review`]), which requests a webhook or a policy matches
//! ([`matching`], with label selectors evaluated by [`crate::labels`]), and — with feature `cel` —
//! the evaluation of ValidatingAdmissionPolicies and MutatingAdmissionPolicies
//! ([`policy`]), shared by crd-server and `crd-gen validate --policy`.

pub mod bindings;
pub mod matching;
#[cfg(feature = "cel")]
pub mod policy;
pub mod review;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The authorizer behind admission policies' `authorizer` variable (defined with RBAC's
/// request attributes in [`crate::rbac`]).
pub use crate::rbac::{Authorize, AuthzDecision, with_authorizer};

/// The operation of an admission request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Operation {
    /// A create (also the action subresources POSTed to, such as `pods/eviction`).
    Create,
    /// An update or a patch.
    Update,
    /// A delete.
    Delete,
    /// A connect subresource (`pods/exec`, …).
    Connect,
}

impl Operation {
    /// The name rules and reviews use: `CREATE`, `UPDATE`, `DELETE`, `CONNECT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }

    /// The kind of the options object sent with the operation.
    pub fn options_kind(self) -> &'static str {
        match self {
            Operation::Create => "CreateOptions",
            Operation::Update => "UpdateOptions",
            Operation::Delete => "DeleteOptions",
            Operation::Connect => "",
        }
    }
}

/// A group, version and kind (`metav1.GroupVersionKind`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupVersionKind {
    /// Empty for the core group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
}

impl GroupVersionKind {
    /// `group/version` (`version` for the core group).
    pub fn api_version(&self) -> String {
        crate::names::api_version(&self.group, &self.version)
    }
}

/// A group, version and resource (`metav1.GroupVersionResource`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupVersionResource {
    /// Empty for the core group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The plural resource name.
    pub resource: String,
}

/// Who made a request (`authentication/v1.UserInfo`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInfo {
    /// The user name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub username: String,
    /// The user's uid.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// The user's groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// Other attributes the authenticator gave.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub extra: std::collections::BTreeMap<String, Vec<String>>,
}

/// A request as admission sees it (`admission.Attributes`): what is done to which
/// object of which kind, by whom.
///
/// For a Namespace, `namespace` is the namespace's own name, as kube-apiserver sets
/// it. `object` is absent for a DELETE and `old_object` for a CREATE.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attributes {
    /// The operation.
    pub operation: Option<Operation>,
    /// The kind of `object` (and `old_object`).
    pub kind: GroupVersionKind,
    /// The resource addressed.
    pub resource: GroupVersionResource,
    /// The subresource (`status`, `scale`, …), empty for the main resource.
    pub subresource: String,
    /// The object's name (empty for a create with `generateName`).
    pub name: String,
    /// The namespace (empty for cluster-scoped objects other than Namespaces).
    pub namespace: String,
    /// The object after the operation.
    pub object: Option<Value>,
    /// The object before it (updates and deletes).
    pub old_object: Option<Value>,
    /// The operation's options (`CreateOptions`, `UpdateOptions`, `DeleteOptions`).
    pub options: Option<Value>,
    /// Whether nothing will be persisted (`dryRun=All`).
    pub dry_run: bool,
    /// Who asked.
    pub user: UserInfo,
}

impl Attributes {
    /// The operation, `Create` when unset.
    pub fn op(&self) -> Operation {
        self.operation.unwrap_or(Operation::Create)
    }

    /// Whether the request addresses a Namespace object itself.
    pub fn is_namespace(&self) -> bool {
        self.resource.group.is_empty() && self.resource.resource == "namespaces"
    }
}
