//! Compiling one rule: the shape checks of its fields, parsing, type checking
//! against the node's schema in a [`CelEnvironment`], and the static cost estimate.

use std::collections::HashMap;

use kube_cel::cel::common::ast::IdedExpr;

use crate::field::{BadValue, ErrorType};
use crate::model::{PreexistingExpressions, ValidationRule};

use crate::cel::check::field_path::{self, Step};
use crate::cel::check::{Checker, Problem, Ty};
use crate::cel::compile::rewrite::instrument_costed;
use crate::cel::compile::rule_error::{
    FIELD_PATH_INVALID, RuleError, RuleField, SUPPORTED_REASONS,
};
use crate::cel::cost::estimate::estimate;
use crate::cel::cost::sizes::Place;
use crate::cel::environment::CelEnvironment;
use crate::cel::environment::parse_limits;
use crate::cel::library::equality;
use crate::cel::schema::CelSchema;

/// Which environment each expression of a CRD is compiled in: the new one,
/// or the stored one for expressions the update keeps (`RuleEnv`,
/// `MessageExpressionEnv`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RuleEnvs<'p> {
    pub(crate) new: CelEnvironment,
    pub(crate) stored: CelEnvironment,
    pub(crate) preexisting: Option<&'p PreexistingExpressions>,
}

impl<'p> RuleEnvs<'p> {
    /// Every expression in `env`.
    pub(crate) fn uniform(env: CelEnvironment) -> Self {
        RuleEnvs {
            new: env,
            stored: env,
            preexisting: None,
        }
    }

    fn rule(&self, src: &str) -> CelEnvironment {
        match self.preexisting {
            Some(p) if p.rules.contains(src) => self.stored,
            _ => self.new,
        }
    }

    fn message(&self, src: &str) -> CelEnvironment {
        match self.preexisting {
            Some(p) if p.message_expressions.contains(src) => self.stored,
            _ => self.new,
        }
    }
}

/// One compiled rule.
#[derive(Debug)]
pub(in crate::cel) struct CompiledRule {
    pub(in crate::cel) rule: ValidationRule,
    /// `None` for an empty rule (reported at compile time, skipped at run time).
    pub(in crate::cel) program: Option<IdedExpr>,
    /// The compile error, reported again at run time (`rule compile error: ...`).
    pub(in crate::cel) error: Option<String>,
    pub(in crate::cel) message_expression: Option<IdedExpr>,
    pub(in crate::cel) uses_old_self: bool,
    pub(in crate::cel) field_path: Vec<Step>,
    pub(in crate::cel) static_cost: u64,
    pub(in crate::cel) message_static_cost: u64,
    /// Estimated worst-case cost of the rule (0 when it did not compile).
    pub(in crate::cel) max_cost: u64,
    /// Estimated worst-case cost of the compiled `messageExpression`.
    pub(in crate::cel) message_max_cost: Option<u64>,
}

pub(in crate::cel) fn compile_one(
    index: usize,
    rule: &ValidationRule,
    schema: &CelSchema,
    resource_root: bool,
    envs: RuleEnvs<'_>,
    errors: &mut Vec<RuleError>,
) -> CompiledRule {
    let mut push = |field: RuleField, type_: ErrorType, bad_value: BadValue, detail: String| {
        errors.push(RuleError {
            index,
            field,
            type_,
            bad_value,
            detail,
        })
    };
    let rule_value = || BadValue::Str(rule.rule.clone());
    let trimmed_rule = rule.rule.trim();
    let trimmed_msg = rule.message.as_deref().unwrap_or("").trim();
    // Field checks of the CRD validation (`ValidateCustomResourceDefinitionOpenAPISchema`).
    if trimmed_rule.is_empty() {
        push(
            RuleField::Rule,
            ErrorType::Required,
            BadValue::Omit,
            "rule is not specified".into(),
        );
    } else if rule.message.as_deref().is_some_and(|m| !m.is_empty()) && trimmed_msg.is_empty() {
        push(
            RuleField::Message,
            ErrorType::Invalid,
            BadValue::Str(rule.message.clone().unwrap_or_default()),
            "message must be non-empty if specified".into(),
        );
    } else if trimmed_msg.contains('\n') {
        push(
            RuleField::Message,
            ErrorType::Invalid,
            BadValue::Str(rule.message.clone().unwrap_or_default()),
            "message must not contain line breaks".into(),
        );
    } else if trimmed_rule.contains('\n') && trimmed_msg.is_empty() {
        push(
            RuleField::Message,
            ErrorType::Required,
            BadValue::Omit,
            "message must be specified if rule contains line breaks".into(),
        );
    }
    if let Some(me) = &rule.message_expression
        && !me.is_empty()
        && me.trim().is_empty()
    {
        push(
            RuleField::MessageExpression,
            ErrorType::Required,
            BadValue::Omit,
            "messageExpression must be non-empty if specified".into(),
        );
    }
    if let Some(reason) = &rule.reason
        && !SUPPORTED_REASONS.contains(&reason.as_str())
    {
        let supported: Vec<String> = SUPPORTED_REASONS
            .iter()
            .map(|s| crate::go::quote(s))
            .collect();
        push(
            RuleField::Reason,
            ErrorType::NotSupported,
            BadValue::Str(reason.clone()),
            format!("supported values: {}", supported.join(", ")),
        );
    }
    let mut steps = Vec::new();
    if let Some(fp) = &rule.field_path {
        let fp_value = || BadValue::Str(fp.clone());
        if !fp.is_empty() && fp.trim().is_empty() {
            push(
                RuleField::FieldPath,
                ErrorType::Invalid,
                fp_value(),
                "fieldPath must be non-empty if specified".into(),
            );
        }
        if fp.contains('\n') {
            push(
                RuleField::FieldPath,
                ErrorType::Invalid,
                fp_value(),
                "fieldPath must not contain line breaks".into(),
            );
        }
        // Like upstream, any non-empty path must resolve, blank ones included.
        if !fp.is_empty() {
            match field_path::parse(fp, schema) {
                Ok(s) => steps = s,
                Err(_) => push(
                    RuleField::FieldPath,
                    ErrorType::Invalid,
                    fp_value(),
                    FIELD_PATH_INVALID.into(),
                ),
            }
        }
    }

    let self_ty = Ty::of_schema(schema, resource_root);
    let optional_old_self = rule.optional_old_self.unwrap_or(false);
    let old_ty = if optional_old_self {
        Ty::Optional(Box::new(self_ty.clone()))
    } else {
        self_ty.clone()
    };
    let mut compiled = CompiledRule {
        rule: rule.clone(),
        program: None,
        error: None,
        message_expression: None,
        uses_old_self: false,
        field_path: steps,
        static_cost: 0,
        message_static_cost: 0,
        max_cost: 0,
        message_max_cost: None,
    };
    if trimmed_rule.is_empty() {
        return compiled;
    }
    match compile_expr(
        &rule.rule,
        schema,
        resource_root,
        envs.rule(&rule.rule),
        self_ty.clone(),
        old_ty.clone(),
    ) {
        Err(detail) => {
            let detail = format!("compilation failed: {detail}");
            compiled.error = Some(detail.clone());
            push(RuleField::Rule, ErrorType::Invalid, rule_value(), detail);
        }
        Ok(checked) => {
            compiled.uses_old_self = checked.uses_old_self;
            if !matches!(checked.ty, Ty::Bool | Ty::Dyn) {
                let detail = "cel expression must evaluate to a bool".to_string();
                compiled.error = Some(detail.clone());
                push(RuleField::Rule, ErrorType::Invalid, rule_value(), detail);
            } else {
                let mut expr = checked.expr;
                compiled.max_cost = checked.max_cost;
                compiled.static_cost = instrument_costed(&mut expr);
                equality::apply(&mut expr, &checked.typed_equality);
                compiled.program = Some(expr);
            }
        }
    }
    if let Some(flag) = rule.optional_old_self
        && !compiled.uses_old_self
        && compiled.error.is_none()
    {
        push(
            RuleField::OptionalOldSelf,
            ErrorType::Invalid,
            BadValue::Bool(flag),
            "may not be set if oldSelf is not used in rule".into(),
        );
    }
    if let Some(me) = rule
        .message_expression
        .as_deref()
        .filter(|m| !m.trim().is_empty())
    {
        match compile_expr(me, schema, resource_root, envs.message(me), self_ty, old_ty) {
            Err(detail) => push(
                RuleField::MessageExpression,
                ErrorType::Invalid,
                rule_value(),
                format!("messageExpression compilation failed: {detail}"),
            ),
            Ok(Checked { ty, .. }) if !matches!(ty, Ty::String | Ty::Dyn) => push(
                RuleField::MessageExpression,
                ErrorType::Invalid,
                rule_value(),
                "messageExpression must evaluate to a string".into(),
            ),
            Ok(Checked {
                mut expr,
                max_cost,
                typed_equality,
                ..
            }) => {
                // Like the API server, only with a rule that compiled.
                compiled.message_max_cost = compiled.error.is_none().then_some(max_cost);
                compiled.message_static_cost = instrument_costed(&mut expr);
                equality::apply(&mut expr, &typed_equality);
                compiled.message_expression = Some(expr);
            }
        }
    }
    compiled
}

/// One parsed and checked expression.
struct Checked<'a> {
    expr: IdedExpr,
    ty: Ty<'a>,
    /// The `==`/`!=` calls to make typed (applied after the cost rewrites).
    typed_equality: HashMap<u64, String>,
    uses_old_self: bool,
    /// The estimated worst-case cost (cel-go's cost units).
    max_cost: u64,
}

/// Parses, checks and estimates one expression.
fn compile_expr<'a>(
    src: &str,
    schema: &'a CelSchema,
    resource_root: bool,
    env: CelEnvironment,
    self_ty: Ty<'a>,
    old_ty: Ty<'a>,
) -> Result<Checked<'a>, String> {
    parse_limits::check_source(src)?;
    let expr = crate::cel::environment::syntax::parser(env.libraries)
        .parse(src)
        .map_err(|e| parse_limits::render_parse_errors(src, &e))?;
    let mut checker = Checker::new(self_ty, Some(old_ty)).environment(env);
    let ty = checker.check(&expr);
    if !checker.problems.is_empty() {
        return Err(render_problems(src, &checker.problems));
    }
    let uses_old_self = expr.references().has_variable("oldSelf");
    let max_cost = estimate(
        &expr,
        Place::Node(schema, resource_root),
        &checker.types,
        env.release,
    )
    .max;
    let typed_equality = equality::plan(
        &expr,
        &checker.types,
        schema,
        resource_root,
        env.keywords_as_field_names,
    );
    Ok(Checked {
        expr,
        ty,
        typed_equality,
        uses_old_self,
        max_cost,
    })
}

/// The problems as cel-go prints them (`ERROR: <input>:line:col: message` and
/// the source snippet), sorted by position as cel-go sorts its errors.
///
/// A problem is located by the text it names: identifiers as whole words, and
/// the n-th problem naming the same text at its n-th occurrence (an undeclared
/// variable used twice is reported twice).
pub(in crate::cel) fn render_problems(src: &str, problems: &[Problem]) -> String {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<(usize, String)> = problems
        .iter()
        .map(|p| {
            let offset = p.near.as_deref().and_then(|needle| {
                let nth = seen.entry(needle).or_default();
                *nth += 1;
                // Calls and message literals are located at their bracket, as cel-go does.
                let at_bracket = if needle.ends_with(['(', '{']) {
                    needle.len() - 1
                } else {
                    0
                };
                locate(src, needle, *nth - 1).map(|o| o + at_bracket)
            });
            (offset.unwrap_or(0), render_at(src, p, offset))
        })
        .collect();
    out.sort_by_key(|(offset, _)| *offset);
    let msgs: Vec<String> = out.into_iter().map(|(_, m)| m).collect();
    msgs.join("\n")
}

/// The byte offset of the `nth` occurrence of `needle` (or of its last one),
/// as a whole word when it is an identifier.
fn locate(src: &str, needle: &str, nth: usize) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let word = !needle.is_empty() && needle.chars().all(ident);
    let found: Vec<usize> = src
        .match_indices(needle)
        .map(|(i, _)| i)
        .filter(|&i| {
            !word
                || (!src[..i].chars().next_back().is_some_and(ident)
                    && !src[i + needle.len()..].chars().next().is_some_and(ident))
        })
        .collect();
    found.get(nth).or(found.last()).copied()
}

fn render_at(src: &str, p: &Problem, offset: Option<usize>) -> String {
    let located = offset.map(|offset| {
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = src[line_start..offset].chars().count();
        let text = src[line_start..].lines().next().unwrap_or("");
        (line, col, text)
    });
    match located {
        Some((line, col, text)) => format!(
            "ERROR: <input>:{line}:{}: {}\n | {text}\n | {}^",
            col + 1,
            p.message,
            ".".repeat(col)
        ),
        None => format!("ERROR: <input>:1:1: {}", p.message),
    }
}
