//! A policy's denial as kube-apiserver answers it: `admission.NewForbidden` names the
//! request's resource and object (`crontabs.stable.example.com "x" is forbidden: ...`),
//! then the reason and code become the denial's (`Invalid`/422 unless the validation
//! says otherwise) and the denial's message is added as a cause without a field —
//! which kubectl prints for an Invalid answer as `The crontabs "x" is invalid: : ...`.

use crd_runtime::admission::Attributes;
use crd_runtime::admission::policy::Denial;
use http::StatusCode;
use serde_json::{Value, json};

use crate::api::object::str_at;
use crate::api::status::ApiError;

/// The name admission errors give the object (`extractResourceName`): the request's,
/// else the new object's name or `generateName`, else `Unknown`.
fn object_name(attrs: &Attributes) -> String {
    if !attrs.name.is_empty() {
        return attrs.name.clone();
    }
    let Some(obj) = &attrs.object else {
        return "Unknown".into();
    };
    [
        str_at(obj, "/metadata/name"),
        str_at(obj, "/metadata/generateName"),
    ]
    .into_iter()
    .find(|n| !n.is_empty())
    .unwrap_or("Unknown")
    .to_string()
}

/// The reasons a policy may give (a validation's `reason`), with their codes.
fn reason(denial: &Denial) -> (&'static str, StatusCode) {
    match denial.reason.as_str() {
        "Forbidden" => ("Forbidden", StatusCode::FORBIDDEN),
        "Unauthorized" => ("Unauthorized", StatusCode::UNAUTHORIZED),
        "RequestEntityTooLarge" => ("RequestEntityTooLarge", StatusCode::PAYLOAD_TOO_LARGE),
        _ => ("Invalid", StatusCode::UNPROCESSABLE_ENTITY),
    }
}

/// The error answered for `denial` of the request `attrs`.
pub fn denied(attrs: &Attributes, denial: &Denial) -> ApiError {
    let group = attrs.resource.group.clone();
    let plural = attrs.resource.resource.clone();
    let resource = if group.is_empty() {
        plural.clone()
    } else {
        format!("{plural}.{group}")
    };
    let name = object_name(attrs);
    let prefix = format!("{resource} \"{name}\" is forbidden: ");
    // The engine gives the whole Status message or only the policy's part of it: the
    // cause holds the policy's part, the message the whole.
    let (message, cause) = match denial.message.strip_prefix(&prefix) {
        Some(inner) => (denial.message.clone(), inner.to_string()),
        None if denial.message.starts_with("policy ") => {
            // A policy's configuration or evaluation error (the generic dispatcher):
            // its message replaces the Forbidden one.
            (denial.message.clone(), denial.message.clone())
        }
        None => (
            format!("{prefix}{}", denial.message),
            denial.message.clone(),
        ),
    };
    let (reason, code) = reason(denial);
    let code = StatusCode::from_u16(denial.code)
        .ok()
        .filter(|c| c.is_client_error() || c.is_server_error())
        .unwrap_or(code);
    let causes: Vec<Value> = vec![json!({ "message": cause })];
    ApiError {
        code,
        reason,
        message,
        details: Some(json!({"name": name, "group": group, "kind": plural, "causes": causes})),
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_runtime::admission::GroupVersionResource;

    fn attrs(name: &str, object: Option<Value>) -> Attributes {
        Attributes {
            resource: GroupVersionResource {
                group: "stable.example.com".into(),
                version: "v1".into(),
                resource: "crontabs".into(),
            },
            name: name.into(),
            object,
            ..Default::default()
        }
    }

    fn denial(message: &str, reason: &str, code: u16) -> Denial {
        Denial {
            message: message.into(),
            reason: reason.into(),
            code,
        }
    }

    #[test]
    fn a_validation_failure_names_the_object_and_gives_its_cause() {
        let inner =
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: x";
        let e = denied(&attrs("x", None), &denial(inner, "Invalid", 422));
        assert_eq!(e.code, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(e.reason, "Invalid");
        assert_eq!(
            e.message,
            format!("crontabs.stable.example.com \"x\" is forbidden: {inner}")
        );
        let details = e.details.unwrap();
        assert_eq!(details["kind"], "crontabs");
        assert_eq!(details["causes"], json!([{ "message": inner }]));
        // The whole message given: the same answer.
        let whole = format!("crontabs.stable.example.com \"x\" is forbidden: {inner}");
        assert_eq!(
            denied(&attrs("x", None), &denial(&whole, "Invalid", 422)).message,
            whole
        );
    }

    #[test]
    fn names_and_reasons() {
        let obj = json!({"metadata": {"generateName": "gen-"}});
        let e = denied(&attrs("", Some(obj)), &denial("no", "Forbidden", 403));
        assert_eq!((e.code, e.reason), (StatusCode::FORBIDDEN, "Forbidden"));
        assert_eq!(e.details.unwrap()["name"], "gen-");
        let e = denied(&attrs("", None), &denial("no", "", 0));
        assert_eq!(
            (e.code, e.reason),
            (StatusCode::UNPROCESSABLE_ENTITY, "Invalid")
        );
        assert!(e.message.contains("\"Unknown\" is forbidden"));
        let config = "policy 'p' with binding 'b' denied request: failed to configure binding: x";
        let e = denied(&attrs("x", None), &denial(config, "Forbidden", 403));
        assert_eq!(e.message, config);
    }
}
