//! The checks kube-apiserver makes on a ValidatingAdmissionPolicyBinding's fields that a
//! server and an offline loader both need (`validateValidationActions`).

use serde_json::json;

use crate::field::{BadValue, ErrorList, FieldError, Path};

/// The actions a ValidatingAdmissionPolicyBinding may take on a failed validation.
pub const VALIDATION_ACTIONS: &[&str] = &["Audit", "Deny", "Warn"];

/// Checks a binding's `validationActions` (at `path`) as the API server does: each
/// supported and named once, at least one, and not both `Deny` and `Warn`.
pub fn validation_actions(actions: &[&str], path: &Path, errs: &mut ErrorList) {
    for (i, a) in actions.iter().enumerate() {
        if !VALIDATION_ACTIONS.contains(a) {
            errs.push(FieldError::not_supported(
                path.index(i),
                BadValue::Str(a.to_string()),
                VALIDATION_ACTIONS,
            ));
        }
        if actions[..i].contains(a) {
            errs.push(FieldError::duplicate(
                path.index(i),
                BadValue::Str(a.to_string()),
            ));
        }
    }
    if actions.contains(&"Deny") && actions.contains(&"Warn") {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Json(json!(actions)),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if actions.is_empty() {
        errs.push(FieldError::required(
            path.clone(),
            "at least one validation action is required",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(actions: &[&str]) -> Vec<String> {
        let mut errs = ErrorList::default();
        validation_actions(
            actions,
            &Path::new("spec").child("validationActions"),
            &mut errs,
        );
        errs.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn actions_are_checked_as_the_api_server_does() {
        assert!(errors(&["Deny", "Audit"]).is_empty());
        assert_eq!(
            errors(&["Deny", "Warn", "Deny", "Log"]),
            [
                "spec.validationActions[2]: Duplicate value: \"Deny\"",
                "spec.validationActions[3]: Unsupported value: \"Log\": supported values: \"Audit\", \"Deny\", \"Warn\"",
                "spec.validationActions: Invalid value: [\"Deny\",\"Warn\",\"Deny\",\"Log\"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
            ]
        );
        assert_eq!(
            errors(&[]),
            ["spec.validationActions: Required value: at least one validation action is required"]
        );
    }
}
