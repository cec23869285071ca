//! Phase 1 of policy evaluation (shared by validating and mutating policies):
//! which (policy, binding) pairs match a request — the policy's
//! `matchConstraints`, then each binding's `matchResources` — and which
//! parameters each needs; and phase 2's parameter resolution (`CollectParams`).

use serde_json::Value;

use super::ParamQuery;
use crate::admission::Attributes;
use crate::admission::matching::{Equivalent, Invocation, SelectorError, match_resources};

/// One matched (policy, binding) pair, in the order kube-apiserver evaluates them.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The policy's name.
    pub policy: String,
    /// The binding's name (empty for a policy-level configuration error).
    pub binding: String,
    /// The parameters the binding needs (`None`: no `paramKind` or no `paramRef`).
    pub params: Option<ParamQuery>,
    /// The kind and resource the policy matched.
    pub invocation: Invocation,
    /// A configuration error found while matching (`failed to configure policy: …`,
    /// `failed to configure binding: …`), reported by the policy's failurePolicy.
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

/// A binding, as both kinds of policy bind.
#[derive(Clone, Debug)]
pub(super) struct Binding {
    pub(super) name: String,
    pub(super) param_ref: Option<Value>,
    pub(super) match_resources: Option<Value>,
    /// `validationActions` (validating bindings).
    pub(super) actions: Vec<String>,
}

impl Binding {
    pub(super) fn from_json(b: &Value) -> Binding {
        let spec = b.get("spec").unwrap_or(&Value::Null);
        Binding {
            name: name_of(b),
            param_ref: spec.get("paramRef").filter(|v| !v.is_null()).cloned(),
            match_resources: spec.get("matchResources").filter(|v| !v.is_null()).cloned(),
            actions: spec
                .get("validationActions")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// What matching needs of a policy.
#[derive(Clone, Debug)]
pub(super) struct Header {
    pub(super) name: String,
    pub(super) generation: i64,
    pub(super) match_constraints: Option<Value>,
    /// `paramKind` (`apiVersion`, `kind`).
    pub(super) param_kind: Option<(String, String)>,
    /// `failurePolicy: Fail` (the default).
    pub(super) fail: bool,
}

impl Header {
    pub(super) fn from_json(p: &Value) -> Header {
        let spec = p.get("spec").unwrap_or(&Value::Null);
        let s = |v: &Value, f: &str| v.get(f).and_then(Value::as_str).unwrap_or("").to_string();
        Header {
            name: name_of(p),
            generation: p
                .pointer("/metadata/generation")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            match_constraints: spec
                .get("matchConstraints")
                .filter(|v| !v.is_null())
                .cloned(),
            param_kind: spec
                .get("paramKind")
                .filter(|v| v.is_object())
                .map(|k| (s(k, "apiVersion"), s(k, "kind"))),
            fail: spec.get("failurePolicy").and_then(Value::as_str) != Some("Ignore"),
        }
    }
}

pub(super) fn name_of(v: &Value) -> String {
    v.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The policy a binding binds (`spec.policyName`).
pub(super) fn policy_name_of(b: &Value) -> &str {
    b.pointer("/spec/policyName")
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn selector_error(e: SelectorError) -> String {
    match e {
        SelectorError::NamespaceNotFound(ns) => {
            format!("namespaces {} not found", crate::go::quote(&ns))
        }
        SelectorError::Invalid(m) => m,
    }
}

/// The plan for `policies` (each with its bindings), in order.
pub(super) fn plan(
    policies: &[(Header, Vec<Binding>)],
    attrs: &Attributes,
    namespace: Option<&Value>,
    equivalents: &[Equivalent],
) -> Plan {
    let mut steps = Vec::new();
    let own = Invocation {
        resource: attrs.resource.clone(),
        kind: attrs.kind.clone(),
    };
    for (pi, (policy, bindings)) in policies.iter().enumerate() {
        if bindings.is_empty() {
            continue;
        }
        let step = |binding: Option<usize>, invocation: &Invocation, error: Option<String>| Step {
            policy: policy.name.clone(),
            binding: binding
                .map(|i| bindings[i].name.clone())
                .unwrap_or_default(),
            params: None,
            invocation: invocation.clone(),
            error,
            policy_index: pi,
            binding_index: binding,
        };
        // A policy without matchConstraints matches nothing.
        let Some(constraints) = &policy.match_constraints else {
            continue;
        };
        let invocation = match match_resources(constraints, attrs, namespace, equivalents) {
            Ok(Some(i)) => i,
            Ok(None) => continue,
            Err(e) => {
                let msg = format!("failed to configure policy: {}", selector_error(e));
                steps.push(step(None, &own, Some(msg)));
                continue;
            }
        };
        for (bi, binding) in bindings.iter().enumerate() {
            if let Some(mr) = &binding.match_resources {
                match match_resources(mr, attrs, namespace, equivalents) {
                    Ok(Some(_)) => {}
                    Ok(None) => continue,
                    Err(e) => {
                        let msg = format!("failed to configure binding: {}", selector_error(e));
                        steps.push(step(Some(bi), &invocation, Some(msg)));
                        continue;
                    }
                }
            }
            let mut s = step(Some(bi), &invocation, None);
            match param_query(policy, binding, attrs) {
                Ok(q) => s.params = q,
                Err(e) => s.error = Some(format!("failed to configure binding: {e}")),
            }
            steps.push(s);
        }
    }
    Plan { steps }
}

/// The lookup a binding's `paramRef` needs (`CollectParams`' checks of the ref).
fn param_query(
    policy: &Header,
    binding: &Binding,
    attrs: &Attributes,
) -> Result<Option<ParamQuery>, String> {
    let (Some((api_version, kind)), Some(r)) = (&policy.param_kind, &binding.param_ref) else {
        return Ok(None);
    };
    let s = |f: &str| r.get(f).and_then(Value::as_str).filter(|s| !s.is_empty());
    let name = s("name").map(String::from);
    let selector = r.get("selector").filter(|v| !v.is_null()).cloned();
    if name.is_some() && selector.is_some() {
        return Err("paramRef.name and paramRef.selector are mutually exclusive".into());
    }
    if name.is_none() && selector.is_none() {
        return Err("one of name or selector must be provided".into());
    }
    let given = s("namespace").map(String::from);
    let namespace_given = given.is_some();
    let namespace = given.or_else(|| Some(attrs.namespace.clone()).filter(|n| !n.is_empty()));
    Ok(Some(ParamQuery {
        api_version: api_version.clone(),
        kind: kind.clone(),
        namespace,
        name,
        selector,
        namespace_given,
    }))
}

/// The parameter objects of a step: `[None]` without a query, the objects found,
/// or the binding's error (`failed to configure binding: …`).
pub(super) fn resolve_params(
    step: &Step,
    binding: &Binding,
    params: &dyn Fn(&ParamQuery) -> Result<Vec<Value>, String>,
) -> Result<Vec<Option<Value>>, String> {
    let Some(q) = &step.params else {
        return Ok(vec![None]);
    };
    let found = params(q).map_err(|e| format!("failed to configure binding: {e}"))?;
    let deny = binding
        .param_ref
        .as_ref()
        .and_then(|r| r.get("parameterNotFoundAction"))
        .and_then(Value::as_str)
        == Some("Deny");
    if found.is_empty() && deny {
        return Err("failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction".into());
    }
    Ok(found.into_iter().map(Some).collect())
}

/// Groups `bindings` under the policies they name; policies sorted by name,
/// bindings too (kube-apiserver's order is its informers'; names make it stable).
pub(super) fn group<P>(
    policies: Vec<(Header, P)>,
    bindings: &[Value],
) -> (Vec<(Header, Vec<Binding>)>, Vec<P>) {
    let mut policies = policies;
    policies.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let mut headers = Vec::with_capacity(policies.len());
    let mut compiled = Vec::with_capacity(policies.len());
    for (h, p) in policies {
        let mut bs: Vec<Binding> = bindings
            .iter()
            .filter(|b| policy_name_of(b) == h.name)
            .map(Binding::from_json)
            .collect();
        bs.sort_by(|a, b| a.name.cmp(&b.name));
        headers.push((h, bs));
        compiled.push(p);
    }
    (headers, compiled)
}
