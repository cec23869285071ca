//! The authorizer admission policies' `authorizer` variable asks
//! (`authorizer.UnconditionalAuthorizer` of kube-apiserver's CEL library): the host
//! gives one for the evaluations it runs with [`with_authorizer`]. Without one (offline,
//! `crd-gen validate --policy`), every check is allowed.

use std::cell::RefCell;
use std::sync::Arc;

use super::Attributes;

/// An authorizer's answer to one check (`Decision`, reason, error).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthzDecision {
    /// `allowed()`: the decision is Allow.
    pub allowed: bool,
    /// `reason()`: why, as the authorizer says it.
    pub reason: String,
    /// `error()`: the evaluation error (`errored()` when not empty).
    pub error: String,
}

/// What answers `authorizer....check(verb)`.
pub trait Authorize: Send + Sync {
    /// The decision on `attrs` (the user is the request's, or the service account
    /// named by `authorizer.serviceAccount(ns, name)`).
    fn authorize(&self, attrs: &Attributes) -> AuthzDecision;
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<dyn Authorize>>> = const { RefCell::new(None) };
}

/// Runs `f` (policy evaluations on this thread) with `authz` answering the checks.
///
/// ```
/// use std::sync::Arc;
/// use crd_runtime::KubeVersion;
/// use crd_runtime::admission::policy::ValidatingPolicies;
/// use crd_runtime::admission::{
///     Attributes, Authorize, AuthzDecision, GroupVersionKind, GroupVersionResource, Operation,
///     with_authorizer,
/// };
/// use serde_json::json;
///
/// /// Lets alice do anything, nobody else.
/// struct OnlyAlice;
/// impl Authorize for OnlyAlice {
///     fn authorize(&self, attrs: &crd_runtime::rbac::Attributes) -> AuthzDecision {
///         AuthzDecision { allowed: attrs.user.name == "alice", ..AuthzDecision::default() }
///     }
/// }
///
/// let policy = json!({"metadata": {"name": "p"}, "spec": {
///     "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
///         "operations": ["CREATE"], "resources": ["configmaps"]}]},
///     "validations": [{"expression":
///         "authorizer.group('').resource('secrets').namespace('demo').check('update').allowed()"}]}});
/// let binding = json!({"metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}});
/// let policies = ValidatingPolicies::new(&[policy], &[binding], KubeVersion::NEWEST);
/// let mut attrs = Attributes {
///     operation: Some(Operation::Create),
///     kind: GroupVersionKind { group: "".into(), version: "v1".into(), kind: "ConfigMap".into() },
///     resource: GroupVersionResource { group: "".into(), version: "v1".into(), resource: "configmaps".into() },
///     name: "c".into(),
///     namespace: "demo".into(),
///     object: Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "demo"}})),
///     ..Attributes::default()
/// };
/// let no_params = |_: &_| Ok(Vec::new());
/// let mut decide = |user: &str| {
///     attrs.user.username = user.to_string();
///     let plan = policies.plan(&attrs, None, &[]);
///     with_authorizer(Arc::new(OnlyAlice), || policies.decide(&plan, &attrs, None, &no_params))
/// };
/// assert!(decide("alice").denied.is_none());
/// assert!(decide("bob").denied.is_some());
/// ```
pub fn with_authorizer<T>(authz: Arc<dyn Authorize>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<dyn Authorize>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|c| c.borrow_mut().replace(authz));
    let _restore = Restore(previous);
    f()
}

/// The authorizer of the evaluations running on this thread, if the host gave one.
#[cfg_attr(not(feature = "cel"), allow(dead_code))]
pub(crate) fn current() -> Option<Arc<dyn Authorize>> {
    CURRENT.with(|c| c.borrow().clone())
}
