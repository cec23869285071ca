//! ValidatingAdmissionPolicies with their bindings: the validating dispatcher
//! (`validating.dispatcher.Dispatch`) — configuration errors by failurePolicy,
//! parameters, `validationActions` (Deny, Warn, Audit), audit annotations, and the
//! first denial as the request's Status.

use serde::Serialize;
use serde_json::Value;

use std::cell::OnceCell;

use kube_cel::cel::Context;

use super::activation::{self, Needs};
use super::plan::{self, Binding, Header, resolve_params};
use super::validator::{Annotation, Decision, Validator};
use super::{Denial, KubeVersion, ParamQuery, Plan, Verdict};
use crate::admission::Attributes;
use crate::admission::matching::{Equivalent, Invocation};
use crate::cel::{CelEnvironment, with_root};

/// The audit annotation of `Audit` failures.
const VALIDATION_FAILURE_KEY: &str = "validation.policy.admission.k8s.io/validation_failure";
/// At most this many `Audit` failures are recorded.
const MAX_VALIDATION_FAILURES: usize = 50;
/// Audit annotation values are cut to this length.
const MAX_AUDIT_ANNOTATION_VALUE: usize = 10 * 1024;

/// The compiled ValidatingAdmissionPolicies and their bindings.
#[derive(Debug, Default)]
pub struct ValidatingPolicies {
    env: CelEnvironment,
    headers: Vec<(Header, Vec<Binding>)>,
    validators: Vec<Validator>,
}

/// `ValidationFailureValue`, in Go's field order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FailureValue<'a> {
    message: &'a str,
    policy: &'a str,
    binding: &'a str,
    expression_index: usize,
    validation_actions: &'a [String],
}

/// A denial with what it came from.
struct Denied {
    policy: String,
    binding: Option<String>,
    decision: Decision,
}

/// Reason to HTTP code (`reasonToCode`).
pub(super) fn reason_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

impl ValidatingPolicies {
    /// Compiles `policies` and groups `bindings` by `spec.policyName`.
    pub fn new(policies: &[Value], bindings: &[Value], version: KubeVersion) -> Self {
        // Installed objects' expressions: the stored environment, as the
        // admission plugins compile them (`environment.StoredExpressions`).
        let env = CelEnvironment::stored_for_kube(version);
        let compiled = policies
            .iter()
            .map(|p| {
                let h = Header::from_json(p);
                let v = Validator::compile(p, h.fail, env);
                (h, v)
            })
            .collect();
        let (headers, validators) = plan::group(compiled, bindings);
        ValidatingPolicies {
            env,
            headers,
            validators,
        }
    }

    /// Whether no policy has a binding.
    pub fn is_empty(&self) -> bool {
        self.headers.iter().all(|(_, b)| b.is_empty())
    }

    /// Phase 1: the (policy, binding) pairs whose matchConstraints and binding
    /// matchResources match, with the parameter query each needs.
    pub fn plan(
        &self,
        attrs: &Attributes,
        namespace: Option<&Value>,
        equivalents: &[Equivalent],
    ) -> Plan {
        plan::plan(&self.headers, attrs, namespace, equivalents)
    }

    /// Phase 2: evaluates the plan; `params` answers each [`ParamQuery`] of the plan
    /// (`Ok(vec![])`: nothing found; `Err(msg)`: the lookup failed — for a namespaced
    /// `paramKind` without a namespace the caller answers `cannot use namespaced
    /// paramRef in policy binding that matches cluster-scoped resources`).
    pub fn decide(
        &self,
        plan: &Plan,
        attrs: &Attributes,
        namespace: Option<&Value>,
        params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
    ) -> Verdict {
        let mut denied: Vec<Denied> = Vec::new();
        let mut verdict = Verdict::default();
        let mut failures: Vec<(String, String, usize, String, Vec<String>)> = Vec::new();
        // A Namespace's own requests see no namespaceObject.
        let own_namespace = attrs.kind.group.is_empty()
            && attrs.kind.version == "v1"
            && attrs.kind.kind == "Namespace";
        let namespace = if own_namespace { None } else { namespace };
        // Audit annotations are collected per policy: key -> distinct values.
        let mut collected: Vec<(usize, String, Vec<String>)> = Vec::new();
        with_root(|root| {
            // The activation's values are converted once per request (`request` once
            // per invocation, `params` once per parameter object), when first needed,
            // and only those the matched policies' expressions name.
            let needs = plan.steps.iter().fold(Needs::default(), |n, s| {
                self.validators
                    .get(s.policy_index)
                    .map_or(n, |v| n.union(v.needs))
            });
            let base = OnceCell::new();
            let mut invoked: Option<(&Invocation, Context)> = None;
            for step in &plan.steps {
                let Some((header, bindings)) = self.headers.get(step.policy_index) else {
                    continue;
                };
                let validator = &self.validators[step.policy_index];
                let binding = step.binding_index.and_then(|i| bindings.get(i));
                let config_error = |msg: String, denied: &mut Vec<Denied>| {
                    if header.fail {
                        denied.push(Denied {
                            policy: header.name.clone(),
                            binding: binding.map(|b| b.name.clone()),
                            decision: Decision {
                                deny: true,
                                message: msg,
                                reason: String::new(),
                                index: 0,
                            },
                        });
                    }
                };
                if let Some(e) = &step.error {
                    config_error(e.clone(), &mut denied);
                    continue;
                }
                let Some(binding) = binding else { continue };
                let objects = match resolve_params(step, binding, params) {
                    Ok(o) => o,
                    Err(e) => {
                        config_error(e, &mut denied);
                        continue;
                    }
                };
                if objects.is_empty() {
                    continue;
                }
                let base =
                    base.get_or_init(|| activation::request_scope(root, attrs, namespace, needs));
                let mut scope: &Context = base;
                if validator.needs.has(Needs::REQUEST) {
                    if !invoked
                        .as_ref()
                        .is_some_and(|(i, _)| *i == &step.invocation)
                    {
                        let layer =
                            activation::invocation_scope(base, attrs, Some(&step.invocation));
                        invoked = Some((&step.invocation, layer));
                    }
                    if let Some((_, layer)) = &invoked {
                        scope = layer;
                    }
                }
                for param in &objects {
                    let layer;
                    let scope = if validator.needs.has(Needs::PARAMS) {
                        layer = activation::params_scope(scope, param.as_ref());
                        &layer
                    } else {
                        scope
                    };
                    let outcome = validator.validate(scope);
                    for d in outcome.decisions.into_iter().filter(|d| d.deny) {
                        for action in &binding.actions {
                            match action.as_str() {
                            "Deny" => denied.push(Denied {
                                policy: header.name.clone(),
                                binding: Some(binding.name.clone()),
                                decision: d.clone(),
                            }),
                            "Warn" => verdict.warnings.push(format!(
                                "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{}': {}",
                                header.name, binding.name, d.message
                            )),
                            "Audit" => failures.push((
                                d.message.clone(),
                                header.name.clone(),
                                d.index,
                                binding.name.clone(),
                                binding.actions.clone(),
                            )),
                            _ => {}
                        }
                        }
                    }
                    for a in outcome.annotations {
                        match a {
                            Annotation::Publish(key, mut value) => {
                                if value.len() > MAX_AUDIT_ANNOTATION_VALUE {
                                    let mut cut = MAX_AUDIT_ANNOTATION_VALUE;
                                    while !value.is_char_boundary(cut) {
                                        cut -= 1;
                                    }
                                    value.truncate(cut);
                                }
                                match collected
                                    .iter_mut()
                                    .find(|(p, k, _)| *p == step.policy_index && *k == key)
                                {
                                    Some((_, _, values)) if values.contains(&value) => {}
                                    Some((_, _, values)) => values.push(value),
                                    None => collected.push((step.policy_index, key, vec![value])),
                                }
                            }
                            Annotation::Error(message) => denied.push(Denied {
                                policy: header.name.clone(),
                                binding: Some(binding.name.clone()),
                                decision: Decision {
                                    deny: true,
                                    message,
                                    reason: String::new(),
                                    index: 0,
                                },
                            }),
                        }
                    }
                }
            }
        });
        for (pi, key, values) in collected {
            let name = &self.headers[pi].0.name;
            verdict
                .audit_annotations
                .push((format!("{name}/{key}"), values.join(", ")));
        }
        if !failures.is_empty() {
            failures.truncate(MAX_VALIDATION_FAILURES);
            let values: Vec<FailureValue> = failures
                .iter()
                .map(|(message, policy, index, binding, actions)| FailureValue {
                    message,
                    policy,
                    binding,
                    expression_index: *index,
                    validation_actions: actions,
                })
                .collect();
            if let Ok(json) = serde_json::to_string(&values) {
                verdict
                    .audit_annotations
                    .push((VALIDATION_FAILURE_KEY.to_string(), json));
            }
        }
        verdict.denied = denied.into_iter().next().map(|d| {
            let message = match &d.binding {
                Some(b) => format!(
                    "ValidatingAdmissionPolicy '{}' with binding '{b}' denied request: {}",
                    d.policy, d.decision.message
                ),
                None => format!(
                    "ValidatingAdmissionPolicy '{}' denied request: {}",
                    d.policy, d.decision.message
                ),
            };
            let reason = if d.decision.reason.is_empty() {
                "Invalid".to_string()
            } else {
                d.decision.reason
            };
            Denial {
                message,
                code: reason_code(&reason),
                reason,
            }
        });
        verdict
    }

    /// `status.typeChecking` of each policy: (policy name, generation,
    /// `expressionWarnings` `[{fieldRef, warning}]`). Without the schemas of the
    /// matched kinds `object` is dynamic, so only [`Self::type_checking_with`]
    /// can find warnings.
    pub fn type_checking(&self) -> Vec<(String, i64, Vec<Value>)> {
        self.type_checking_with(&|_, _, _| None)
    }

    /// [`Self::type_checking`] with `schema_of(group, version, resource)` giving the
    /// kind and structural schema of a resource the policy's `matchConstraints`
    /// name: each validation's expression and messageExpression is checked with
    /// `object` and `oldObject` typed by it (warnings read
    /// `apps/v1, Kind=Deployment: compilation failed: ERROR: …`).
    pub fn type_checking_with(
        &self,
        schema_of: super::typecheck::SchemaOf,
    ) -> Vec<(String, i64, Vec<Value>)> {
        self.headers
            .iter()
            .zip(&self.validators)
            .map(|((h, _), v)| {
                let warnings = super::typecheck::warnings(h, v, self.env, schema_of);
                (h.name.clone(), h.generation, warnings)
            })
            .collect()
    }
}
