//! `matchConditions`: CEL preconditions of webhooks and policies
//! (`matchconditions.Matcher`). Every condition is evaluated in order with a shared
//! budget; a false one means no match even after errors; errors are joined as
//! Go's `utilerrors.NewAggregate` joins them.

use kube_cel::cel::objects::Value as Cel;
use serde_json::Value;

use super::activation::{Needs, with_input};
use super::evaluator::{Evaluator, Failure, MATCH_CONDITIONS_BUDGET};
use super::expression::{Expression, Returns, Scope};
use super::{Input, KubeVersion};
use crate::cel::CelEnvironment;

/// Compiled `matchConditions` (webhooks: `with_params = false`; policies:
/// `with_params` = the policy has a `paramKind`).
#[derive(Debug, Default)]
pub struct MatchConditions {
    conditions: Vec<(String, Expression)>,
}

/// What the conditions decided.
pub(super) enum Matched {
    Yes,
    /// Condition `name` is false.
    No(String),
    /// Errors, joined.
    Error(String),
}

impl MatchConditions {
    /// Compiles `conditions` (`[{name, expression}]`).
    pub fn compile(
        conditions: &[Value],
        with_params: bool,
        version: KubeVersion,
    ) -> MatchConditions {
        let scope = Scope {
            params: with_params,
            authorizer: true,
            variables: &[],
            composited: false,
            // Installed objects' expressions: the stored environment, as the
            // admission plugins compile them (`environment.StoredExpressions`).
            env: CelEnvironment::stored_for_kube(version),
            object: None,
        };
        Self::compile_in(conditions, scope)
    }

    /// Compiles `conditions` where a policy's variables are visible.
    pub(super) fn compile_in(conditions: &[Value], scope: Scope) -> MatchConditions {
        MatchConditions {
            conditions: conditions
                .iter()
                .map(|c| {
                    let s = |f: &str| c.get(f).and_then(Value::as_str).unwrap_or("");
                    (
                        s("name").to_string(),
                        Expression::compile(s("expression"), Returns::Bool, scope),
                    )
                })
                .collect(),
        }
    }

    /// The activation values the conditions name.
    pub(super) fn needs(&self) -> Needs {
        self.conditions
            .iter()
            .fold(Needs::default(), |n, (_, e)| n.union(e.uses.activation))
    }

    /// Whether there are no conditions.
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }

    /// `Ok(None)`: all true (matches). `Ok(Some(name))`: condition `name` is false
    /// (no match). `Err(e)`: an error evaluating one (the caller applies its
    /// failurePolicy; `e` is kube-apiserver's text). As in kube-apiserver,
    /// `namespaceObject` is null in match conditions whatever `input.namespace` is.
    pub fn evaluate(&self, input: &Input) -> Result<Option<String>, String> {
        let input = Input {
            namespace: None,
            ..*input
        };
        let matched = with_input(&input, self.needs(), |scope| {
            let mut ev = Evaluator::new(scope, &[], MATCH_CONDITIONS_BUDGET);
            self.evaluate_with(&mut ev)
        });
        match matched {
            Matched::Yes => Ok(None),
            Matched::No(name) => Ok(Some(name)),
            Matched::Error(e) => Err(e),
        }
    }

    /// Evaluates with a policy's evaluator (its variables, params, budget).
    pub(super) fn evaluate_with(&self, ev: &mut Evaluator) -> Matched {
        let mut errors = Vec::new();
        for (name, e) in &self.conditions {
            match ev.eval(e) {
                Ok(Cel::Bool(false)) => return Matched::No(name.clone()),
                Ok(Cel::Bool(true)) => {}
                Ok(other) => errors.push(format!(
                    "expression '{}' resulted in error: no such overload: {}",
                    e.src,
                    other.type_of()
                )),
                Err(Failure::OutOfBudget) => return Matched::Error(Failure::OutOfBudget.message()),
                Err(Failure::Error(m)) => errors.push(m),
            }
        }
        match errors.len() {
            0 => Matched::Yes,
            1 => Matched::Error(errors.remove(0)),
            _ => Matched::Error(format!("[{}]", errors.join(", "))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::{Attributes, Operation};
    use serde_json::json;

    fn attrs() -> Attributes {
        Attributes {
            operation: Some(Operation::Create),
            name: "web".into(),
            namespace: "default".into(),
            object: Some(json!({"metadata": {"name": "web", "labels": {"app": "web"}}})),
            ..Default::default()
        }
    }

    /// The input of a webhook's match conditions: the request alone.
    fn input(attrs: &Attributes) -> Input<'_> {
        Input {
            attrs,
            invocation: None,
            namespace: None,
            params: None,
        }
    }

    fn conds(v: Value) -> MatchConditions {
        MatchConditions::compile(v.as_array().unwrap(), false, KubeVersion::NEWEST)
    }

    #[test]
    fn true_false_and_errors() {
        let a = attrs();
        let input = input(&a);
        let c = conds(json!([
            {"name": "is-create", "expression": "request.operation == 'CREATE'"},
            {"name": "labelled", "expression": "has(object.metadata.labels) && object.metadata.labels.app == 'web'"},
        ]));
        assert!(!c.is_empty());
        assert_eq!(c.evaluate(&input), Ok(None));
        let c = conds(json!([
            {"name": "broken", "expression": "object.metadata.nope == 'x'"},
            {"name": "not-update", "expression": "request.operation == 'UPDATE'"},
        ]));
        // A false condition wins over errors.
        assert_eq!(c.evaluate(&input), Ok(Some("not-update".into())));
        let c = conds(json!([
            {"name": "broken", "expression": "object.metadata.nope == 'x'"},
            {"name": "also", "expression": "object.spec.x == 1"},
        ]));
        assert_eq!(
            c.evaluate(&input),
            Err("[expression 'object.metadata.nope == 'x'' resulted in error: no such key: nope, expression 'object.spec.x == 1' resulted in error: no such key: spec]".into())
        );
        // Webhooks have no composited variables.
        let c = conds(json!([{"name": "v", "expression": "variables.x == 1"}]));
        assert!(
            c.evaluate(&input)
                .unwrap_err()
                .contains("undeclared reference to 'variables'")
        );
        let c = conds(json!([{"name": "p", "expression": "params.x == 1"}]));
        let err = c.evaluate(&input).unwrap_err();
        assert!(err.starts_with("compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'"), "{err}");
    }

    #[test]
    fn cost_limit_is_reported() {
        let a = attrs();
        let input = input(&a);
        let c = conds(json!([{"name": "big", "expression":
            "lists.range(1000).all(i, lists.range(1000).all(j, i >= 0))"}]));
        let err = c.evaluate(&input).unwrap_err();
        assert!(
            err == Failure::OutOfBudget.message()
                || err.ends_with("operation cancelled: actual cost limit exceeded"),
            "{err}"
        );
    }
}
