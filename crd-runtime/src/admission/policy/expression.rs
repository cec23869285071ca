//! One admission expression, compiled as kube-apiserver's `CompileCELExpression`
//! compiles it: type-checked with the declarations of its place (see
//! [`super::declarations`]) and its output type checked against what the place
//! needs; then parsed for evaluation (comprehensions metered, object literals
//! rewritten into maps).

use std::collections::BTreeSet;
use std::sync::Arc;

use kube_cel::cel::common::ast::{Expr, IdedExpr};

use super::activation::Needs;
use super::declarations::typed_declarations;
use super::literal::{maps_for_literals, type_name_errors};
use crate::cel::{
    CelEnvironment, CelSchema, compile_expression, for_each_child, node_count, parse_program,
};

/// The type an expression must evaluate to (its accessor's `ReturnTypes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Returns {
    /// Validations and match conditions.
    Bool,
    /// Message expressions.
    String,
    /// Audit annotation values.
    StringOrNull,
    /// Variables.
    Any,
    /// Mutations: object literals the checker cannot type; parsed only, their
    /// result checked when applied.
    Unchecked,
}

/// Where an expression is compiled.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scope<'a> {
    /// The policy has a `paramKind`.
    pub(super) params: bool,
    /// `authorizer` is declared (not in message expressions).
    pub(super) authorizer: bool,
    /// The variables declared before this expression.
    pub(super) variables: &'a [String],
    /// `variables` is declared (policies; not webhooks' match conditions).
    pub(super) composited: bool,
    /// The CEL environment of the Kubernetes release.
    pub(super) env: CelEnvironment,
    /// The schema typing `object`/`oldObject` (type checking only).
    pub(super) object: Option<&'a Arc<CelSchema>>,
}

impl<'a> Scope<'a> {
    /// The scope of a policy's expressions (variables, validations, mutations):
    /// `authorizer` and the composited `variables` declared so far.
    pub(super) fn policy(params: bool, variables: &'a [String], env: CelEnvironment) -> Self {
        Scope {
            params,
            authorizer: true,
            variables,
            composited: true,
            env,
            object: None,
        }
    }
}

/// Which composited variables an expression reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Uses {
    /// `variables.NAME` selections.
    pub(super) names: BTreeSet<String>,
    /// `variables` used otherwise (`variables['x']`): every variable is needed.
    pub(super) all: bool,
    /// The activation values it names.
    pub(super) activation: Needs,
}

/// A compiled expression.
#[derive(Debug)]
pub(super) struct Expression {
    /// The source, as written (messages quote it untrimmed, as the server does).
    pub(super) src: String,
    /// The program, or the compile error (`compilation failed: ERROR: …`, `must
    /// evaluate to bool but got string`).
    pub(super) program: Result<IdedExpr, String>,
    /// Nodes evaluated at least once (charged up front).
    pub(super) static_cost: u64,
    /// The variables it reads.
    pub(super) uses: Uses,
    /// What it must evaluate to.
    pub(super) returns: Returns,
    /// Object literals named against their field path (mutations; reported as
    /// `type mismatch: …` when the expression is used).
    pub(super) type_names: Option<String>,
}

impl Expression {
    /// Compiles `src` for `returns` in `scope`.
    pub(super) fn compile(src: &str, returns: Returns, scope: Scope) -> Expression {
        let mut type_names = None;
        let program = check(src, returns, scope).and_then(|()| {
            let mut e = parse_program(src).map_err(|e| format!("compilation failed: {e}"))?;
            if returns == Returns::Unchecked {
                type_names = type_name_errors(&e);
            }
            maps_for_literals(&mut e);
            Ok(e)
        });
        let (static_cost, uses) = match &program {
            Ok(p) => {
                let mut uses = Uses::default();
                collect_uses(p, &mut uses);
                (node_count(p), uses)
            }
            Err(_) => (0, Uses::default()),
        };
        Expression {
            src: src.to_string(),
            program,
            static_cost,
            uses,
            returns,
            type_names,
        }
    }
}

/// Type-checks `src` (the compile error kube-apiserver reports, if any).
pub(super) fn check(src: &str, returns: Returns, scope: Scope) -> Result<(), String> {
    if returns == Returns::Unchecked {
        return Ok(());
    }
    let decls = typed_declarations(
        scope.params,
        scope.authorizer,
        scope.composited.then_some(scope.variables),
        scope.object,
    );
    let got = compile_expression(src, &decls, scope.env)
        .map_err(|issues| format!("compilation failed: {issues}"))?;
    let bad = match returns {
        Returns::Bool => got != "bool",
        Returns::String => got != "string",
        Returns::StringOrNull => !matches!(got.as_str(), "string" | "null_type"),
        Returns::Any | Returns::Unchecked => false,
    };
    if !bad {
        return Ok(());
    }
    Err(match returns {
        Returns::StringOrNull => {
            format!("must evaluate to one of [string null_type] but got {got}")
        }
        Returns::String => format!("must evaluate to string but got {got}"),
        _ => format!("must evaluate to bool but got {got}"),
    })
}

fn collect_uses(e: &IdedExpr, uses: &mut Uses) {
    match &e.expr {
        Expr::Select(s) if matches!(&s.operand.expr, Expr::Ident(n) if n == "variables") => {
            uses.names.insert(s.field.clone());
        }
        Expr::Ident(n) if n == "variables" => uses.all = true,
        Expr::Ident(n) => uses.activation = uses.activation.union(Needs::of_name(n)),
        _ => for_each_child(e, &mut |c| collect_uses(c, uses)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(vars: &[String]) -> Scope<'_> {
        Scope::policy(false, vars, CelEnvironment::NEWEST)
    }

    #[test]
    fn output_types_are_checked() {
        let e = Expression::compile("object.metadata.name", Returns::Bool, scope(&[]));
        assert_eq!(e.program.unwrap_err(), "must evaluate to bool but got dyn");
        let e = Expression::compile("request.name", Returns::Bool, scope(&[]));
        assert_eq!(
            e.program.unwrap_err(),
            "must evaluate to bool but got string"
        );
        let e = Expression::compile("1", Returns::StringOrNull, scope(&[]));
        assert_eq!(
            e.program.unwrap_err(),
            "must evaluate to one of [string null_type] but got int"
        );
        let e = Expression::compile("params.x", Returns::Any, scope(&[]));
        assert!(e.program.unwrap_err().starts_with(
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'"
        ));
    }

    #[test]
    fn variable_uses_are_collected() {
        let vars = ["a".to_string(), "b".to_string()];
        let e = Expression::compile(
            "variables.a > 1 && variables.b < 3",
            Returns::Bool,
            scope(&vars),
        );
        assert!(e.program.is_ok());
        assert_eq!(e.uses.names.len(), 2);
        assert!(!e.uses.all);
        let e = Expression::compile("[variables][0].a", Returns::Any, scope(&vars));
        assert!(e.program.is_ok());
        assert!(e.uses.all);
    }

    #[test]
    fn activation_values_named_are_collected() {
        let e = Expression::compile(
            "request.name == object.metadata.name && has(oldObject.spec)",
            Returns::Bool,
            scope(&[]),
        );
        let n = e.uses.activation;
        assert!(n.has(Needs::REQUEST) && n.has(Needs::OBJECT) && n.has(Needs::OLD_OBJECT));
        assert!(!n.has(Needs::PARAMS) && !n.has(Needs::NAMESPACE_OBJECT));
        assert!(!n.has(Needs::AUTHORIZER));
        let e = Expression::compile(
            "authorizer.group('').resource('pods').check('get').allowed() && namespaceObject == null",
            Returns::Bool,
            scope(&[]),
        );
        let n = e.uses.activation;
        assert!(n.has(Needs::AUTHORIZER) && n.has(Needs::NAMESPACE_OBJECT));
        assert!(!n.has(Needs::OBJECT));
    }
}
