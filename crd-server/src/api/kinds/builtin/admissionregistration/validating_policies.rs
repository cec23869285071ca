//! ValidatingAdmissionPolicies (with their status subresource): v1 defaults
//! (`failurePolicy: Fail`, match resources) and `ValidateValidatingAdmissionPolicy`,
//! every expression compiled with the variables it sees. Their bindings are
//! [`super::bindings`].

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::admissionregistration::cel::{Expr, compile};
use crate::api::kinds::builtin::admissionregistration::preexisting::Preexisting;
use crate::api::kinds::builtin::admissionregistration::{
    FAILURE_POLICIES, Scope, default, default_match_resources, is_cel_identifier, list,
    match_conditions, match_resources, one_of, param_kind, text,
};
use crate::api::kinds::builtin::behaviour::*;
use crate::api::selectors::label::label_name;
use crate::api::table::Column;

const REASONS: &[&str] = &["Forbidden", "Invalid", "RequestEntityTooLarge"];
const MAX_AUDIT_ANNOTATIONS: usize = 20;
const MAX_AUDIT_VALUE_EXPRESSION: usize = 5 * 1024;

/// What a policy's spec and its binding's `paramRef` default to (both kinds).
pub(crate) fn default_spec(spec: Option<&mut Value>) {
    if let Some(spec) = spec {
        default(spec, "failurePolicy", json!("Fail"));
        if let Some(mr) = spec.get_mut("matchConstraints") {
            default_match_resources(mr);
        }
    }
}

/// The checks of a policy spec every policy kind shares, in the server's order up to
/// the variables: failure policy, param kind, match constraints, match conditions,
/// variables. Returns the scope the remaining expressions compile in.
pub(crate) fn common_spec<'a>(
    spec: &Value,
    old: Option<&Value>,
    preexisting: &'a Preexisting,
    names: &'a [String],
    cx: &Validation,
    path: &Path,
    errs: &mut ErrorList,
) -> Scope<'a> {
    match spec.get("failurePolicy").and_then(Value::as_str) {
        None => errs.push(FieldError::required(path.child("failurePolicy"), "")),
        Some(_) => one_of(spec, "failurePolicy", FAILURE_POLICIES, path, errs),
    }
    let pk = spec.get("paramKind").filter(|v| !v.is_null());
    if let Some(pk) = pk {
        param_kind(pk, &path.child("paramKind"), errs);
    }
    match spec.get("matchConstraints").filter(|v| !v.is_null()) {
        None => errs.push(FieldError::required(path.child("matchConstraints"), "")),
        Some(mc) => {
            match_resources(mc, &path.child("matchConstraints"), errs);
            if list(mc, "resourceRules").is_empty() {
                errs.push(FieldError::required(
                    path.child("matchConstraints").child("resourceRules"),
                    "",
                ));
            }
        }
    }
    let scope = Scope {
        params: pk.is_some(),
        authorizer: true,
        variables: (!names.is_empty()).then_some(names),
        version: cx.kube_version,
        stored: None,
    };
    // An update that keeps the param kind and conditions does not compile them again.
    let unchanged = old.is_some_and(|o| {
        o.get("paramKind") == spec.get("paramKind")
            && o.get("matchConditions") == spec.get("matchConditions")
    });
    if !unchanged {
        let conditions = list(spec, "matchConditions");
        let scope = Scope {
            stored: Some(&preexisting.match_conditions),
            ..scope
        };
        match_conditions(conditions, scope, &path.child("matchConditions"), errs);
    }
    for (i, v) in list(spec, "variables").iter().enumerate() {
        let at = path.child("variables").index(i);
        let name = text(v, "name");
        if name.trim().is_empty() {
            errs.push(FieldError::required(
                at.child("name"),
                "name is not specified",
            ));
        } else if !is_cel_identifier(name) {
            errs.push(FieldError::invalid(
                at.child("name"),
                BadValue::Str(name.into()),
                "name is not a valid CEL identifier",
            ));
        }
        if let Some(expression) = expression_of(v, &at, errs) {
            // A variable sees the ones declared before it.
            // Upstream looks variables up among the old validations.
            let earlier = Scope {
                variables: Some(&names[..i.min(names.len())]),
                stored: Some(&preexisting.validations),
                ..scope
            };
            compile(
                expression,
                Expr::Any,
                earlier,
                &at.child("expression"),
                errs,
            );
        }
    }
    scope
}

/// The `expression` of a variable or a validation; `None`, with its error, when blank.
fn expression_of<'a>(v: &'a Value, at: &Path, errs: &mut ErrorList) -> Option<&'a str> {
    let expression = text(v, "expression");
    if expression.trim().is_empty() {
        errs.push(FieldError::required(
            at.child("expression"),
            "expression is not specified",
        ));
        return None;
    }
    Some(expression)
}

/// The optional text at `field`: `None` when absent, and when set but blank (then with
/// its error, `detail`).
fn optional_text<'a>(
    v: &'a Value,
    field: &str,
    detail: &str,
    at: &Path,
    errs: &mut ErrorList,
) -> Option<&'a str> {
    let value = text(v, field);
    if !value.is_empty() && value.trim().is_empty() {
        errs.push(FieldError::invalid(
            at.child(field),
            BadValue::Str(value.into()),
            detail,
        ));
        return None;
    }
    (!value.is_empty()).then_some(value)
}

/// The variable names of a spec, in order.
pub(crate) fn variable_names(spec: &Value) -> Vec<String> {
    list(spec, "variables")
        .iter()
        .map(|v| text(v, "name").to_string())
        .collect()
}

/// ValidatingAdmissionPolicies.
pub struct ValidatingPolicies;

defaults!(ValidatingPolicies: Serving, Deleter, AllocateStrategy);

impl Defaulter for ValidatingPolicies {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        default_spec(obj.get_mut("spec"));
        Ok(())
    }
}

impl Validator for ValidatingPolicies {
    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        let old = cx.old;
        if cx.status {
            status(obj, errs);
            return;
        }
        let spec = obj.get("spec").unwrap_or(&Value::Null);
        let path = Path::new("spec");
        let names = variable_names(spec);
        let old_spec = old.and_then(|o| o.get("spec"));
        let preexisting = Preexisting::of_policy(old_spec);
        let scope = common_spec(spec, old_spec, &preexisting, &names, cx, &path, errs);
        let validations = list(spec, "validations");
        let annotations = list(spec, "auditAnnotations");
        if validations.is_empty() && annotations.is_empty() {
            let detail = "validations or auditAnnotations must contain at least one item";
            errs.push(FieldError::required(path.child("validations"), detail));
            errs.push(FieldError::required(path.child("auditAnnotations"), detail));
            return;
        }
        for (i, v) in validations.iter().enumerate() {
            let at = path.child("validations").index(i);
            validation(v, scope, &preexisting, &at, errs);
        }
        if annotations.len() > MAX_AUDIT_ANNOTATIONS {
            errs.push(FieldError::invalid(
                path.child("auditAnnotations"),
                BadValue::Json(json!(annotations)),
                format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
            ));
        }
        let name = obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut keys = Vec::new();
        for (i, a) in annotations.iter().enumerate() {
            let at = path.child("auditAnnotations").index(i);
            let scope = Scope {
                stored: Some(&preexisting.audit_annotations),
                ..scope
            };
            audit_annotation(a, name, scope, &at, errs);
            let key = text(a, "key");
            if keys.contains(&key) {
                errs.push(FieldError::duplicate(
                    at.child("key"),
                    BadValue::Str(key.into()),
                ));
            }
            keys.push(key);
        }
    }
}

impl Printer for ValidatingPolicies {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Validations",
                "integer",
                "Validations indicates the number of validation rules defined in this configuration",
                |o| json!(o.get("spec").map_or(0, |s| list(s, "validations").len())),
            ),
            Column::computed(
                "ParamKind",
                "string",
                "ParamKind specifies the kind of resources used to parameterize this policy",
                param_kind_cell,
            ),
            Column::builtin_age(),
        ]
    }
}

/// `<unset>` or `apiVersion/kind`, as the printer shows a policy's param kind.
pub(crate) fn param_kind_cell(o: &Value) -> Value {
    match o.pointer("/spec/paramKind").filter(|v| !v.is_null()) {
        None => json!("<unset>"),
        Some(pk) => json!(format!("{}/{}", text(pk, "apiVersion"), text(pk, "kind"))),
    }
}

/// `validateValidation`.
fn validation(v: &Value, scope: Scope, old: &Preexisting, at: &Path, errs: &mut ErrorList) {
    if let Some(expression) = expression_of(v, at, errs) {
        let scope = Scope {
            stored: Some(&old.validations),
            ..scope
        };
        compile(expression, Expr::Bool, scope, &at.child("expression"), errs);
    }
    let detail = "must be non-empty if specified";
    if let Some(message_expression) = optional_text(v, "messageExpression", detail, at, errs) {
        let no_authorizer = Scope {
            authorizer: false,
            stored: Some(&old.message_expressions),
            ..scope
        };
        let path = at.child("messageExpression");
        compile(message_expression, Expr::String, no_authorizer, &path, errs);
    }
    let detail = "message must be non-empty if specified";
    if let Some(message) = optional_text(v, "message", detail, at, errs)
        && message.trim().contains(['\n', '\r'])
    {
        errs.push(FieldError::invalid(
            at.child("message"),
            BadValue::Str(message.into()),
            "message must not contain line breaks",
        ));
    }
    one_of(v, "reason", REASONS, at, errs);
}

/// `validateAuditAnnotation`.
fn audit_annotation(a: &Value, policy: &str, scope: Scope, at: &Path, errs: &mut ErrorList) {
    let key = text(a, "key");
    if policy.is_empty() {
        errs.push(FieldError::invalid(
            at.child("key"),
            BadValue::Str(key.into()),
            "requires metadata.name be non-empty",
        ));
    } else {
        label_name(&format!("{policy}/{key}"), &at.child("key"), errs);
    }
    let expression = text(a, "valueExpression").trim();
    let path = at.child("valueExpression");
    if expression.is_empty() {
        errs.push(FieldError::required(
            path,
            "valueExpression is not specified",
        ));
    } else if expression.len() > MAX_AUDIT_VALUE_EXPRESSION {
        errs.push(FieldError::required(
            path,
            format!("must not exceed {MAX_AUDIT_VALUE_EXPRESSION} bytes in length"),
        ));
    } else {
        let mut found = ErrorList::new();
        compile(expression, Expr::StringOrNull, scope, &path, &mut found);
        // The server reports the untrimmed expression as the value.
        errs.extend(found.into_iter().map(|mut e| {
            e.bad_value = BadValue::Str(text(a, "valueExpression").into());
            e
        }));
    }
}

/// `ValidateValidatingAdmissionPolicyStatusUpdate`: the type-checking warnings.
fn status(obj: &Value, errs: &mut ErrorList) {
    let warnings = obj.pointer("/status/typeChecking/expressionWarnings");
    let warnings = warnings
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let path = Path::new("status")
        .child("typeChecking")
        .child("expressionWarnings");
    for (i, w) in warnings.iter().enumerate() {
        let at = path.index(i);
        if text(w, "warning").is_empty() {
            errs.push(FieldError::required(at.child("warning"), ""));
        }
        if text(w, "fieldRef").trim().is_empty() {
            errs.push(FieldError::required(at.child("fieldRef"), ""));
        }
    }
}

#[cfg(test)]
#[path = "validating_policies_tests.rs"]
mod tests;
