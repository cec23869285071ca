//! Admission, as kube-apiserver's chain runs it around every write: the mutating
//! phase (MutatingAdmissionPolicies, then mutating webhooks, reinvoked when a later
//! one changes the object) runs on the decoded object before the kind's strategy
//! prepares and validates it; the validating phase (ValidatingAdmissionPolicies, then
//! validating webhooks) runs on the object about to be stored. Nothing refused by
//! admission is stored.
//!
//! Each plugin follows its configuration objects in the store; with none configured
//! the write path skips admission without building its [`Attributes`].

pub mod policies;
pub mod webhooks;

use std::sync::Arc;

use crd_runtime::KubeVersion;
use crd_runtime::admission::{
    Attributes, GroupVersionKind, GroupVersionResource, Operation, UserInfo,
};
use serde_json::{Value, json};

use crate::api::kinds::{Resource, Subresource};
use crate::api::registry::Registry;
use crate::api::status::ApiError;
use crate::store::Store;

/// What an admission phase answers: the warnings to send, or the refusal.
pub type Warnings = Result<Vec<String>, ApiError>;

/// What the plugins read besides their configurations: the store (namespaces,
/// params), the registry (kinds, conversions) and the kind written (its schema, its
/// objects read back in the request's version). Not the server's whole state, which
/// holds the plugins.
#[derive(Clone, Copy)]
pub struct Backend<'a> {
    pub store: &'a Arc<dyn Store>,
    pub registry: &'a Arc<Registry>,
    pub res: &'a Resource,
}

/// The admission plugins of a server.
pub struct Admission {
    pub webhooks: webhooks::Webhooks,
    pub policies: policies::Policies,
}

impl Admission {
    /// Starts following the configurations in `store`.
    pub async fn start(store: Arc<dyn Store>, version: KubeVersion) -> Arc<Admission> {
        Arc::new(Admission {
            webhooks: webhooks::Webhooks::start(store.clone(), version).await,
            policies: policies::Policies::start(store, version).await,
        })
    }

    /// Whether no webhook or policy is configured (the write path then skips admission).
    pub fn is_idle(&self) -> bool {
        self.webhooks.is_idle() && self.policies.is_idle()
    }

    /// The mutating phase: `attrs.object` may change. Returns the warnings to send.
    pub async fn mutate(&self, shared: &Backend<'_>, attrs: &mut Attributes) -> Warnings {
        let warnings = self.policies.mutate(shared, attrs).await?;
        then(warnings, self.webhooks.mutate(shared, attrs).await)
    }

    /// The validating phase. Returns the warnings to send.
    pub async fn validate(&self, shared: &Backend<'_>, attrs: &Attributes) -> Warnings {
        let warnings = self.policies.validate(shared, attrs).await?;
        then(warnings, self.webhooks.validate(shared, attrs).await)
    }
}

/// The warnings of a phase's policies, then its webhooks' answer: their warnings added,
/// or their refusal carrying the policies' warnings.
fn then(mut warnings: Vec<String>, webhooks: Warnings) -> Warnings {
    let more = webhooks.map_err(|e| e.after_warnings(&warnings))?;
    warnings.extend(more);
    Ok(warnings)
}

/// The user of the request being admitted (the server's own user for its own
/// writes), as admission and webhooks see it.
pub fn user() -> UserInfo {
    let user = crate::auth::context::user();
    UserInfo {
        username: user.name,
        uid: user.uid,
        groups: user.groups,
        extra: user.extra.into_iter().collect(),
    }
}

/// What admission sees of a write to `res`.
pub struct Request<'a> {
    pub res: &'a Resource,
    pub operation: Operation,
    pub sub: Subresource,
    pub ns: Option<&'a str>,
    /// The object's name (empty for a create with `generateName`).
    pub name: &'a str,
    pub dry_run: bool,
    /// `fieldManager` of a create or update.
    pub field_manager: Option<&'a str>,
    /// The `DeleteOptions` of a delete.
    pub delete_options: Option<Value>,
}

impl Request<'_> {
    /// The admission attributes of this request on `object` (after) and `old` (before).
    pub fn attributes(&self, object: Option<Value>, old: Option<Value>) -> Attributes {
        let info = self.res.info();
        let is_namespace = info.q.group.is_empty() && info.q.plural == "namespaces";
        let namespace = match (self.ns, is_namespace) {
            (Some(ns), _) => ns.to_string(),
            (None, true) => self.name.to_string(),
            (None, false) => String::new(),
        };
        let options = match self.operation {
            Operation::Delete => self.delete_options.clone(),
            Operation::Connect => None,
            op => {
                let mut o = json!({"kind": op.options_kind(), "apiVersion": "meta.k8s.io/v1"});
                if self.dry_run {
                    o["dryRun"] = json!(["All"]);
                }
                if let Some(m) = self.field_manager {
                    o["fieldManager"] = json!(m);
                }
                Some(o)
            }
        };
        Attributes {
            operation: Some(self.operation),
            kind: GroupVersionKind {
                group: info.q.group.clone(),
                version: info.version.clone(),
                kind: info.q.kind.clone(),
            },
            resource: GroupVersionResource {
                group: info.q.group.clone(),
                version: info.version.clone(),
                resource: info.q.plural.clone(),
            },
            subresource: self.sub.name().unwrap_or("").to_string(),
            name: self.name.to_string(),
            namespace,
            object,
            old_object: old,
            options,
            dry_run: self.dry_run,
            user: user(),
        }
    }
}
