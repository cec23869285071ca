//! What differs per kind, in the shape of kube-apiserver's registry strategies: one
//! small trait per concern ([`strategy`]: create, update, validate, delete, reset
//! fields, the table convertor, the codec, the schemas, allocation), which together
//! make a kind's [`Strategy`], found by every verb through the registry. The verbs
//! themselves are the same for every kind.
//!
//! - [`custom`]: objects of a CRD at one served version (the CRD's schema, CEL rules,
//!   conversion);
//! - [`crd`]: `apiextensions.k8s.io/v1` CustomResourceDefinitions;
//! - [`builtin`]: the built-in kinds, core/v1 Namespaces among them.

pub mod builtin;
pub mod crd;
pub mod custom;
mod strategy;

use std::sync::Arc;

use crd_runtime::model::JSONSchemaProps;

use crate::api::request::FieldValidation;
use crate::api::status::{ApiError, Qualified};
use crate::store::{Revision, Store};

pub use strategy::{
    AllocateStrategy, Allocated, CodecStrategy, CreateStrategy, DeleteStrategy, Identity,
    ResetFieldsStrategy, SchemaStrategy, Strategy, TableConvertor, UpdateStrategy,
    ValidateStrategy, Validated,
};

/// Every verb, in the order discovery lists a custom resource's.
pub const ALL_VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

/// A kind at one version, as a request addresses it: its identity and strategy.
pub type Resource = Arc<dyn Strategy>;

/// Where a scale subresource reads and writes replicas (JSON paths, kubectl dialect).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
    /// The label selector path holds a `metav1.LabelSelector` (built-in workloads),
    /// written into the Scale as a selector string; otherwise it holds the string.
    pub label_selector_object: bool,
}

/// A kind's identity at one version: what discovery reports and where it is stored.
#[derive(Clone, Debug)]
pub struct KindInfo {
    /// Group, plural and kind (the names messages use).
    pub q: Qualified,
    pub version: String,
    pub singular: String,
    pub list_kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// The storage key prefix (`/registry/{group}/{plural}/` for custom resources).
    pub prefix: String,
    /// The verbs of the object itself, in the order discovery lists them.
    pub verbs: &'static [&'static str],
    /// The subresources served besides the object itself.
    pub subresources: Vec<Subresource>,
    pub scale: Option<ScalePaths>,
    /// Sent as a `Warning` with every answer (a deprecated version).
    pub warning: Option<String>,
}

impl KindInfo {
    /// `group/version` (or `v1`).
    pub fn api_version(&self) -> String {
        if self.q.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.q.group, self.version)
        }
    }

    /// The storage key of one object.
    pub fn key(&self, namespace: Option<&str>, name: &str) -> String {
        match namespace.filter(|_| self.namespaced) {
            Some(ns) => format!("{}{ns}/{name}", self.prefix),
            None => format!("{}{name}", self.prefix),
        }
    }

    /// The key prefix of a list (all namespaces when `namespace` is `None`).
    pub fn list_prefix(&self, namespace: Option<&str>) -> String {
        match namespace.filter(|_| self.namespaced) {
            Some(ns) => format!("{}{ns}/", self.prefix),
            None => self.prefix.clone(),
        }
    }

    /// Whether `status` is a subresource (the main endpoint then leaves it alone).
    pub fn has_status(&self) -> bool {
        self.subresources.contains(&Subresource::Status)
    }

    /// The fields apply resets through `sub` when the kind's strategy resets no more:
    /// the spec through status, the status through the others when it is a
    /// subresource.
    pub fn reset_fields(&self, sub: Subresource) -> ResetFields {
        match sub {
            Subresource::Status => &[&["spec"]],
            _ if self.has_status() => &[&["status"]],
            _ => &[],
        }
    }
}

/// The endpoint a request reaches: the object or one of its subresources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subresource {
    Main,
    Status,
    Scale,
    /// A namespace's `finalize` (only `spec.finalizers` changes).
    Finalize,
    /// A Pod's subresources: those that need a kubelet (answered as the server does
    /// without one) and those the server serves itself.
    Log,
    Exec,
    Attach,
    PortForward,
    Proxy,
    Binding,
    Eviction,
    EphemeralContainers,
    Resize,
    /// A ServiceAccount's `token` (TokenRequest).
    Token,
}

/// Every named subresource, with its name in paths.
const SUBRESOURCES: [(Subresource, &str); 13] = [
    (Subresource::Status, "status"),
    (Subresource::Scale, "scale"),
    (Subresource::Finalize, "finalize"),
    (Subresource::Log, "log"),
    (Subresource::Exec, "exec"),
    (Subresource::Attach, "attach"),
    (Subresource::PortForward, "portforward"),
    (Subresource::Proxy, "proxy"),
    (Subresource::Binding, "binding"),
    (Subresource::Eviction, "eviction"),
    (Subresource::EphemeralContainers, "ephemeralcontainers"),
    (Subresource::Resize, "resize"),
    (Subresource::Token, "token"),
];

impl Subresource {
    /// The subresource a path names (`None`: the object itself).
    pub fn parse(name: Option<&str>) -> Option<Subresource> {
        match name {
            None => Some(Subresource::Main),
            Some(n) => SUBRESOURCES.iter().find(|(_, s)| *s == n).map(|(s, _)| *s),
        }
    }

    /// Its name in paths and `managedFields` (`None` for the object itself).
    pub fn name(self) -> Option<&'static str> {
        SUBRESOURCES
            .iter()
            .find(|(s, _)| *s == self)
            .map(|(_, n)| *n)
    }

    /// The verbs discovery lists for it.
    pub fn verbs(self) -> &'static [&'static str] {
        match self {
            Subresource::Main => &[],
            Subresource::Finalize => &["update"],
            Subresource::Log => &["get"],
            Subresource::Exec | Subresource::Attach | Subresource::PortForward => {
                &["create", "get"]
            }
            Subresource::Proxy => &["create", "delete", "get", "patch", "update"],
            Subresource::Binding | Subresource::Eviction | Subresource::Token => &["create"],
            Subresource::Status
            | Subresource::Scale
            | Subresource::EphemeralContainers
            | Subresource::Resize => &["get", "patch", "update"],
        }
    }

    /// The group, version and kind discovery names for it, when not the parent's.
    pub fn kind(self) -> Option<(&'static str, &'static str, &'static str)> {
        match self {
            Subresource::Scale => Some(("autoscaling", "v1", "Scale")),
            Subresource::Eviction => Some(("policy", "v1", "Eviction")),
            Subresource::Token => Some(("authentication.k8s.io", "v1", "TokenRequest")),
            Subresource::Binding => Some(("", "", "Binding")),
            Subresource::Exec => Some(("", "", "PodExecOptions")),
            Subresource::Attach => Some(("", "", "PodAttachOptions")),
            Subresource::PortForward => Some(("", "", "PodPortForwardOptions")),
            Subresource::Proxy => Some(("", "", "PodProxyOptions")),
            _ => None,
        }
    }
}

/// What a strategy may look at beyond the object: the store (checks across objects,
/// pools kept in it) and the write it takes part in.
pub struct Context<'a> {
    pub store: &'a dyn Store,
    /// The object before an update (`None` on create and delete).
    pub old: Option<&'a serde_json::Value>,
    /// The endpoint written.
    pub sub: Subresource,
    /// Nothing is kept (`dryRun=All`).
    pub dry_run: bool,
}

impl<'a> Context<'a> {
    /// A write of the object itself in `store`, without an old object (a create, a
    /// delete).
    pub fn new(store: &'a dyn Store) -> Context<'a> {
        Context {
            store,
            old: None,
            sub: Subresource::Main,
            dry_run: false,
        }
    }
}

/// kube-apiserver's `DefaultGarbageCollectionPolicy`: what a DELETE without a
/// `propagationPolicy` does with the object's dependents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcPolicy {
    /// Background deletion (the dependents go after the owner): most kinds.
    DeleteDependents,
    /// The `orphan` finalizer: batch/v1 Jobs, for compatibility.
    OrphanDependents,
}

/// Top-level fields a strategy resets on an endpoint (kube-apiserver's reset fields):
/// server-side apply neither merges nor records ownership of them.
pub type ResetFields = &'static [&'static [&'static str]];

/// Store keys a write took, or holds no longer, in pools kept in the store (the records
/// of a Service's cluster IPs and node ports), each with its revision.
#[derive(Debug, Default)]
pub struct Allocation {
    /// Created for this write: removed again when the write fails.
    pub taken: Vec<(String, Revision)>,
    /// Held by the old object and not by the new one: removed once the write succeeded.
    pub freed: Vec<(String, Revision)>,
}

impl Allocation {
    /// Commits (`written`) or reverts the allocation. A key is removed only at the
    /// revision recorded, so a record another write has taken over since stays.
    pub async fn finish(self, store: &dyn Store, written: bool) {
        let keys = if written { self.freed } else { self.taken };
        for (key, revision) in keys {
            // Best effort, as upstream's release: a record left behind is an orphan that
            // a later allocation takes over.
            let _ = store.delete(&key, Some(revision)).await;
        }
    }
}

/// The schema of a built-in kind's definition (`io.k8s.api.core.v1.Namespace`) in the
/// release closest to `kube_version` that has schemas: it tells apply how the kind's
/// lists and maps merge.
pub fn builtin_schema(
    kube_version: crd_runtime::KubeVersion,
    definition: &str,
) -> Option<JSONSchemaProps> {
    use crd_runtime::k8s_schemas::{VERSIONS, definition_schema_in};
    let wanted = kube_version.to_string();
    let version = VERSIONS
        .iter()
        .find(|v| **v == wanted)
        .or_else(|| {
            VERSIONS
                .first()
                .filter(|oldest| kube_version.minor() < minor_of(oldest))
        })
        .or(VERSIONS.last())?;
    definition_schema_in(version, definition)
}

fn minor_of(version: &str) -> u32 {
    version
        .rsplit('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// Unknown fields by `fieldValidation`: a strict decoding error, warnings, or nothing.
pub fn unknown_fields(
    kind: &KindInfo,
    unknown: Vec<String>,
    fv: FieldValidation,
) -> Result<Vec<String>, ApiError> {
    if unknown.is_empty() || fv == FieldValidation::Ignore {
        return Ok(Vec::new());
    }
    let messages: Vec<String> = unknown
        .into_iter()
        .map(|p| format!("unknown field \"{p}\""))
        .collect();
    if fv == FieldValidation::Strict {
        return Err(ApiError::bad_request(format!(
            "{kind} in version \"{v}\" cannot be handled as a {kind}: strict decoding error: {}",
            messages.join(", "),
            kind = kind.q.kind,
            v = kind.version,
        )));
    }
    Ok(messages)
}
