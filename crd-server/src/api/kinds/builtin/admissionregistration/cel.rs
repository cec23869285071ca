//! Admission CEL (`k8s.io/apiserver/pkg/admission/plugin/cel`): expressions compiled
//! with the variables kube-apiserver declares for them — `object`, `oldObject`
//! (dynamic), `request` (`kubernetes.AdmissionRequest`), `namespaceObject`
//! (`kubernetes.Namespace`), `params` when the policy has a `paramKind`,
//! `authorizer` and `authorizer.requestResource` with the authorizer library, and
//! `variables` when the policy composes variables — and checked against the type
//! each field needs. Errors read `compilation failed: ERROR: <input>:…` as the
//! server's do. The declarations are the policy engine's
//! ([`admission_declarations`]), so what is stored compiles as it is evaluated.

use crd_runtime::admission::policy::admission_declarations;
use crd_runtime::cel::{CelEnvironment, compile_expression};
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};

use crate::api::kinds::builtin::admissionregistration::Scope;

/// The type an expression must evaluate to (its accessor's `ReturnTypes`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Expr {
    /// Validations and match conditions.
    Bool,
    /// Message expressions.
    String,
    /// Audit annotation values.
    StringOrNull,
    /// Variables: any type.
    Any,
}

/// Compiles `expression` as the server does for `path`, pushing its error.
pub fn compile(expression: &str, want: Expr, scope: Scope, path: &Path, errs: &mut ErrorList) {
    // New expressions at the compatibility version, kept ones as stored.
    let env = if scope.stored.is_some_and(|s| s.contains(expression)) {
        CelEnvironment::stored_for_kube(scope.version)
    } else {
        CelEnvironment::for_kube(scope.version)
    };
    let invalid = |detail: String| {
        FieldError::invalid(path.clone(), BadValue::Str(expression.into()), detail)
    };
    let decls = admission_declarations(scope.params, scope.authorizer, scope.variables);
    let got = match compile_expression(expression, &decls, env) {
        Ok(t) => t,
        Err(issues) => {
            errs.push(invalid(format!("compilation failed: {issues}")));
            return;
        }
    };
    let detail = match want {
        Expr::Any => None,
        Expr::Bool if got != "bool" => Some(format!("must evaluate to bool but got {got}")),
        Expr::String if got != "string" => Some(format!("must evaluate to string but got {got}")),
        Expr::StringOrNull if got != "string" && got != "null_type" => Some(format!(
            "must evaluate to one of [string null_type] but got {got}"
        )),
        _ => None,
    };
    if let Some(detail) = detail {
        errs.push(invalid(detail));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_runtime::KubeVersion;

    fn scope(params: bool) -> Scope<'static> {
        Scope {
            params,
            authorizer: true,
            variables: None,
            version: KubeVersion::NEWEST,
            stored: None,
        }
    }

    fn errors(expr: &str, want: Expr, s: Scope) -> Vec<String> {
        let mut errs = ErrorList::new();
        compile(expr, want, s, &Path::new("expression"), &mut errs);
        errs.strings()
    }

    #[test]
    fn admission_variables_are_declared() {
        for ok in [
            "request.operation == 'CREATE' && has(object.metadata)",
            "namespaceObject.metadata.labels['env'] == 'prod'",
            "authorizer.group('apps').resource('deployments').check('create').allowed()",
            "authorizer.requestResource.check('get').reason() != ''",
            "request.userInfo.groups.exists(g, g == 'system:masters')",
        ] {
            assert_eq!(
                errors(ok, Expr::Bool, scope(false)),
                Vec::<String>::new(),
                "{ok}"
            );
        }
        assert_eq!(
            errors("params.max > 1", Expr::Bool, scope(false)),
            [
                "expression: Invalid value: \"params.max > 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^"
            ]
        );
        assert!(errors("params.max > 1", Expr::Bool, scope(true)).is_empty());
        assert_eq!(
            errors("request.name", Expr::Bool, scope(false)),
            ["expression: Invalid value: \"request.name\": must evaluate to bool but got string"]
        );
        assert_eq!(
            errors("1", Expr::StringOrNull, scope(false)),
            [
                "expression: Invalid value: \"1\": must evaluate to one of [string null_type] but got int"
            ]
        );
        let names = ["replicas".to_string()];
        let with_vars = Scope {
            variables: Some(&names),
            ..scope(false)
        };
        assert!(errors("variables.replicas > 1", Expr::Bool, with_vars).is_empty());
        assert!(
            errors("variables.other > 1", Expr::Bool, with_vars)[0]
                .contains("undefined field 'other'")
        );
    }
}
