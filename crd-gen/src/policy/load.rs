//! Sorting `--policy` documents into policies, bindings and other objects, with the
//! defaults the API server gives policies and bindings when they are created and the
//! checks that would make it refuse one: required fields, supported values, and
//! every CEL expression compiled in the admission environment.

use crd_runtime::KubeVersion;
use crd_runtime::admission::policy::admission_declarations;
use crd_runtime::cel::{CelEnvironment, Declarations, compile_expression, parse_expression};
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

const GROUP: &str = "admissionregistration.k8s.io/";
const FAILURE_POLICIES: &[&str] = &["Fail", "Ignore"];
const NOT_FOUND_ACTIONS: &[&str] = &["Allow", "Deny"];

/// The documents of `--policy` inputs, sorted.
#[derive(Default)]
pub struct Sorted {
    pub validating: Vec<Value>,
    pub validating_bindings: Vec<Value>,
    pub mutating: Vec<Value>,
    pub mutating_bindings: Vec<Value>,
    /// Everything else: parameters and Namespaces.
    pub others: Vec<Value>,
}

/// Sorts and checks `documents` (file name, object). Errors read
/// `FILE: KIND "NAME": FIELD: ERROR`, one per problem.
pub fn sort(documents: Vec<(String, Value)>, version: KubeVersion) -> Result<Sorted, Vec<String>> {
    let mut sorted = Sorted::default();
    let mut problems = Vec::new();
    for (file, mut doc) in documents {
        let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = doc
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let admission = api_version.starts_with(GROUP);
        let target = match kind.as_str() {
            "ValidatingAdmissionPolicy" if admission => &mut sorted.validating,
            "ValidatingAdmissionPolicyBinding" if admission => &mut sorted.validating_bindings,
            "MutatingAdmissionPolicy" if admission => &mut sorted.mutating,
            "MutatingAdmissionPolicyBinding" if admission => &mut sorted.mutating_bindings,
            _ => {
                sorted.others.push(doc);
                continue;
            }
        };
        let mut errs = ErrorList::new();
        if kind.ends_with("Binding") {
            default_binding(&mut doc);
            check_binding(&doc, &mut errs);
        } else {
            default_policy(&mut doc);
            check_policy(&doc, kind.starts_with("Mutating"), version, &mut errs);
        }
        let name = doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if name.is_empty() {
            errs.push(FieldError::required(
                Path::new("metadata").child("name"),
                "name or generateName is required",
            ));
        }
        for e in errs.strings() {
            problems.push(format!(
                "{file}: {kind} {}: {e}",
                crd_runtime::__private::go::quote(name)
            ));
        }
        target.push(doc);
    }
    if problems.is_empty() {
        Ok(sorted)
    } else {
        Err(problems)
    }
}

/// Sets `field` of `obj` when absent.
fn default(obj: &mut Value, field: &str, value: Value) {
    if let Value::Object(m) = obj
        && m.get(field).is_none_or(Value::is_null)
    {
        m.insert(field.into(), value);
    }
}

/// `SetDefaults_MatchResources` with its rules' `scope: "*"`.
fn default_match_resources(mr: Option<&mut Value>) {
    let Some(mr) = mr.filter(|v| v.is_object()) else {
        return;
    };
    default(mr, "matchPolicy", json!("Equivalent"));
    default(mr, "namespaceSelector", json!({}));
    default(mr, "objectSelector", json!({}));
    for field in ["resourceRules", "excludeResourceRules"] {
        if let Some(Value::Array(rules)) = mr.get_mut(field) {
            rules
                .iter_mut()
                .for_each(|r| default(r, "scope", json!("*")));
        }
    }
}

fn default_policy(doc: &mut Value) {
    if let Some(spec) = doc.get_mut("spec").filter(|s| s.is_object()) {
        default(spec, "failurePolicy", json!("Fail"));
        default_match_resources(spec.get_mut("matchConstraints"));
    }
}

fn default_binding(doc: &mut Value) {
    if let Some(spec) = doc.get_mut("spec").filter(|s| s.is_object()) {
        if let Some(pr) = spec.get_mut("paramRef").filter(|p| p.is_object()) {
            default(pr, "parameterNotFoundAction", json!("Deny"));
        }
        default_match_resources(spec.get_mut("matchResources"));
    }
}

fn text<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or("")
}

fn list<'a>(v: &'a Value, field: &str) -> &'a [Value] {
    v.get(field)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn one_of(v: &Value, field: &str, supported: &[&str], at: &Path, errs: &mut ErrorList) {
    if let Some(s) = v.get(field).and_then(Value::as_str)
        && !supported.contains(&s)
    {
        errs.push(FieldError::not_supported(
            at.child(field),
            BadValue::Str(s.into()),
            supported,
        ));
    }
}

fn check_binding(doc: &Value, errs: &mut ErrorList) {
    let at = Path::new("spec");
    let Some(spec) = doc.get("spec").filter(|s| s.is_object()) else {
        errs.push(FieldError::required(Path::new("spec"), ""));
        return;
    };
    if text(spec, "policyName").is_empty() {
        errs.push(FieldError::required(at.child("policyName"), ""));
    }
    if let Some(pr) = spec.get("paramRef").filter(|p| !p.is_null()) {
        let at = at.child("paramRef");
        let (name, selector) = (
            text(pr, "name"),
            pr.get("selector").filter(|s| !s.is_null()),
        );
        if !name.is_empty() && selector.is_some() {
            errs.push(FieldError::forbidden(
                at.child("name"),
                "name and selector are mutually exclusive",
            ));
        } else if name.is_empty() && selector.is_none() {
            errs.push(FieldError::required(
                at.clone(),
                "one of name or selector must be specified",
            ));
        }
        one_of(pr, "parameterNotFoundAction", NOT_FOUND_ACTIONS, &at, errs);
    }
    // Only ValidatingAdmissionPolicyBindings have actions.
    if doc.get("kind").and_then(Value::as_str) == Some("ValidatingAdmissionPolicyBinding") {
        let actions: Vec<&str> = list(spec, "validationActions")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        crd_runtime::admission::bindings::validation_actions(
            &actions,
            &at.child("validationActions"),
            errs,
        );
    }
}

/// What expressions may refer to: kube-apiserver's admission variables, `variables`
/// when the policy declares some (those before the expression).
fn declarations(params: bool, variables: &[String], any: bool, authorizer: bool) -> Declarations {
    admission_declarations(params, authorizer, any.then_some(variables))
}

/// Compiles one expression; `want` is the type it must have (`None`: any).
fn compile(
    src: &str,
    want: Option<&str>,
    decls: &Declarations,
    version: KubeVersion,
    at: Path,
    errs: &mut ErrorList,
) {
    if src.trim().is_empty() {
        errs.push(FieldError::required(at, "expression is not specified"));
        return;
    }
    let invalid =
        |detail: String| FieldError::invalid(at.clone(), BadValue::Str(src.into()), detail);
    // The API server's create validation of the policy: new expressions, at
    // the compatibility version one release back.
    match compile_expression(src, decls, CelEnvironment::for_kube(version)) {
        Err(issues) => errs.push(invalid(format!("compilation failed: {issues}"))),
        Ok(got) => match want {
            Some(want) if got != want && got != "dyn" => {
                errs.push(invalid(format!("must evaluate to {want} but got {got}")));
            }
            _ => {}
        },
    }
}

fn check_policy(doc: &Value, mutating: bool, version: KubeVersion, errs: &mut ErrorList) {
    let at = Path::new("spec");
    let Some(spec) = doc.get("spec").filter(|s| s.is_object()) else {
        errs.push(FieldError::required(at, ""));
        return;
    };
    one_of(spec, "failurePolicy", FAILURE_POLICIES, &at, errs);
    let params = spec.get("paramKind").is_some_and(|p| !p.is_null());
    if let Some(pk) = spec.get("paramKind").filter(|p| !p.is_null()) {
        for f in ["apiVersion", "kind"] {
            if text(pk, f).is_empty() {
                errs.push(FieldError::required(at.child("paramKind").child(f), ""));
            }
        }
    }
    if list(
        spec.get("matchConstraints").unwrap_or(&Value::Null),
        "resourceRules",
    )
    .is_empty()
    {
        errs.push(FieldError::required(
            at.child("matchConstraints").child("resourceRules"),
            "",
        ));
    }
    let mut names = Vec::new();
    let has_variables = !list(spec, "variables").is_empty();
    for (i, v) in list(spec, "variables").iter().enumerate() {
        let decls = declarations(params, &names, has_variables, true);
        compile(
            text(v, "expression"),
            None,
            &decls,
            version,
            at.child("variables").index(i).child("expression"),
            errs,
        );
        names.push(text(v, "name").to_string());
    }
    // Match conditions see no variables.
    let conditions = declarations(params, &[], false, true);
    for (i, c) in list(spec, "matchConditions").iter().enumerate() {
        compile(
            text(c, "expression"),
            Some("bool"),
            &conditions,
            version,
            at.child("matchConditions").index(i).child("expression"),
            errs,
        );
    }
    let decls = declarations(params, &names, has_variables, true);
    let no_authorizer = declarations(params, &names, has_variables, false);
    if mutating {
        if list(spec, "mutations").is_empty() {
            errs.push(FieldError::required(
                at.child("mutations"),
                "mutations must contain at least one item",
            ));
        }
        for (i, m) in list(spec, "mutations").iter().enumerate() {
            let at = at.child("mutations").index(i);
            // Object literals are beyond the type checker: mutations are only parsed,
            // as the engine does; their results are checked when applied.
            for field in ["applyConfiguration", "jsonPatch"] {
                let Some(e) = m
                    .pointer(&format!("/{field}/expression"))
                    .and_then(Value::as_str)
                else {
                    continue;
                };
                if let Err(issues) = parse_expression(e) {
                    let path = at.child(field).child("expression");
                    let detail = format!("compilation failed: {issues}");
                    errs.push(FieldError::invalid(path, BadValue::Str(e.into()), detail));
                }
            }
        }
        return;
    }
    let validations = list(spec, "validations");
    if validations.is_empty() && list(spec, "auditAnnotations").is_empty() {
        errs.push(FieldError::required(
            at.child("validations"),
            "validations or auditAnnotations must contain at least one item",
        ));
    }
    for (i, v) in validations.iter().enumerate() {
        let at = at.child("validations").index(i);
        compile(
            text(v, "expression"),
            Some("bool"),
            &decls,
            version,
            at.child("expression"),
            errs,
        );
        let message_expression = text(v, "messageExpression");
        if !message_expression.is_empty() {
            compile(
                message_expression,
                Some("string"),
                &no_authorizer,
                version,
                at.child("messageExpression"),
                errs,
            );
        }
    }
    for (i, a) in list(spec, "auditAnnotations").iter().enumerate() {
        let at = at
            .child("auditAnnotations")
            .index(i)
            .child("valueExpression");
        compile(text(a, "valueExpression"), None, &decls, version, at, errs);
    }
}
