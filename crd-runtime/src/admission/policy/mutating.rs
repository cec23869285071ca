//! MutatingAdmissionPolicies with their bindings (the generic policy dispatcher
//! with the mutating `dispatchInvocations`): for each matched (policy, binding,
//! param) in order, the match conditions, then each mutation — an
//! ApplyConfiguration merged into the object ([`super::apply`]) or a JSONPatch
//! ([`super::json_patch`]) — on the object as the previous mutations left it.
//! Errors of `failurePolicy: Fail` policies deny the request with the first one
//! (`policy 'P' with binding 'B' denied request: …`, 403); `Ignore` skips them.

use kube_cel::cel::Context;
use kube_cel::cel::objects::Value as Cel;
use serde_json::Value;

use super::activation::{Needs, with_input};
use super::conditions::{MatchConditions, Matched};
use super::evaluator::{Evaluator, MATCH_CONDITIONS_BUDGET, RUNTIME_BUDGET};
use super::expression::{Expression, Returns, Scope};
use super::json_patch::{self, PatchError};
use super::plan::{self, Binding, Header, resolve_params};
use super::validator::{compile_variables, expressions_needs, go_type_name, needs_of};
use super::{Denial, Input, KubeVersion, ParamQuery, Plan};
use crate::admission::Attributes;
use crate::admission::matching::Equivalent;
use crate::cel::CelEnvironment;
use crate::model::JSONSchemaProps;

/// The result of the mutating policies on one request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MutationOutcome {
    /// Whether the object changed.
    pub changed: bool,
    /// Warnings to return with the response.
    pub warnings: Vec<String>,
}

#[derive(Debug)]
enum Mutation {
    Apply(Expression),
    JsonPatch(Expression),
    /// A patch type this engine does not know.
    Unknown(String),
}

#[derive(Debug)]
struct Mutator {
    variables: Vec<(String, Expression)>,
    conditions: MatchConditions,
    mutations: Vec<Mutation>,
    /// `reinvocationPolicy: IfNeeded`.
    reinvoke: bool,
    /// The activation values its expressions name.
    needs: Needs,
}

/// The compiled MutatingAdmissionPolicies and their bindings.
#[derive(Debug, Default)]
pub struct MutatingPolicies {
    headers: Vec<(Header, Vec<Binding>)>,
    mutators: Vec<Mutator>,
}

struct PolicyError {
    policy: String,
    binding: Option<String>,
    message: String,
    reason: &'static str,
}

impl Mutator {
    fn compile(policy: &Value, env: CelEnvironment) -> Mutator {
        let spec = policy.get("spec").unwrap_or(&Value::Null);
        let params = spec.get("paramKind").is_some_and(Value::is_object);
        let (variables, names) = compile_variables(spec, params, env);
        let scope = Scope::policy(params, &names, env);
        let expr = |m: &Value, f: &str| {
            let src = m
                .get(f)
                .and_then(|c| c.get("expression"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Expression::compile(src, Returns::Unchecked, scope)
        };
        let mutations: Vec<Mutation> = spec
            .get("mutations")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(
                |m| match m.get("patchType").and_then(Value::as_str).unwrap_or("") {
                    "ApplyConfiguration" => Mutation::Apply(expr(m, "applyConfiguration")),
                    "JSONPatch" => Mutation::JsonPatch(expr(m, "jsonPatch")),
                    other => Mutation::Unknown(other.to_string()),
                },
            )
            .collect();
        let conditions = spec
            .get("matchConditions")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let conditions = MatchConditions::compile_in(conditions, scope);
        let needs = expressions_needs(&variables, &conditions).union(needs_of(
            mutations.iter().filter_map(|m| match m {
                Mutation::Apply(e) | Mutation::JsonPatch(e) => Some(e),
                Mutation::Unknown(_) => None,
            }),
        ));
        Mutator {
            conditions,
            variables,
            mutations,
            needs,
            reinvoke: spec.get("reinvocationPolicy").and_then(Value::as_str) == Some("IfNeeded"),
        }
    }

    /// One mutation of `object`: the new object or kube-apiserver's error.
    fn mutate_one(
        &self,
        m: &Mutation,
        scope: &Context,
        object: &Value,
        schema: Option<&JSONSchemaProps>,
    ) -> Result<Value, String> {
        let (e, apply) = match m {
            Mutation::Apply(e) => (e, true),
            Mutation::JsonPatch(e) => (e, false),
            Mutation::Unknown(t) => return Err(format!("unsupported patch type: {t}")),
        };
        if let Err(c) = &e.program {
            return Err(c.clone());
        }
        let mut ev = Evaluator::new(scope, &self.variables, RUNTIME_BUDGET);
        let result = ev.eval(e).map_err(|f| f.message())?;
        let type_names = || match &e.type_names {
            Some(t) => Err(format!("type mismatch: {t}")),
            None => Ok(()),
        };
        if apply {
            let Cel::Map(_) = &result else {
                return Err(format!(
                    "unsupported return type from ApplyConfiguration expression: {}",
                    go_type_name(&result)
                ));
            };
            type_names()?;
            let patch = json_patch::cel_to_json(&result)
                .map_err(|e| format!("error applying patch: {e}"))?;
            super::apply::merge(object, &patch, schema)
        } else {
            let ops = json_patch::operations(&result)?;
            type_names()?;
            match json_patch::apply(object, &ops) {
                Ok(v) => Ok(v),
                Err(PatchError::TestFailed) => Ok(object.clone()),
                Err(PatchError::Failed(m)) => Err(format!("JSON Patch: {m}")),
            }
        }
    }
}

impl MutatingPolicies {
    /// Compiles `policies` and groups `bindings` by `spec.policyName`.
    pub fn new(policies: &[Value], bindings: &[Value], version: KubeVersion) -> Self {
        // Installed objects' expressions: the stored environment, as the
        // admission plugins compile them (`environment.StoredExpressions`).
        let env = CelEnvironment::stored_for_kube(version);
        let compiled = policies
            .iter()
            .map(|p| (Header::from_json(p), Mutator::compile(p, env)))
            .collect();
        let (headers, mutators) = plan::group(compiled, bindings);
        MutatingPolicies { headers, mutators }
    }

    /// Whether no policy has a binding.
    pub fn is_empty(&self) -> bool {
        self.headers.iter().all(|(_, b)| b.is_empty())
    }

    /// The (policy, binding) pairs that match, as [`super::ValidatingPolicies::plan`].
    pub fn plan(
        &self,
        attrs: &Attributes,
        namespace: Option<&Value>,
        equivalents: &[Equivalent],
    ) -> Plan {
        plan::plan(&self.headers, attrs, namespace, equivalents)
    }

    /// Whether a matched policy has `reinvocationPolicy: IfNeeded` (the caller
    /// runs the mutating policies again after webhooks changed the object).
    pub fn reinvocation_needed(&self, plan: &Plan) -> bool {
        plan.steps.iter().any(|s| {
            self.mutators
                .get(s.policy_index)
                .is_some_and(|m| m.reinvoke)
        })
    }

    /// Applies the planned mutations in order (ApplyConfiguration: structured merge;
    /// JSONPatch) to `attrs.object`. `schema`: the object's structural schema when
    /// known (list-map keys for merging, atomic lists refused), else objects are
    /// merged and lists replaced. An object is changed even when a later policy
    /// denies (the request fails anyway).
    pub fn mutate(
        &self,
        plan: &Plan,
        attrs: &mut Attributes,
        namespace: Option<&Value>,
        schema: Option<&JSONSchemaProps>,
        params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
    ) -> Result<MutationOutcome, Denial> {
        let before = attrs.object.clone();
        let own_namespace = attrs.kind.group.is_empty()
            && attrs.kind.version == "v1"
            && attrs.kind.kind == "Namespace";
        let namespace = if own_namespace { None } else { namespace };
        let mut errors: Vec<PolicyError> = Vec::new();
        for step in &plan.steps {
            let Some((header, bindings)) = self.headers.get(step.policy_index) else {
                continue;
            };
            let mutator = &self.mutators[step.policy_index];
            let binding = step.binding_index.and_then(|i| bindings.get(i));
            let mut error = |message: String, reason: &'static str| {
                if header.fail {
                    errors.push(PolicyError {
                        policy: header.name.clone(),
                        binding: binding.map(|b| b.name.clone()),
                        message,
                        reason,
                    });
                }
            };
            if let Some(e) = &step.error {
                error(e.clone(), "");
                continue;
            }
            let Some(binding) = binding else { continue };
            let objects = match resolve_params(step, binding, params) {
                Ok(o) => o,
                Err(e) => {
                    error(e, "");
                    continue;
                }
            };
            for param in &objects {
                if !mutator.conditions.is_empty() {
                    // Match conditions see no namespaceObject.
                    let input = Input {
                        attrs,
                        invocation: Some(&step.invocation),
                        namespace: None,
                        params: param.as_ref(),
                    };
                    let matched = with_input(&input, mutator.needs, |scope| {
                        let mut ev =
                            Evaluator::new(scope, &mutator.variables, MATCH_CONDITIONS_BUDGET);
                        mutator.conditions.evaluate_with(&mut ev)
                    });
                    match matched {
                        Matched::Yes => {}
                        Matched::No(_) => continue,
                        Matched::Error(e) => {
                            error(e, "Invalid");
                            continue;
                        }
                    }
                }
                for m in &mutator.mutations {
                    // No object (a DELETE): nothing to patch.
                    let Some(object) = &attrs.object else {
                        continue;
                    };
                    // Each mutation sees the object as the ones before left it.
                    let input = Input {
                        attrs,
                        invocation: Some(&step.invocation),
                        namespace,
                        params: param.as_ref(),
                    };
                    let result = with_input(&input, mutator.needs, |scope| {
                        mutator.mutate_one(m, scope, object, schema)
                    });
                    match result {
                        Ok(new) => attrs.object = Some(new),
                        Err(e) => error(e, "Invalid"),
                    }
                }
            }
        }
        if let Some(e) = errors.into_iter().next() {
            let message = match &e.binding {
                Some(b) => format!(
                    "policy '{}' with binding '{b}' denied request: {}",
                    e.policy, e.message
                ),
                None => format!(
                    "policy {} denied request: {}",
                    crate::go::quote(&e.policy),
                    e.message
                ),
            };
            let reason = if e.reason.is_empty() {
                "Forbidden"
            } else {
                e.reason
            };
            return Err(Denial {
                message,
                reason: reason.to_string(),
                code: 403,
            });
        }
        Ok(MutationOutcome {
            changed: attrs.object != before,
            warnings: Vec::new(),
        })
    }
}
