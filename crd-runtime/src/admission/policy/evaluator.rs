//! Evaluating a policy's expressions for one request (and one parameter object):
//! in the scope of the activation's values (see [`super::activation`]), the
//! composited `variables` (each evaluated at most once, when an expression reads
//! it, as kube-apiserver's lazy variables), and the cost budget (`PerCallLimit`
//! per expression, a runtime budget shared by the expressions of one evaluation).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use kube_cel::cel::Context;
use kube_cel::cel::objects::{Key, Map, Value as Cel};

use super::expression::Expression;
use crate::cel::{Budget, COST_LIMIT_EXCEEDED, Exceeded, Limits, cel_go_error};

/// `celconfig.PerCallLimit`.
pub(super) const PER_CALL_LIMIT: u64 = 1_000_000;
/// `celconfig.RuntimeCELCostBudget`.
pub(super) const RUNTIME_BUDGET: u64 = 10_000_000;
/// `celconfig.RuntimeCELCostBudgetMatchConditions`.
pub(super) const MATCH_CONDITIONS_BUDGET: u64 = 500_000;

/// The message of an evaluation that ran out of the shared budget.
pub(super) const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// Why an expression gave no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// The expression failed; the text is kube-apiserver's (`expression 'X'
    /// resulted in error: …`, `compilation error: …`).
    Error(String),
    /// The shared budget is used up: nothing further is evaluated.
    OutOfBudget,
}

impl Failure {
    /// The message kube-apiserver reports for the failure.
    pub(super) fn message(&self) -> String {
        match self {
            Failure::Error(m) => m.clone(),
            Failure::OutOfBudget => OUT_OF_BUDGET.to_string(),
        }
    }
}

/// The evaluation state of one (policy, binding, param) invocation.
pub(super) struct Evaluator<'p, 'c> {
    /// The activation's values (all but `variables`).
    scope: &'c Context<'c>,
    variables: &'p [(String, Expression)],
    /// Evaluated variables: their value, or the error reading them gives.
    done: HashMap<String, Result<Cel, Failure>>,
    /// `scope` with `variables` (the evaluated ones) added; `None` once another
    /// variable is evaluated, so it is converted again only then.
    composited: Option<Context<'c>>,
    budget: Budget,
}

impl<'p, 'c> Evaluator<'p, 'c> {
    /// An evaluator in `scope` with the policy's `variables` and a shared `budget`.
    pub(super) fn new(
        scope: &'c Context<'c>,
        variables: &'p [(String, Expression)],
        budget: u64,
    ) -> Self {
        Evaluator {
            scope,
            variables,
            done: HashMap::new(),
            composited: None,
            budget: Budget::new(Limits {
                per_expression: PER_CALL_LIMIT,
                per_object: budget,
                time_per_object: Duration::from_secs(10),
            }),
        }
    }

    /// A fresh shared budget for the expressions that follow (audit annotations
    /// get their own in kube-apiserver).
    pub(super) fn reset_budget(&mut self, budget: u64) {
        self.budget = Budget::new(Limits {
            per_expression: PER_CALL_LIMIT,
            per_object: budget,
            time_per_object: Duration::from_secs(10),
        });
    }

    /// Evaluates `e`.
    pub(super) fn eval(&mut self, e: &Expression) -> Result<Cel, Failure> {
        let program = match &e.program {
            Ok(p) => p,
            Err(c) => return Err(Failure::Error(format!("compilation error: {c}"))),
        };
        let wanted: Vec<String> = if e.uses.all {
            self.variables.iter().map(|(n, _)| n.clone()).collect()
        } else {
            e.uses.names.iter().cloned().collect()
        };
        for name in &wanted {
            match self.variable(name) {
                Ok(()) => {}
                Err(Failure::OutOfBudget) => return Err(Failure::OutOfBudget),
                Err(Failure::Error(msg)) => {
                    return Err(Failure::Error(format!(
                        "expression '{}' resulted in error: {msg}",
                        e.src
                    )));
                }
            }
        }
        self.run(program, e.static_cost).map_err(|f| match f {
            Failure::Error(msg) => {
                Failure::Error(format!("expression '{}' resulted in error: {msg}", e.src))
            }
            other => other,
        })
    }

    /// Evaluates variable `name` (and the variables it reads) once; an error is
    /// what reading it gives.
    fn variable(&mut self, name: &str) -> Result<(), Failure> {
        if let Some(r) = self.done.get(name) {
            return r.as_ref().map(|_| ()).map_err(Clone::clone);
        }
        let Some((_, e)) = self.variables.iter().find(|(n, _)| n == name) else {
            // Not a variable: the checker reported it; reading it fails at run time.
            return Ok(());
        };
        let quoted = crate::go::quote(name);
        let result = match &e.program {
            Err(c) => Err(Failure::Error(format!(
                "composited variable {quoted} fails to compile: {c}"
            ))),
            Ok(program) => {
                let deps: Vec<String> = if e.uses.all {
                    self.variables
                        .iter()
                        .map(|(n, _)| n.clone())
                        .take_while(|n| n != name)
                        .collect()
                } else {
                    e.uses.names.iter().cloned().collect()
                };
                let mut dep_error = None;
                for d in deps.iter().filter(|d| d.as_str() != name) {
                    if let Err(f) = self.variable(d) {
                        dep_error = Some(f);
                        break;
                    }
                }
                match dep_error {
                    Some(Failure::OutOfBudget) => Err(Failure::OutOfBudget),
                    Some(Failure::Error(m)) => Err(Failure::Error(format!(
                        "composited variable {quoted} fails to evaluate: {m}"
                    ))),
                    None => self.run(program, e.static_cost).map_err(|f| match f {
                        Failure::Error(m) => Failure::Error(format!(
                            "composited variable {quoted} fails to evaluate: {m}"
                        )),
                        other => other,
                    }),
                }
            }
        };
        let out = result.as_ref().map(|_| ()).map_err(Clone::clone);
        if result.is_ok() {
            self.composited = None;
        }
        self.done.insert(name.to_string(), result);
        out
    }

    fn variables_value(&self) -> Cel {
        let m: HashMap<Key, Cel> = self
            .done
            .iter()
            .filter_map(|(k, v)| Some((Key::String(Arc::new(k.clone())), v.as_ref().ok()?.clone())))
            .collect();
        Cel::Map(Map { map: Arc::new(m) })
    }

    /// Runs a program; errors are the bare CEL error text.
    fn run(
        &mut self,
        program: &kube_cel::cel::common::ast::IdedExpr,
        static_cost: u64,
    ) -> Result<Cel, Failure> {
        if self.budget.is_exhausted() {
            return Err(Failure::OutOfBudget);
        }
        let ctx = match self.composited.take() {
            Some(ctx) => ctx,
            None => {
                let mut ctx = self.scope.new_inner_scope();
                ctx.add_variable_from_value("variables", self.variables_value());
                ctx
            }
        };
        let (result, exceeded) = self.budget.meter(static_cost, || ctx.resolve(program));
        self.composited = Some(ctx);
        match exceeded {
            Some(Exceeded::Object) => {
                self.budget = exhausted();
                Err(Failure::OutOfBudget)
            }
            Some(Exceeded::Expression) => Err(Failure::Error(COST_LIMIT_EXCEEDED.to_string())),
            Some(Exceeded::Time) => Err(Failure::Error(
                "operation cancelled: evaluation time limit exceeded".to_string(),
            )),
            None => result.map_err(|e| Failure::Error(cel_go_error(&e))),
        }
    }
}

/// A budget that admits nothing more.
fn exhausted() -> Budget {
    let mut b = Budget::new(Limits {
        per_expression: 0,
        per_object: 0,
        time_per_object: Duration::ZERO,
    });
    b.stopped = true;
    b
}
