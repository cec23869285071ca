//! One compiled ValidatingAdmissionPolicy and its evaluation for one invocation
//! (`validator.Validate`): match conditions, validations with their messages and
//! reasons, audit annotations.

use kube_cel::cel::Context;
use kube_cel::cel::objects::Value as Cel;
use serde_json::Value;

use super::activation::{Needs, conditions_scope};
use super::conditions::{MatchConditions, Matched};
use super::evaluator::{Evaluator, Failure, MATCH_CONDITIONS_BUDGET, RUNTIME_BUDGET};
use super::expression::{Expression, Returns, Scope};
use crate::cel::CelEnvironment;

/// `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

#[derive(Debug)]
pub(super) struct Validation {
    pub(super) expression: Expression,
    message: String,
    message_expression: Option<Expression>,
    reason: Option<String>,
}

#[derive(Debug)]
pub(super) struct Validator {
    pub(super) fail: bool,
    pub(super) variable_names: Vec<String>,
    variables: Vec<(String, Expression)>,
    conditions: MatchConditions,
    pub(super) validations: Vec<Validation>,
    audit: Vec<(String, Expression)>,
    /// The activation values its expressions name.
    pub(super) needs: Needs,
}

/// One decision of a validation (`PolicyDecision`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Decision {
    /// Deny (a failure, or an error under `failurePolicy: Fail`).
    pub(super) deny: bool,
    pub(super) message: String,
    /// Empty for errors (reported as `Invalid`).
    pub(super) reason: String,
    /// The index of the validation (0 for whole-policy errors).
    pub(super) index: usize,
}

/// What an audit annotation gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Annotation {
    Publish(String, String),
    /// An error that denies the request.
    Error(String),
}

/// The decisions and annotations of one invocation.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub(super) decisions: Vec<Decision>,
    pub(super) annotations: Vec<Annotation>,
}

fn str_field<'a>(v: &'a Value, f: &str) -> &'a str {
    v.get(f).and_then(Value::as_str).unwrap_or("")
}

fn list<'a>(spec: &'a Value, f: &str) -> &'a [Value] {
    spec.get(f)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The activation values `expressions` name.
pub(super) fn needs_of<'e>(expressions: impl Iterator<Item = &'e Expression>) -> Needs {
    expressions.fold(Needs::default(), |n, e| n.union(e.uses.activation))
}

/// The activation values a policy's variables and match conditions name.
pub(super) fn expressions_needs(
    variables: &[(String, Expression)],
    conditions: &MatchConditions,
) -> Needs {
    needs_of(variables.iter().map(|(_, e)| e)).union(conditions.needs())
}

/// Compiles the composited `variables` of a policy spec: each sees those before it.
pub(super) fn compile_variables(
    spec: &Value,
    params: bool,
    env: CelEnvironment,
) -> (Vec<(String, Expression)>, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for v in list(spec, "variables") {
        let name = str_field(v, "name").to_string();
        let scope = Scope::policy(params, &names, env);
        out.push((
            name.clone(),
            Expression::compile(str_field(v, "expression"), Returns::Any, scope),
        ));
        names.push(name);
    }
    (out, names)
}

impl Validator {
    pub(super) fn compile(policy: &Value, fail: bool, env: CelEnvironment) -> Validator {
        let spec = policy.get("spec").unwrap_or(&Value::Null);
        let params = spec.get("paramKind").is_some_and(Value::is_object);
        let (variables, names) = compile_variables(spec, params, env);
        let scope = Scope::policy(params, &names, env);
        let message_scope = Scope {
            authorizer: false,
            ..scope
        };
        let validations: Vec<Validation> = list(spec, "validations")
            .iter()
            .map(|v| Validation {
                expression: Expression::compile(str_field(v, "expression"), Returns::Bool, scope),
                message: str_field(v, "message").to_string(),
                message_expression: Some(str_field(v, "messageExpression"))
                    .filter(|m| !m.is_empty())
                    .map(|m| Expression::compile(m, Returns::String, message_scope)),
                reason: v.get("reason").and_then(Value::as_str).map(String::from),
            })
            .collect();
        let audit: Vec<(String, Expression)> = list(spec, "auditAnnotations")
            .iter()
            .map(|a| {
                (
                    str_field(a, "key").to_string(),
                    Expression::compile(
                        str_field(a, "valueExpression"),
                        Returns::StringOrNull,
                        scope,
                    ),
                )
            })
            .collect();
        let conditions = MatchConditions::compile_in(list(spec, "matchConditions"), scope);
        let needs = expressions_needs(&variables, &conditions)
            .union(needs_of(validations.iter().flat_map(|v| {
                std::iter::once(&v.expression).chain(&v.message_expression)
            })))
            .union(needs_of(audit.iter().map(|(_, e)| e)));
        Validator {
            fail,
            variable_names: names.clone(),
            conditions,
            variables,
            validations,
            audit,
            needs,
        }
    }

    /// The expressions type checking looks at, with their field paths.
    pub(super) fn checked_expressions(&self) -> Vec<(String, &Expression)> {
        let mut out = Vec::new();
        for (i, v) in self.validations.iter().enumerate() {
            out.push((format!("spec.validations[{i}].expression"), &v.expression));
            if let Some(m) = &v.message_expression {
                out.push((format!("spec.validations[{i}].messageExpression"), m));
            }
        }
        out
    }

    fn error(&self, message: String) -> Outcome {
        Outcome {
            decisions: vec![Decision {
                deny: self.fail,
                message,
                reason: String::new(),
                index: 0,
            }],
            annotations: Vec::new(),
        }
    }

    /// `Validate` for one invocation; `scope` holds its activation's values.
    pub(super) fn validate(&self, scope: &Context) -> Outcome {
        if !self.conditions.is_empty() {
            let conditions = conditions_scope(scope);
            let mut ev = Evaluator::new(&conditions, &self.variables, MATCH_CONDITIONS_BUDGET);
            match self.conditions.evaluate_with(&mut ev) {
                Matched::Yes => {}
                Matched::No(_) => return Outcome::default(),
                Matched::Error(e) => {
                    // Ignore: the policy does not apply.
                    return if self.fail {
                        self.error(e)
                    } else {
                        Outcome::default()
                    };
                }
            }
        }
        let mut ev = Evaluator::new(scope, &self.variables, RUNTIME_BUDGET);
        let mut results = Vec::with_capacity(self.validations.len());
        for v in &self.validations {
            match ev.eval(&v.expression) {
                Err(Failure::OutOfBudget) => return self.error(Failure::OutOfBudget.message()),
                r => results.push(r),
            }
        }
        // Message expressions run after all validations, on the remaining budget.
        let mut messages = Vec::with_capacity(self.validations.len());
        let mut message_budget_out = false;
        for v in &self.validations {
            let m = match &v.message_expression {
                Some(e) if !message_budget_out => match ev.eval(e) {
                    Err(Failure::OutOfBudget) => {
                        message_budget_out = true;
                        None
                    }
                    r => r.ok(),
                },
                _ => None,
            };
            messages.push(m);
        }
        let mut decisions = Vec::with_capacity(results.len());
        for (i, ((v, result), message)) in self
            .validations
            .iter()
            .zip(results)
            .zip(messages)
            .enumerate()
        {
            let decision = match result {
                Err(f) => Decision {
                    deny: self.fail,
                    message: f.message(),
                    reason: String::new(),
                    index: i,
                },
                Ok(_) if message_budget_out => Decision {
                    deny: self.fail,
                    message: format!(
                        "failed messageExpression: {}",
                        Failure::OutOfBudget.message()
                    ),
                    reason: String::new(),
                    index: i,
                },
                Ok(Cel::Bool(true)) => continue,
                Ok(_) => Decision {
                    deny: true,
                    message: failure_message(v, message),
                    reason: v.reason.clone().unwrap_or_else(|| "Invalid".into()),
                    index: i,
                },
            };
            decisions.push(decision);
        }
        // Audit annotations get a budget of their own.
        ev.reset_budget(RUNTIME_BUDGET);
        let mut annotations = Vec::new();
        for (key, e) in &self.audit {
            let a = match ev.eval(e) {
                Err(Failure::OutOfBudget) => return self.error(Failure::OutOfBudget.message()),
                Err(f) if self.fail => Annotation::Error(f.message()),
                Err(_) => continue,
                Ok(Cel::String(s)) if s.trim().is_empty() => continue,
                Ok(Cel::String(s)) => Annotation::Publish(key.clone(), s.trim().to_string()),
                Ok(Cel::Null) => continue,
                Ok(other) => Annotation::Error(format!(
                    "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                    e.src,
                    go_type_name(&other)
                )),
            };
            annotations.push(a);
        }
        Outcome {
            decisions,
            annotations,
        }
    }
}

/// The message of a failed validation: the message expression's string (trimmed;
/// not empty, one line, at most 5 KiB), else `message`, else `failed expression: X`.
fn failure_message(v: &Validation, evaluated: Option<Cel>) -> String {
    if let Some(Cel::String(s)) = evaluated {
        let t = s.trim();
        if !t.is_empty() && t.len() <= MAX_MESSAGE_BYTES && !t.contains('\n') {
            return t.to_string();
        }
    }
    let m = v.message.trim();
    if !m.is_empty() {
        return m.to_string();
    }
    format!("failed expression: {}", v.expression.src.trim())
}

/// A CEL value's type as cel-go prints it.
pub(super) fn go_type_name(v: &Cel) -> &'static str {
    match v {
        Cel::Int(_) => "int",
        Cel::UInt(_) => "uint",
        Cel::Float(_) => "double",
        Cel::String(_) => "string",
        Cel::Bytes(_) => "bytes",
        Cel::Bool(_) => "bool",
        Cel::List(_) => "list",
        Cel::Map(_) => "map",
        Cel::Null => "null_type",
        Cel::Timestamp(_) => "google.protobuf.Timestamp",
        Cel::Duration(_) => "google.protobuf.Duration",
        _ => "dyn",
    }
}
