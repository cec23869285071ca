//! ValidatingAdmissionPolicyBindings and MutatingAdmissionPolicyBindings: one
//! behaviour, as upstream's two binding strategies share theirs (`paramRef` defaults,
//! `ValidateValidatingAdmissionPolicyBinding`'s checks and the printer), with the
//! validating kind's `validationActions` and the mutating kind's releases apart.

use crd_runtime::KubeVersion;
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::dns_subdomain_name;
use serde_json::{Value, json};

use crate::api::kinds::builtin::admissionregistration::mutating_policies::served;
use crate::api::kinds::builtin::admissionregistration::{
    default, default_match_resources, match_resources, param_ref, strings, text,
};
use crate::api::kinds::builtin::behaviour::*;
use crate::api::table::Column;

/// The bindings of the validating (`mutating: false`) or the mutating policies.
pub struct Bindings {
    pub mutating: bool,
}

defaults!(Bindings: Deleter, AllocateStrategy);

impl Defaulter for Bindings {
    /// A binding's spec defaults.
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if let Some(spec) = obj.get_mut("spec") {
            if let Some(pr) = spec.get_mut("paramRef") {
                default(pr, "parameterNotFoundAction", json!("Deny"));
            }
            if let Some(mr) = spec.get_mut("matchResources") {
                default_match_resources(mr);
            }
        }
        Ok(())
    }
}

impl Validator for Bindings {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let spec = obj.get("spec").unwrap_or(&Value::Null);
        let path = Path::new("spec");
        binding_spec(spec, &path, errs);
        if !self.mutating {
            let actions = strings(spec, "validationActions");
            crd_runtime::admission::bindings::validation_actions(
                &actions,
                &path.child("validationActions"),
                errs,
            );
        }
    }
}

impl Printer for Bindings {
    fn columns(&self) -> Vec<Column> {
        binding_columns()
    }
}

impl Serving for Bindings {
    fn served_in(&self, v: KubeVersion) -> bool {
        !self.mutating || served(v)
    }
}

/// The checks of a binding spec both binding kinds share: policy name, param ref,
/// match resources (under the server's misspelt `matchResouces` path).
fn binding_spec(spec: &Value, path: &Path, errs: &mut ErrorList) {
    let policy = text(spec, "policyName");
    if policy.is_empty() {
        errs.push(FieldError::required(path.child("policyName"), ""));
    } else {
        for m in dns_subdomain_name(policy, false) {
            errs.push(FieldError::invalid(
                path.child("policyName"),
                BadValue::Str(policy.into()),
                m,
            ));
        }
    }
    if let Some(pr) = spec.get("paramRef").filter(|v| !v.is_null()) {
        param_ref(pr, &path.child("paramRef"), errs);
    }
    if let Some(mr) = spec.get("matchResources").filter(|v| !v.is_null()) {
        match_resources(mr, &path.child("matchResouces"), errs);
    }
}

/// `<unset>`, or where a binding's params come from, as the printer shows it.
pub(crate) fn param_ref_cell(o: &Value) -> Value {
    let Some(pr) = o.pointer("/spec/paramRef").filter(|v| !v.is_null()) else {
        return json!("<unset>");
    };
    let ns = match text(pr, "namespace") {
        "" => "*",
        ns => ns,
    };
    match text(pr, "name") {
        "" => json!(format!("{ns}/*")),
        name => json!(format!("{ns}/{name}")),
    }
}

/// A binding's columns: the policy and the params it binds.
fn binding_columns() -> Vec<Column> {
    vec![
        Column::computed(
            "PolicyName",
            "string",
            "PolicyName indicates the policy definition which the policy binding binded to",
            |o| {
                json!(
                    o.pointer("/spec/policyName")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                )
            },
        ),
        Column::computed(
            "ParamRef",
            "string",
            "ParamRef indicates the param resource which sets the configration param",
            param_ref_cell,
        ),
        Column::builtin_age(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_need_a_policy_and_actions() {
        let validating = Bindings { mutating: false };
        let mut b = json!({"spec": {"paramRef": {"name": "limits"}, "validationActions": ["Deny", "Warn", "Deny"]}});
        validating.decode(&mut b).unwrap();
        assert_eq!(b["spec"]["paramRef"]["parameterNotFoundAction"], "Deny");
        assert_eq!(
            errors_of(&validating, &b, None),
            [
                "spec.policyName: Required value",
                "spec.validationActions[2]: Duplicate value: \"Deny\"",
                "spec.validationActions: Invalid value: [\"Deny\",\"Warn\",\"Deny\"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
            ]
        );
        assert_eq!(param_ref_cell(&b), "*/limits");
    }
}
