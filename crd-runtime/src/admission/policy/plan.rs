//! Phase 1 of policy evaluation: which (policy, binding) pairs match a request.

use super::ParamQuery;
use crate::admission::matching::Invocation;

/// One matched (policy, binding) pair, in the order kube-apiserver evaluates them.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The policy's name.
    pub policy: String,
    /// The binding's name.
    pub binding: String,
    /// The parameters the binding needs (`None`: no `paramKind` or no `paramRef`).
    pub params: Option<ParamQuery>,
    /// The kind and resource the policy matched.
    pub invocation: Invocation,
    /// A configuration error found while matching (`failed to configure policy: ...`),
    /// reported according to the policy's failurePolicy.
    pub error: Option<String>,
    pub(super) policy_index: usize,
    pub(super) binding_index: Option<usize>,
}

/// The matched pairs for one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The pairs, in evaluation order.
    pub steps: Vec<Step>,
}

impl Plan {
    /// The parameter lookups the plan needs.
    pub fn param_queries(&self) -> Vec<&ParamQuery> {
        self.steps
            .iter()
            .filter_map(|s| s.params.as_ref())
            .collect()
    }

    /// Whether nothing matched.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}
