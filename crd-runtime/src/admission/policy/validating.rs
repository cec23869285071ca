//! ValidatingAdmissionPolicies with their bindings.

use serde_json::Value;

use super::{KubeVersion, ParamQuery, Plan, Verdict};
use crate::admission::Attributes;
use crate::admission::matching::Equivalent;

/// The compiled ValidatingAdmissionPolicies and their bindings.
#[derive(Debug, Default)]
pub struct ValidatingPolicies {
    policies: Vec<Value>,
}

impl ValidatingPolicies {
    /// Compiles `policies` and indexes `bindings` by `spec.policyName`.
    pub fn new(policies: &[Value], bindings: &[Value], version: KubeVersion) -> Self {
        let _ = (bindings, version);
        ValidatingPolicies {
            policies: policies.to_vec(),
        }
    }

    /// Whether no policy has a binding.
    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    /// Phase 1: the (policy, binding) pairs whose matchConstraints and binding
    /// matchResources match, with the parameter query each needs.
    pub fn plan(
        &self,
        attrs: &Attributes,
        namespace: Option<&Value>,
        equivalents: &[Equivalent],
    ) -> Plan {
        let _ = (attrs, namespace, equivalents);
        Plan::default()
    }

    /// Phase 2: evaluates the plan; `params` answers each [`ParamQuery`] of the plan
    /// (`Err(msg)`: the lookup failed).
    pub fn decide(
        &self,
        plan: &Plan,
        attrs: &Attributes,
        namespace: Option<&Value>,
        params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
    ) -> Verdict {
        let _ = (plan, attrs, namespace, params);
        Verdict::default()
    }

    /// `status.typeChecking` of each policy: (policy name, generation,
    /// `expressionWarnings` `[{fieldRef, warning}]`).
    pub fn type_checking(&self) -> Vec<(String, i64, Vec<Value>)> {
        Vec::new()
    }
}
