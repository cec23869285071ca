//! MutatingAdmissionPolicies (admissionregistration.k8s.io/v1, served by default from
//! Kubernetes 1.36, when the API went GA; v1alpha1 in 1.32 and v1beta1 in 1.34 were off
//! by default); their bindings are [`super::bindings`]. Defaults and validation as the
//! validating kinds', plus the mutations: a patch type and the expression of that type. Mutation
//! expressions build typed objects (`Object{…}`, `JSONPatch{…}`), which this server's
//! checker does not type: they are parsed, not type-checked.

use crd_runtime::KubeVersion;
use crd_runtime::cel::parse_expression;
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::admissionregistration::preexisting::Preexisting;
use crate::api::kinds::builtin::admissionregistration::validating_policies::{
    common_spec, default_spec, param_kind_cell, variable_names,
};
use crate::api::kinds::builtin::admissionregistration::{list, one_of, text};
use crate::api::kinds::builtin::behaviour::*;
use crate::api::table::Column;

const PATCH_TYPES: &[&str] = &["ApplyConfiguration", "JSONPatch"];
const REINVOCATION: &[&str] = &["IfNeeded", "Never"];

/// Whether a default kube-apiserver of `v` serves admissionregistration.k8s.io/v1
/// MutatingAdmissionPolicies.
pub(crate) fn served(v: KubeVersion) -> bool {
    v.at_least(36)
}

/// MutatingAdmissionPolicies.
pub struct MutatingPolicies;

defaults!(MutatingPolicies: Deleter, AllocateStrategy);

impl Defaulter for MutatingPolicies {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        default_spec(obj.get_mut("spec"));
        Ok(())
    }
}

impl Validator for MutatingPolicies {
    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        let old = cx.old;
        let spec = obj.get("spec").unwrap_or(&Value::Null);
        let path = Path::new("spec");
        let names = variable_names(spec);
        let old_spec = old.and_then(|o| o.get("spec"));
        // Only the match conditions of the old policy are looked up (its
        // variables and mutations are not compiled here).
        let preexisting = Preexisting {
            validations: Default::default(),
            ..Preexisting::of_policy(old_spec)
        };
        common_spec(spec, old_spec, &preexisting, &names, cx, &path, errs);
        let mutations = list(spec, "mutations");
        if mutations.is_empty() {
            errs.push(FieldError::required(
                path.child("mutations"),
                "mutations must contain at least one item",
            ));
        }
        for (i, m) in mutations.iter().enumerate() {
            mutation(m, &path.child("mutations").index(i), errs);
        }
        match spec.get("reinvocationPolicy").and_then(Value::as_str) {
            None | Some("") => {
                errs.push(FieldError::required(path.child("reinvocationPolicy"), ""))
            }
            Some(_) => one_of(spec, "reinvocationPolicy", REINVOCATION, &path, errs),
        }
    }
}

impl Printer for MutatingPolicies {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Mutations",
                "integer",
                "Mutation indicates the number of mutations rules defined in this configuration",
                |o| json!(o.get("spec").map_or(0, |s| list(s, "mutations").len())),
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

impl Serving for MutatingPolicies {
    fn served_in(&self, v: KubeVersion) -> bool {
        served(v)
    }
}

/// One mutation: its patch type and the matching expression.
fn mutation(m: &Value, at: &Path, errs: &mut ErrorList) {
    let patch_type = text(m, "patchType");
    let (field, other) = match patch_type {
        "" => {
            errs.push(FieldError::required(at.child("patchType"), ""));
            return;
        }
        "ApplyConfiguration" => ("applyConfiguration", "jsonPatch"),
        "JSONPatch" => ("jsonPatch", "applyConfiguration"),
        _ => {
            errs.push(FieldError::not_supported(
                at.child("patchType"),
                BadValue::Str(patch_type.into()),
                PATCH_TYPES,
            ));
            return;
        }
    };
    if m.get(other).is_some_and(|v| !v.is_null()) {
        errs.push(FieldError::invalid(
            at.child(other),
            BadValue::Json(m[other].clone()),
            format!("must not be specified when patchType is {patch_type}"),
        ));
    }
    let Some(body) = m.get(field).filter(|v| !v.is_null()) else {
        errs.push(FieldError::required(
            at.child(field),
            format!("must be specified when patchType is {patch_type}"),
        ));
        return;
    };
    let expression = text(body, "expression");
    let path = at.child(field).child("expression");
    if expression.trim().is_empty() {
        errs.push(FieldError::required(path, ""));
    } else if let Err(issues) = parse_expression(expression) {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(expression.into()),
            format!("compilation failed: {issues}"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_need_a_type_and_its_expression() {
        let cx = Validation::main(None);
        let mut obj = json!({"spec": {
            "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]},
            "reinvocationPolicy": "Never",
            "mutations": [
                {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"}},
                {"patchType": "JSONPatch"},
                {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{"}},
            ]
        }});
        MutatingPolicies.decode(&mut obj).unwrap();
        assert_eq!(obj["spec"]["failurePolicy"], "Fail");
        let mut errs = ErrorList::new();
        MutatingPolicies.validate_with(&obj, &cx, &mut errs);
        let out = errs.strings();
        assert_eq!(
            out[0],
            "spec.mutations[1].jsonPatch: Required value: must be specified when patchType is JSONPatch"
        );
        assert!(
            out[1].starts_with("spec.mutations[2].applyConfiguration.expression: Invalid value: \"Object{\": compilation failed: ERROR: <input>:1:8"),
            "{out:?}"
        );
        assert_eq!(out.len(), 2);
        assert!(!MutatingPolicies.served_in(KubeVersion::new(35).unwrap()));
        assert!(MutatingPolicies.served_in(KubeVersion::new(36).unwrap()));
    }
}
