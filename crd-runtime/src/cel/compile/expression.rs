//! Standalone expressions: CEL that is not a schema rule, with the variables and
//! functions its host declares (kube-apiserver's admission expressions: `object`,
//! `request`, `params`, `authorizer`, …). Compiled as rules are — parsed, then
//! checked by the same type checker — and reported in cel-go's words.

use std::sync::Arc;

use crate::cel::check::{Checker, Ty};
use crate::cel::compile::rule::render_problems;
use crate::cel::environment::CelEnvironment;
use crate::cel::environment::parse_limits;
use crate::cel::schema::CelSchema;

/// The CEL type of a declared variable or of a declared function's result.
#[derive(Clone, Debug)]
pub enum DeclType {
    /// Checked at run time only (`object`, `params`).
    Dyn,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `string`.
    String,
    /// A list of one element type.
    List(Box<DeclType>),
    /// A map from strings.
    Map(Box<DeclType>),
    /// An object whose fields the schema declares (selecting another is an error).
    Object(Arc<CelSchema>),
    /// A library value reached only through declared functions (`authorizer`).
    Opaque,
}

/// What a standalone expression may refer to beyond the standard library.
#[derive(Clone, Debug, Default)]
pub struct Declarations {
    variables: Vec<(String, DeclType)>,
    functions: Vec<(String, DeclType)>,
}

impl Declarations {
    /// Nothing declared.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a variable; a dotted name (`authorizer.requestResource`) is what
    /// selecting that field of the first variable gives.
    pub fn variable(mut self, name: &str, ty: DeclType) -> Self {
        self.variables.push((name.to_string(), ty));
        self
    }

    /// Declares a function or method by name, with the type it returns.
    pub fn function(mut self, name: &str, result: DeclType) -> Self {
        self.functions.push((name.to_string(), result));
        self
    }
}

fn ty(d: &DeclType) -> Ty<'_> {
    match d {
        DeclType::Dyn => Ty::Dyn,
        DeclType::Bool => Ty::Bool,
        DeclType::Int => Ty::Int,
        DeclType::String => Ty::String,
        DeclType::List(e) => Ty::List(Box::new(ty(e))),
        DeclType::Map(v) => Ty::Map(Box::new(ty(v))),
        DeclType::Object(s) => Ty::Object(s, false),
        DeclType::Opaque => Ty::Opaque,
    }
}

/// Compiles `src` with `decls`: its output type as cel-go names it (`bool`,
/// `string`, `dyn`, `null_type`, …), or the issues cel-go would report
/// (`ERROR: <input>:1:1: undeclared reference to 'x' (in container '')` …).
/// The static cost is not estimated.
pub fn compile_expression(
    src: &str,
    decls: &Declarations,
    env: CelEnvironment,
) -> Result<String, String> {
    let expr = parse_in(src, env.libraries)?;
    let variables = decls
        .variables
        .iter()
        .map(|(n, d)| (n.clone(), ty(d)))
        .collect();
    let functions = decls
        .functions
        .iter()
        .map(|(n, d)| (n.clone(), ty(d)))
        .collect();
    let mut checker = Checker::standalone(variables, functions).environment(env);
    let out = checker.check(&expr);
    if checker.problems.is_empty() {
        Ok(out.name())
    } else {
        Err(render_problems(src, &checker.problems))
    }
}

/// Parses `src` only (syntax errors in cel-go's words): for expressions whose types
/// the checker cannot follow (struct literals of mutating policies).
pub fn parse_expression(src: &str) -> Result<(), String> {
    parse(src).map(|_| ())
}

/// Parses `src` for evaluation: comprehensions metered and `cel.bind` expanded
/// (see [`crate::cel::compile::rewrite`]), with the parser's limits.
pub(crate) fn parse_program(src: &str) -> Result<kube_cel::cel::common::ast::IdedExpr, String> {
    let mut e = parse(src)?;
    crate::cel::compile::rewrite::instrument(&mut e);
    Ok(e)
}

/// Parses with every macro: what compiles was checked in its environment
/// ([`compile_expression`]).
fn parse(src: &str) -> Result<kube_cel::cel::common::ast::IdedExpr, String> {
    parse_in(src, u32::MAX)
}

/// Parses with the macros of the environment of `1.libraries`.
fn parse_in(src: &str, libraries: u32) -> Result<kube_cel::cel::common::ast::IdedExpr, String> {
    parse_limits::check_source(src)?;
    crate::cel::environment::syntax::parser(libraries)
        .parse(src)
        .map_err(|e| parse_limits::render_parse_errors(src, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JSONSchemaProps;

    fn request() -> Arc<CelSchema> {
        let props: JSONSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {"operation": {"type": "string"}}
        }))
        .unwrap();
        CelSchema::new(&props)
    }

    #[test]
    fn declared_variables_and_functions_check() {
        let decls = Declarations::new()
            .variable("object", DeclType::Dyn)
            .variable("request", DeclType::Object(request()))
            .variable("authorizer", DeclType::Opaque)
            .variable("authorizer.requestResource", DeclType::Opaque)
            .function("check", DeclType::Opaque)
            .function("allowed", DeclType::Bool);
        let env = CelEnvironment::NEWEST;
        let ok = |s: &str| compile_expression(s, &decls, env);
        assert_eq!(ok("request.operation == 'CREATE'").as_deref(), Ok("bool"));
        assert_eq!(
            ok("authorizer.requestResource.check('get').allowed()").as_deref(),
            Ok("bool")
        );
        assert_eq!(ok("object.spec").as_deref(), Ok("dyn"));
        assert_eq!(ok("request.operation").as_deref(), Ok("string"));
        assert_eq!(
            ok("self == 1").unwrap_err(),
            "ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self == 1\n | ^"
        );
        assert!(
            ok("request.nope")
                .unwrap_err()
                .contains("undefined field 'nope'")
        );
        assert!(
            ok("1 +")
                .unwrap_err()
                .starts_with("ERROR: <input>:1:4: Syntax error")
        );
        assert_eq!(parse_expression("Object{spec: Object.spec{}}"), Ok(()));
    }
}
