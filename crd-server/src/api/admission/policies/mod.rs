//! The ValidatingAdmissionPolicy and MutatingAdmissionPolicy plugins: the policies and
//! bindings stored are followed ([`follow`]) and compiled by crd-runtime's engine
//! (`crd_runtime::admission::policy`); each request is planned (which policy and
//! binding pairs match), its parameters and namespace read from the store
//! ([`params`], [`request`]), then decided or mutated, and a denial answered as
//! kube-apiserver answers it ([`response`]). [`status`] keeps each policy's
//! `status.typeChecking` current.
//!
//! Audit annotations are computed by the engine but dropped: the server keeps no
//! audit log.

pub mod follow;
mod params;
mod request;
mod response;
pub mod type_checking;

use std::sync::{Arc, Mutex, RwLock};

use crd_runtime::KubeVersion;
use crd_runtime::admission::Attributes;
use crd_runtime::admission::matching::Equivalent;
use crd_runtime::admission::policy::{MutatingPolicies, ParamQuery, Plan, ValidatingPolicies};
use crd_runtime::labels as selector;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::AbortHandle;

use crate::api::admission::{Backend, Warnings};
use crate::api::status::ApiError;
use crate::store::Store;
use follow::{Followed, Objects, Sink};

/// The policies and bindings as compiled at one moment.
pub struct Compiled {
    pub validating: ValidatingPolicies,
    pub mutating: MutatingPolicies,
    /// The stored objects compiled (the status writer compares their status).
    pub objects: Objects,
    /// Whether any binding exists.
    bound: bool,
    /// Whether a selector or an expression reads the request's namespace.
    needs_namespace: bool,
}

impl Compiled {
    fn new(objects: &Objects, version: KubeVersion) -> Compiled {
        let mutating_served = KubeVersion::new(36).is_ok_and(|v| version >= v);
        let mutating = if mutating_served {
            MutatingPolicies::new(
                &objects.of(Followed::MutatingPolicy),
                &objects.of(Followed::MutatingBinding),
                version,
            )
        } else {
            MutatingPolicies::new(&[], &[], version)
        };
        Compiled {
            validating: ValidatingPolicies::new(
                &objects.of(Followed::ValidatingPolicy),
                &objects.of(Followed::ValidatingBinding),
                version,
            ),
            mutating,
            objects: objects.clone(),
            bound: objects.any_binding(),
            needs_namespace: objects
                .kinds
                .iter()
                .flat_map(|m| m.values())
                .any(reads_namespace),
        }
    }
}

/// Whether a policy or binding selects namespaces or reads `namespaceObject` (only
/// then is a request's namespace read).
fn reads_namespace(obj: &Value) -> bool {
    let selects = [
        "/spec/matchConstraints/namespaceSelector",
        "/spec/matchResources/namespaceSelector",
    ]
    .iter()
    .any(|p| !selector::is_empty(obj.pointer(p)));
    selects
        || obj
            .get("spec")
            .is_some_and(|s| s.to_string().contains("namespaceObject"))
}

/// What the followers update and the requests read.
struct State {
    version: KubeVersion,
    objects: Mutex<Objects>,
    compiled: RwLock<Arc<Compiled>>,
    /// Bumped on every recompilation (the status writer waits on it).
    changes: watch::Sender<u64>,
}

impl Sink for State {
    fn objects(&self) -> &Mutex<Objects> {
        &self.objects
    }

    fn changed(&self, objects: &Objects) {
        let compiled = Arc::new(Compiled::new(objects, self.version));
        *self.compiled.write().unwrap_or_else(|e| e.into_inner()) = compiled;
        self.changes.send_modify(|n| *n += 1);
    }
}

/// The admission policies and bindings of a server.
pub struct Policies {
    state: Arc<State>,
    tasks: Vec<AbortHandle>,
}

impl Drop for Policies {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Policies {
    /// Lists the policies and bindings in `store` and follows them from then on.
    pub async fn start(store: Arc<dyn Store>, version: KubeVersion) -> Policies {
        let state = Arc::new(State {
            version,
            objects: Mutex::new(Objects::default()),
            compiled: RwLock::new(Arc::new(Compiled::new(&Objects::default(), version))),
            changes: watch::channel(0).0,
        });
        let mut kinds = vec![Followed::ValidatingPolicy, Followed::ValidatingBinding];
        if KubeVersion::new(36).is_ok_and(|v| version >= v) {
            kinds.extend([Followed::MutatingPolicy, Followed::MutatingBinding]);
        }
        let mut tasks = Vec::new();
        for kind in kinds {
            // Listed before the server answers, so a restarted server enforces at once.
            let revision = follow::list_once(store.as_ref(), kind, state.as_ref())
                .await
                .unwrap_or(0);
            let sink: Arc<dyn Sink> = state.clone();
            let task = tokio::spawn(follow::follow(store.clone(), kind, revision, sink));
            tasks.push(task.abort_handle());
        }
        Policies { state, tasks }
    }

    /// The compiled policies now.
    pub fn current(&self) -> Arc<Compiled> {
        self.state
            .compiled
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Changes of [`Policies::current`].
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.state.changes.subscribe()
    }

    /// Whether no policy is bound.
    pub fn is_idle(&self) -> bool {
        !self.current().bound
    }

    /// Applies the mutating policies that match (before the mutating webhooks).
    pub async fn mutate(&self, shared: &Backend<'_>, attrs: &mut Attributes) -> Warnings {
        let res = shared.res;
        let compiled = self.current();
        if compiled.mutating.is_empty() || attrs.object.is_none() {
            return Ok(Vec::new());
        }
        let planned = matched(shared, &compiled, attrs, |attrs, ns, equivalents| {
            compiled.mutating.plan(attrs, ns, equivalents)
        });
        let Some(Matched { ns, plan, answers }) = planned.await? else {
            return Ok(Vec::new());
        };
        let lookup = |q: &ParamQuery| answers.get(q);
        let mut warnings = Vec::new();
        for run in runs(&plan) {
            let invocation = &run.steps[0].invocation;
            let converts = invocation.converts(attrs);
            let mut versioned = request::converted(shared, attrs, invocation).await?;
            // The structural schema of the version mutated (list-map keys for merging).
            let matched = shared.registry.resolve(
                &invocation.resource.group,
                &invocation.resource.version,
                &invocation.resource.resource,
            );
            let schema_of = if converts {
                matched.as_ref()
            } else {
                Some(res)
            };
            let outcome = as_caller(|| {
                compiled.mutating.mutate(
                    &run,
                    &mut versioned,
                    ns.as_ref(),
                    schema_of.and_then(|r| r.schema()),
                    &lookup,
                )
            })
            .map_err(|d| response::denied(attrs, &d))?;
            warnings.extend(outcome.warnings);
            if !outcome.changed {
                continue;
            }
            attrs.object = match (converts, versioned.object) {
                // Back in the request's version.
                (true, Some(obj)) => res.read_stored(vec![obj]).await?.pop(),
                (_, obj) => obj,
            };
        }
        Ok(warnings)
    }

    /// Evaluates the validating policies that match.
    pub async fn validate(&self, shared: &Backend<'_>, attrs: &Attributes) -> Warnings {
        let compiled = self.current();
        if compiled.validating.is_empty() {
            return Ok(Vec::new());
        }
        let planned = matched(shared, &compiled, attrs, |attrs, ns, equivalents| {
            compiled.validating.plan(attrs, ns, equivalents)
        });
        let Some(Matched { ns, plan, answers }) = planned.await? else {
            return Ok(Vec::new());
        };
        let lookup = |q: &ParamQuery| answers.get(q);
        let mut warnings = Vec::new();
        for run in runs(&plan) {
            let versioned = request::converted(shared, attrs, &run.steps[0].invocation).await?;
            let verdict = as_caller(|| {
                compiled
                    .validating
                    .decide(&run, &versioned, ns.as_ref(), &lookup)
            });
            warnings.extend(verdict.warnings);
            if let Some(denial) = verdict.denied {
                return Err(response::denied(attrs, &denial).after_warnings(&warnings));
            }
        }
        Ok(warnings)
    }
}

/// Runs policy evaluations with the request's authorizer behind their `authorizer`
/// variable (the server's own writes have no caller: every check is allowed, as for
/// `system:masters`).
fn as_caller<T>(f: impl FnOnce() -> T) -> T {
    match crate::auth::context::caller() {
        Some(caller) => crd_runtime::admission::with_authorizer(caller.authorizer.clone(), f),
        None => f(),
    }
}

/// What one pass (mutating or validating) evaluates: the request's namespace object,
/// the matching (policy, binding) pairs and the answers to their parameter queries.
struct Matched {
    ns: Option<Value>,
    plan: Plan,
    answers: params::Answers,
}

/// Plans a pass with `plan` (the mutating or the validating policies' own); `None`
/// when no pair matches, before any parameter is read.
async fn matched(
    shared: &Backend<'_>,
    compiled: &Compiled,
    attrs: &Attributes,
    plan: impl FnOnce(&Attributes, Option<&Value>, &[Equivalent]) -> Plan,
) -> Result<Option<Matched>, ApiError> {
    let ns = namespace(shared, compiled, attrs).await?;
    let equivalents = request::equivalents(shared, attrs);
    let plan = plan(attrs, ns.as_ref(), &equivalents);
    if plan.is_empty() {
        return Ok(None);
    }
    let answers = params::Answers::collect(shared, plan.param_queries()).await;
    Ok(Some(Matched { ns, plan, answers }))
}

/// The request's namespace object, read only when a policy or binding needs it.
async fn namespace(
    shared: &Backend<'_>,
    compiled: &Compiled,
    attrs: &Attributes,
) -> Result<Option<Value>, ApiError> {
    if !compiled.needs_namespace {
        return Ok(None);
    }
    request::namespace_object(shared, attrs).await
}

/// The plan cut where the matched version changes: each part sees the object in
/// its own version, in the plan's order.
fn runs(plan: &Plan) -> Vec<Plan> {
    let mut out: Vec<Plan> = Vec::new();
    for step in &plan.steps {
        match out.last_mut() {
            Some(last) if last.steps[0].invocation == step.invocation => {
                last.steps.push(step.clone())
            }
            _ => out.push(Plan {
                steps: vec![step.clone()],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::store::MemoryStore;

    #[tokio::test]
    async fn follows_bindings_and_policies() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let binding = serde_json::json!({"metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}});
        let key = "/registry/validatingadmissionpolicybindings/b";
        store
            .create(key, serde_json::to_vec(&binding).unwrap().into())
            .await
            .unwrap();
        let policies = Policies::start(store.clone(), KubeVersion::NEWEST).await;
        assert!(
            !policies.is_idle(),
            "a binding listed at start counts at once"
        );
        let mut changes = policies.changes();
        store.delete(key, None).await.unwrap();
        let idle = async {
            while !policies.is_idle() {
                changes.changed().await.unwrap();
            }
        };
        tokio::time::timeout(Duration::from_secs(5), idle)
            .await
            .expect("the deletion is seen");
        let ns = serde_json::json!({"spec": {"matchConstraints": {"namespaceSelector": {"matchLabels": {"a": "b"}}}}});
        assert!(reads_namespace(&ns));
        assert!(!reads_namespace(
            &serde_json::json!({"spec": {"matchConstraints": {"namespaceSelector": {}}}})
        ));
        assert!(reads_namespace(
            &serde_json::json!({"spec": {"validations": [{"expression": "namespaceObject.metadata.name == 'x'"}]}})
        ));
    }
}
