//! ValidatingAdmissionPolicy and MutatingAdmissionPolicy evaluation, as
//! kube-apiserver's `validatingadmissionpolicy` and `mutatingadmissionpolicy`
//! plugins run them: the policies and bindings that match a request ([`Plan`]),
//! their parameters (resolved by the caller through [`ParamQuery`]), match
//! conditions, variables, validations with their messages, reasons, actions and
//! audit annotations ([`ValidatingPolicies`]), and mutations — apply
//! configurations merged like server-side apply and JSON patches
//! ([`MutatingPolicies`]).
//!
//! CEL expressions see `object`, `oldObject`, `request`, `params`,
//! `namespaceObject`, `variables` and `authorizer`. There is no authorizer here:
//! every check through `authorizer` is allowed (`allowed()` is true, `reason()`
//! and `error()` are empty, `errored()` is false).
//!
//! ```
//! use crd_runtime::admission::policy::{KubeVersion, ParamQuery, ValidatingPolicies};
//! use crd_runtime::admission::{Attributes, GroupVersionKind, GroupVersionResource, Operation};
//! use serde_json::{Value, json};
//!
//! let policy = json!({"metadata": {"name": "max-replicas"}, "spec": {
//!     "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
//!         "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}]},
//!     "validations": [{"expression": "object.spec.replicas <= 5",
//!         "messageExpression": "'replicas must be at most 5, not ' + string(object.spec.replicas)"}]}});
//! let binding = json!({"metadata": {"name": "max-replicas-binding"},
//!     "spec": {"policyName": "max-replicas", "validationActions": ["Deny"]}});
//! let policies = ValidatingPolicies::new(&[policy], &[binding], KubeVersion::NEWEST);
//!
//! let attrs = Attributes {
//!     operation: Some(Operation::Create),
//!     kind: GroupVersionKind { group: "apps".into(), version: "v1".into(), kind: "Deployment".into() },
//!     resource: GroupVersionResource { group: "apps".into(), version: "v1".into(), resource: "deployments".into() },
//!     name: "web".into(),
//!     namespace: "default".into(),
//!     object: Some(json!({"metadata": {"name": "web"}, "spec": {"replicas": 10}})),
//!     ..Default::default()
//! };
//! let namespace = json!({"metadata": {"name": "default"}});
//! // Phase 1: what matches (and which parameters it needs); phase 2: evaluate.
//! let plan = policies.plan(&attrs, Some(&namespace), &[]);
//! let no_params = |_: &ParamQuery| -> Result<Vec<Value>, String> { Ok(vec![]) };
//! let verdict = policies.decide(&plan, &attrs, Some(&namespace), &no_params);
//! let denial = verdict.denied.unwrap();
//! assert_eq!(denial.code, 422);
//! assert_eq!(denial.message, "ValidatingAdmissionPolicy 'max-replicas' with binding \
//!     'max-replicas-binding' denied request: replicas must be at most 5, not 10");
//! ```

mod activation;
mod apply;
mod conditions;
mod declarations;
mod evaluator;
mod expression;
mod json_patch;
mod literal;
mod mutating;
mod plan;
mod typecheck;
mod validating;
mod validator;

pub use crate::KubeVersion;
pub use conditions::MatchConditions;
pub use declarations::admission_declarations;
pub use mutating::{MutatingPolicies, MutationOutcome};
pub use plan::{Plan, Step};
pub use typecheck::SchemaOf;
pub use validating::ValidatingPolicies;

use serde_json::Value;

use super::Attributes;
use super::matching::Invocation;

/// What CEL expressions see: `object`, `oldObject`, `request`, `params`,
/// `namespaceObject`, `authorizer` (the host's, see [`crate::admission::with_authorizer`];
/// allows everything without one) and `variables`.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The request.
    pub attrs: &'a Attributes,
    /// The kind and resource as matched (`matchPolicy: Equivalent`); `None`: the
    /// request's own. When converted, `attrs.object` is already the converted object.
    pub invocation: Option<&'a Invocation>,
    /// `namespaceObject` (`None` for cluster-scoped requests).
    pub namespace: Option<&'a Value>,
    /// `params` (`None`: no parameters, `params` is null).
    pub params: Option<&'a Value>,
}

/// The verdict of the ValidatingAdmissionPolicy plugin for one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The first `Deny` failure (kube-apiserver stops at the first denying binding).
    pub denied: Option<Denial>,
    /// `Warn` actions, formatted as kube-apiserver formats them.
    pub warnings: Vec<String>,
    /// Audit annotations (`Audit` action failures and `auditAnnotations`), keyed as
    /// kube-apiserver keys them (`POLICY/KEY`, `validation.policy.admission.k8s.io/validation_failure`).
    pub audit_annotations: Vec<(String, String)>,
}

/// A request denied by a policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// The Status message.
    pub message: String,
    /// The Status reason (`Invalid`, `Forbidden`, `Unauthorized`, `RequestEntityTooLarge`).
    pub reason: String,
    /// The HTTP code (422, 403, 401, 413).
    pub code: u16,
}

/// Where a binding's `paramRef` leads (resolved by the caller: the server reads its
/// store, crd-gen its files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamQuery {
    /// The policy's `paramKind.apiVersion`.
    pub api_version: String,
    /// The policy's `paramKind.kind`.
    pub kind: String,
    /// `paramRef.namespace`, else the request's namespace (`None` for a
    /// cluster-scoped request). The caller decides by the `paramKind`'s scope: a
    /// cluster-scoped kind ignores it (and fails with `paramRef.namespace must not
    /// be provided for a cluster-scoped `paramKind`` when `namespace_given`); a
    /// namespaced kind without one fails with `cannot use namespaced paramRef in
    /// policy binding that matches cluster-scoped resources`.
    pub namespace: Option<String>,
    /// One object by name (`paramRef.name`).
    pub name: Option<String>,
    /// Objects by label selector (`paramRef.selector`).
    pub selector: Option<Value>,
    /// Whether `namespace` is the binding's `paramRef.namespace` (an error for a
    /// cluster-scoped `paramKind`: `paramRef.namespace must not be provided for a
    /// cluster-scoped `paramKind``) rather than the request's namespace.
    pub namespace_given: bool,
}

#[cfg(test)]
mod validating_tests;

#[cfg(test)]
mod mutating_tests;
