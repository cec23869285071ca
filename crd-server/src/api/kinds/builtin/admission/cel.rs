//! Admission CEL (`k8s.io/apiserver/pkg/admission/plugin/cel`): expressions compiled
//! with the variables kube-apiserver declares for them — `object`, `oldObject`
//! (dynamic), `request` (`kubernetes.AdmissionRequest`), `namespaceObject`
//! (`kubernetes.Namespace`), `params` when the policy has a `paramKind`,
//! `authorizer` and `authorizer.requestResource` with the authorizer library, and
//! `variables` when the policy composes variables — and checked against the type
//! each field needs. Errors read `compilation failed: ERROR: <input>:…` as the
//! server's do. The library's declarations are added here: the engine's checker
//! knows only the schema-rule environment.

use std::sync::{Arc, OnceLock};

use crd_runtime::cel::{CelEnvironment, CelSchema, DeclType, Declarations, compile_expression};
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::model::JSONSchemaProps;
use serde_json::{Value, json};

use super::Scope;

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

fn schema(value: Value) -> Arc<CelSchema> {
    let props: JSONSchemaProps =
        serde_json::from_value(value).unwrap_or_else(|_| JSONSchemaProps::default());
    CelSchema::new(&props)
}

fn object(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn string() -> Value {
    json!({"type": "string"})
}

/// `BuildRequestType`: the request without `uid`, `object`, `oldObject`.
fn request() -> Arc<CelSchema> {
    static SCHEMA: OnceLock<Arc<CelSchema>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let gvk = object(json!({"group": string(), "version": string(), "kind": string()}));
            let gvr = object(json!({"group": string(), "version": string(), "resource": string()}));
            let strings = json!({"type": "array", "items": string()});
            let user = object(json!({
                "username": string(), "uid": string(), "groups": strings,
                "extra": {"type": "object", "additionalProperties": strings},
            }));
            schema(object(json!({
                "kind": gvk, "resource": gvr, "subResource": string(),
                "requestKind": gvk, "requestResource": gvr, "requestSubResource": string(),
                "name": string(), "namespace": string(), "operation": string(),
                "userInfo": user, "dryRun": {"type": "boolean"},
                "options": {"x-kubernetes-preserve-unknown-fields": true},
            })))
        })
        .clone()
}

/// `BuildNamespaceType`.
fn namespace() -> Arc<CelSchema> {
    static SCHEMA: OnceLock<Arc<CelSchema>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let strings = json!({"type": "array", "items": string()});
            let string_map = json!({"type": "object", "additionalProperties": string()});
            let time = json!({"type": "string", "format": "date-time"});
            let int = json!({"type": "integer"});
            let condition = object(json!({
                "status": string(), "type": string(), "lastTransitionTime": time,
                "message": string(), "reason": string(),
            }));
            schema(object(json!({
                "metadata": object(json!({
                    "name": string(), "generateName": string(), "namespace": string(),
                    "labels": string_map, "annotations": string_map, "UID": string(),
                    "creationTimestamp": time, "deletionGracePeriodSeconds": int,
                    "deletionTimestamp": time, "generation": int,
                    "resourceVersion": string(), "finalizers": strings,
                })),
                "spec": object(json!({"finalizers": strings})),
                "status": object(json!({
                    "conditions": {"type": "array", "items": condition},
                    "phase": string(),
                })),
            })))
        })
        .clone()
}

/// The authorizer library (`library.Authz`, with field and label selectors).
fn authorizer(d: Declarations) -> Declarations {
    let d = d
        .variable("authorizer", DeclType::Opaque)
        .variable("authorizer.requestResource", DeclType::Opaque);
    let checks = [
        "path",
        "group",
        "serviceAccount",
        "resource",
        "subresource",
        "namespace",
        "name",
        "fieldSelector",
        "labelSelector",
        "check",
    ];
    let d = checks
        .iter()
        .fold(d, |d, f| d.function(f, DeclType::Opaque));
    d.function("allowed", DeclType::Bool)
        .function("errored", DeclType::Bool)
        .function("reason", DeclType::String)
        .function("error", DeclType::String)
}

fn declarations(scope: Scope) -> Declarations {
    let mut d = Declarations::new()
        .variable("object", DeclType::Dyn)
        .variable("oldObject", DeclType::Dyn)
        .variable("request", DeclType::Object(request()))
        .variable("namespaceObject", DeclType::Object(namespace()));
    if scope.params {
        d = d.variable("params", DeclType::Dyn);
    }
    if scope.authorizer {
        d = authorizer(d);
    }
    if let Some(names) = scope.variables {
        let fields: serde_json::Map<String, Value> =
            names.iter().map(|n| (n.clone(), json!({}))).collect();
        d = d.variable("variables", DeclType::Object(schema(object(fields.into()))));
    }
    d
}

/// Compiles `expression` as the server does for `path`, pushing its error.
pub fn compile(expression: &str, want: Expr, scope: Scope, path: &Path, errs: &mut ErrorList) {
    let env = CelEnvironment::for_kube(scope.version);
    let invalid = |detail: String| {
        FieldError::invalid(path.clone(), BadValue::Str(expression.into()), detail)
    };
    let got = match compile_expression(expression, &declarations(scope), env) {
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
