//! The rules of one schema node: compiled once ([`crate::cel::compile::rule`]), evaluated per value.

use std::sync::Arc;

use kube_cel::cel::objects::{OptionalValue, Value};
use kube_cel::cel::{Context, ExecutionError};
use serde_json::Value as Json;

use crate::field::{BadValue, FieldError, Path};
use crate::model::{JSONSchemaProps, ValidationRule};

use crate::cel::check::field_path;
use crate::cel::compile::rule::{CompiledRule, RuleEnvs, compile_one};
use crate::cel::compile::rule_error::RuleError;
use crate::cel::cost::budget::{Budget, Exceeded};
use crate::cel::environment::CelEnvironment;
use crate::cel::eval::context::with_root;
use crate::cel::schema::CelSchema;
use crate::cel::schema::value::to_cel;

/// The compiled `x-kubernetes-validations` of one schema node.
#[derive(Debug)]
pub struct CompiledRules {
    schema: Arc<CelSchema>,
    resource_root: bool,
    rules: Vec<CompiledRule>,
    /// Failures print values, not the type (Kubernetes 1.35 and later).
    prints_values: bool,
}

impl CompiledRules {
    /// Compiles the node's own `x-kubernetes-validations`. `resource_root`: the
    /// node is the root of a resource (embedded resources are detected from the
    /// schema). Every problem is returned; rules with problems in `rule` report
    /// them again when evaluated, other problems do not stop evaluation.
    pub fn compile(schema: &JSONSchemaProps, resource_root: bool) -> (Self, Vec<RuleError>) {
        let rules = schema.x_kubernetes_validations.as_deref().unwrap_or(&[]);
        Self::for_node(CelSchema::new(schema), rules, resource_root)
    }

    /// Compiles `rules` for the node `schema` (its own rules, or the rules of one
    /// of its `allOf` branches, which apply to the node itself).
    pub fn for_node(
        schema: Arc<CelSchema>,
        rules: &[ValidationRule],
        resource_root: bool,
    ) -> (Self, Vec<RuleError>) {
        Self::for_node_in(schema, rules, resource_root, CelEnvironment::NEWEST)
    }

    /// [`CompiledRules::for_node`] in the environment `env`.
    pub fn for_node_in(
        schema: Arc<CelSchema>,
        rules: &[ValidationRule],
        resource_root: bool,
        env: CelEnvironment,
    ) -> (Self, Vec<RuleError>) {
        Self::for_node_with(schema, rules, resource_root, RuleEnvs::uniform(env))
    }

    /// [`CompiledRules::for_node`] with each expression in the environment
    /// `envs` picks for it.
    pub(crate) fn for_node_with(
        schema: Arc<CelSchema>,
        rules: &[ValidationRule],
        resource_root: bool,
        envs: RuleEnvs<'_>,
    ) -> (Self, Vec<RuleError>) {
        let mut errors = Vec::new();
        let compiled = rules
            .iter()
            .enumerate()
            .map(|(i, r)| compile_one(i, r, &schema, resource_root, envs, &mut errors))
            .collect();
        (
            CompiledRules {
                schema,
                resource_root,
                rules: compiled,
                prints_values: envs.new.prints_values,
            },
            errors,
        )
    }

    /// Whether the node has no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Index and source of every successfully compiled transition rule.
    pub fn transition_rules(&self) -> impl Iterator<Item = (usize, &str)> {
        self.rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.uses_old_self && r.error.is_none())
            .map(|(i, r)| (i, r.rule.rule.as_str()))
    }

    /// For each rule: its index, estimated worst-case cost, and the estimated
    /// cost of its compiled `messageExpression`.
    pub(crate) fn estimated_costs(&self) -> impl Iterator<Item = (usize, u64, Option<u64>)> {
        self.rules
            .iter()
            .enumerate()
            .map(|(i, r)| (i, r.max_cost, r.message_max_cost))
    }

    /// How often the node can occur in one request if nothing above it bounds it.
    pub(crate) fn max_cardinality(&self) -> u64 {
        crate::cel::cost::sizes::max_cardinality(&self.schema, self.resource_root)
    }

    /// Whether any rule is a transition rule (uses `oldSelf`).
    pub fn uses_old_self(&self) -> bool {
        self.rules.iter().any(|r| r.uses_old_self)
    }

    /// The node's schema type as the API server prints it in errors.
    fn type_value(&self) -> BadValue {
        BadValue::Str(self.schema.type_str().to_string())
    }

    /// Evaluates the rules with `self` = `value` (and `oldSelf` = `old` for
    /// transition rules) and returns the failures, reported at `path` (adjusted
    /// by each rule's `fieldPath`). A `null` value is not validated. With
    /// `ratcheted` (the value is unchanged by an update), failures of rules that do
    /// not use `oldSelf` are dropped, as the API server turns them into warnings.
    pub fn evaluate(
        &self,
        value: &Json,
        old: Option<&Json>,
        path: &Path,
        budget: &mut Budget,
    ) -> Vec<FieldError> {
        self.evaluate_ratcheted(value, old, false, path, budget)
    }

    /// [`CompiledRules::evaluate`], with failures of a `ratcheted` value dropped.
    pub fn evaluate_ratcheted(
        &self,
        value: &Json,
        old: Option<&Json>,
        ratcheted: bool,
        path: &Path,
        budget: &mut Budget,
    ) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if value.is_null() || self.rules.is_empty() || budget.stopped {
            return errs;
        }
        let old = old.filter(|o| !o.is_null());
        if budget.used_up() {
            errs.push(self.out_of_budget(path));
            budget.stopped = true;
            return errs;
        }
        let this = to_cel(value, &self.schema, self.resource_root);
        let old_val = old.map(|o| to_cel(o, &self.schema, self.resource_root));
        with_root(|root| {
            let mut ctx = root.new_inner_scope();
            ctx.add_variable_from_value("self", this.clone());
            // cel converts a variable deeply when it is added: the scope of
            // `optionalOldSelf` rules is only filled when the node has such a rule.
            let mut opt_ctx = root.new_inner_scope();
            if self
                .rules
                .iter()
                .any(|r| r.rule.optional_old_self.unwrap_or(false))
            {
                opt_ctx.add_variable_from_value("self", this.clone());
                opt_ctx.add_variable_from_value(
                    "oldSelf",
                    Value::Opaque(Arc::new(match &old_val {
                        Some(v) => OptionalValue::of(v.clone()),
                        None => OptionalValue::none(),
                    })),
                );
            }
            if let Some(v) = &old_val {
                ctx.add_variable_from_value("oldSelf", v.clone());
            }
            for rule in &self.rules {
                let go_on = self.evaluate_one(
                    rule,
                    value,
                    (old.is_some(), ratcheted),
                    &ctx,
                    &opt_ctx,
                    path,
                    budget,
                    &mut errs,
                );
                if !go_on {
                    budget.stopped = true;
                    break;
                }
            }
        });
        errs
    }

    fn out_of_budget(&self, path: &Path) -> FieldError {
        FieldError::invalid(
            path.clone(),
            self.type_value(),
            "validation failed due to running out of cost budget, no further validation rules will be run",
        )
    }

    /// Evaluates one rule; `false` means stop evaluating the object.
    #[allow(clippy::too_many_arguments)]
    fn evaluate_one(
        &self,
        rule: &CompiledRule,
        value: &Json,
        (has_old, ratcheted): (bool, bool),
        ctx: &Context<'_>,
        opt_ctx: &Context<'_>,
        path: &Path,
        budget: &mut Budget,
        errs: &mut Vec<FieldError>,
    ) -> bool {
        if let Some(e) = &rule.error {
            errs.push(FieldError::invalid(
                path.clone(),
                self.type_value(),
                format!("rule compile error: {e}"),
            ));
            return true;
        }
        let Some(program) = &rule.program else {
            return true;
        };
        let optional_old_self = rule.rule.optional_old_self.unwrap_or(false);
        if rule.uses_old_self && !has_old && !optional_old_self {
            return true;
        }
        let ctx = if optional_old_self { opt_ctx } else { ctx };
        let (result, exceeded) = budget.meter(rule.static_cost, || ctx.resolve(program));
        // Built only for an error: most evaluations pass.
        let rule_text = || rule_error_string(&rule.rule);
        match exceeded {
            Some(Exceeded::Object) => {
                errs.push(self.out_of_budget(path));
                return false;
            }
            Some(Exceeded::Expression) | Some(Exceeded::Time) => {
                let what = if exceeded == Some(Exceeded::Time) {
                    "operation cancelled: evaluation time limit exceeded"
                } else {
                    crate::cel::cost::budget::COST_LIMIT_EXCEEDED
                };
                errs.push(FieldError::invalid(
                    path.clone(),
                    self.type_value(),
                    format!("'{what}': no further validation rules will be run due to call cost exceeds limit for rule: {}", rule_text()),
                ));
                return false;
            }
            None => {}
        }
        match result {
            Ok(Value::Bool(true)) => return true,
            Ok(Value::Bool(false)) => {}
            Ok(other) => {
                errs.push(FieldError::invalid(
                    path.clone(),
                    self.type_value(),
                    format!(
                        "rule did not evaluate to a bool ({}) evaluating rule: {}",
                        other.type_of(),
                        rule_text()
                    ),
                ));
                return true;
            }
            Err(e) => {
                let msg = cel_go_error(&e);
                let detail = if msg.starts_with("no such overload") {
                    format!(
                        "'{msg}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        rule_text()
                    )
                } else {
                    format!("{msg} evaluating rule: {}", rule_text())
                };
                errs.push(FieldError::invalid(path.clone(), self.type_value(), detail));
                return true;
            }
        }

        // The rule evaluated to false.
        let at = field_path::append(path, &rule.field_path);
        let mut detail = None;
        if let Some(msg_expr) = &rule.message_expression {
            let (result, exceeded) =
                budget.meter(rule.message_static_cost, || ctx.resolve(msg_expr));
            if exceeded.is_some() {
                let src = rule.rule.message_expression.as_deref().unwrap_or("");
                let why = if exceeded == Some(Exceeded::Object) {
                    "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".to_string()
                } else {
                    format!(
                        "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                        crate::go::quote(src)
                    )
                };
                if !ratcheted || rule.uses_old_self {
                    errs.push(FieldError::invalid(at, self.type_value(), why));
                }
                return false;
            }
            // Failed, non-string, empty, multi-line or over-long messages fall
            // back to the rule's message, as the API server does.
            if let Ok(Value::String(s)) = result {
                let t = s.trim();
                if !t.is_empty() && t.len() <= 5 * 1024 && !t.contains('\n') {
                    detail = Some(t.to_string());
                }
            }
        }
        let detail = detail.unwrap_or_else(|| rule_message_or_default(&rule.rule));
        // A failure on an unchanged value is only a warning (ratcheting), unless
        // the rule compares with `oldSelf`.
        if !ratcheted || rule.uses_old_self {
            errs.push(self.failure(at, value, detail, rule.rule.reason.as_deref()));
        }
        true
    }

    /// The error for a failed rule (`fieldErrorForReason`). Up to Kubernetes 1.34,
    /// scalars print their value and objects and arrays their type
    /// (`spec: Invalid value: "object": ...`); from 1.35, nodes typed `object` or
    /// `array` print no value (`spec: Invalid value: ...`).
    fn failure(&self, at: Path, value: &Json, detail: String, reason: Option<&str>) -> FieldError {
        let bad = if self.prints_values {
            match self.schema.type_str() {
                "object" | "array" => BadValue::Omit,
                _ => BadValue::from_json(value),
            }
        } else {
            match value {
                Json::Object(_) | Json::Array(_) => self.type_value(),
                v => BadValue::from_json(v),
            }
        };
        match reason {
            Some("FieldValueForbidden") => FieldError::forbidden(at, detail),
            Some("FieldValueRequired") => FieldError::required(at, detail),
            Some("FieldValueDuplicate") => FieldError::duplicate(at, bad),
            _ => FieldError::invalid(at, bad, detail),
        }
    }
}

/// `ruleErrorString`: the message if there is one, else the rule.
fn rule_error_string(r: &ValidationRule) -> String {
    match r.message.as_deref() {
        Some(m) if !m.is_empty() => m.trim().to_string(),
        _ => r.rule.trim().to_string(),
    }
}

/// `ruleMessageOrDefault`: the message, or `failed rule: <rule>`.
fn rule_message_or_default(r: &ValidationRule) -> String {
    match r.message.as_deref() {
        Some(m) if !m.is_empty() => m.trim().to_string(),
        _ => format!("failed rule: {}", rule_error_string(r)),
    }
}

/// An evaluation error in cel-go's words (the API server matches on them).
pub(crate) fn cel_go_error(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::NoSuchOverload
        | ExecutionError::UnsupportedBinaryOperator(..)
        | ExecutionError::UnsupportedUnaryOperator(..)
        | ExecutionError::ValuesNotComparable(..)
        | ExecutionError::UnexpectedType { .. }
        | ExecutionError::UnsupportedTargetType { .. }
        | ExecutionError::NotSupportedAsMethod { .. } => "no such overload".into(),
        ExecutionError::DivisionByZero(_) => "division by zero".into(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".into(),
        ExecutionError::Overflow(..) => "integer overflow".into(),
        ExecutionError::IndexOutOfBounds(i) => format!("index out of bounds: {}", value_text(i)),
        // The `cel` crate's int/uint/double conversions word a bad string with
        // Rust's parse error and an unsupported value with its Debug text.
        ExecutionError::FunctionError { function, message }
            if matches!(function.as_str(), "int" | "uint" | "double") =>
        {
            if message.starts_with("string parse error") {
                format!("type conversion error from 'string' to '{function}'")
            } else if message.starts_with("cannot convert") {
                "no such overload".into()
            } else {
                message.clone()
            }
        }
        ExecutionError::FunctionError { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::String(s) => s.to_string(),
        other => other.type_of().to_string(),
    }
}
