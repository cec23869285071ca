//! APIServices (apiregistration.k8s.io/v1), as kube-aggregator validates and prints
//! them: the name is `version.group`, the priorities are bounded, a local APIService
//! (no `service`) has no CA or TLS options, and `kubectl get apiservices` shows the
//! service (or `Local`) and the `Available` condition with its reason.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::behaviour::*;
use crate::api::object::str_at;
use crate::api::table::Column;

/// APIServices.
pub struct ApiServices;

defaults!(ApiServices: Defaulter, Preparer, Serving, Deleter, AllocateStrategy);

impl Validator for ApiServices {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        validate_spec(obj, errs);
    }

    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        if cx.sub == Subresource::Status {
            validate_status(obj, errs);
        } else {
            validate_spec(obj, errs);
        }
    }
}

fn validate_spec(obj: &Value, errs: &mut ErrorList) {
    let spec = Path::new("spec");
    let (group, version) = (str_at(obj, "/spec/group"), str_at(obj, "/spec/version"));
    let required = format!("{version}.{group}");
    let name = str_at(obj, "/metadata/name");
    if !name.is_empty() && name != required {
        errs.push(FieldError::invalid(
            Path::new("metadata").child("name"),
            BadValue::Str(name.into()),
            format!("must be `spec.version+\".\"+spec.group`: {required:?}"),
        ));
    }
    if group.is_empty() && version != "v1" {
        errs.push(FieldError::required(
            spec.child("group"),
            "only v1 may have an empty group and it better be legacy kube",
        ));
    }
    if !group.is_empty() {
        for m in crd_runtime::names::dns1123_subdomain(group) {
            errs.push(FieldError::invalid(
                spec.child("group"),
                BadValue::Str(group.into()),
                m,
            ));
        }
    }
    for m in crd_runtime::names::dns1035_label(version) {
        errs.push(FieldError::invalid(
            spec.child("version"),
            BadValue::Str(version.into()),
            m,
        ));
    }
    let int = |p: &str| obj.pointer(p).and_then(Value::as_i64).unwrap_or(0);
    let group_priority = int("/spec/groupPriorityMinimum");
    if group_priority <= 0 || group_priority > 20000 {
        errs.push(FieldError::invalid(
            spec.child("groupPriorityMinimum"),
            BadValue::Int(group_priority),
            "must be positive and less than 20000",
        ));
    }
    let version_priority = int("/spec/versionPriority");
    if version_priority <= 0 || version_priority > 1000 {
        errs.push(FieldError::invalid(
            spec.child("versionPriority"),
            BadValue::Int(version_priority),
            "must be positive and less than 1000",
        ));
    }
    let ca_bundle = str_at(obj, "/spec/caBundle");
    let insecure = obj.pointer("/spec/insecureSkipTLSVerify") == Some(&Value::Bool(true));
    let Some(service) = obj.pointer("/spec/service").filter(|s| s.is_object()) else {
        if !ca_bundle.is_empty() {
            // The bytes the base64 holds, as Go counts the decoded []byte.
            let bytes = ca_bundle.trim_end_matches('=').len() * 3 / 4;
            errs.push(FieldError::invalid(
                spec.child("caBundle"),
                BadValue::Str(format!("{bytes} bytes")),
                "local APIServices may not have a caBundle",
            ));
        }
        if insecure {
            errs.push(FieldError::invalid(
                spec.child("insecureSkipTLSVerify"),
                BadValue::Bool(true),
                "local APIServices may not have insecureSkipTLSVerify",
            ));
        }
        return;
    };
    for field in ["namespace", "name"] {
        if service
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
        {
            errs.push(FieldError::required(spec.child("service").child(field), ""));
        }
    }
    if insecure && !ca_bundle.is_empty() {
        errs.push(FieldError::invalid(
            spec.child("insecureSkipTLSVerify"),
            BadValue::Bool(true),
            "may not be true if caBundle is present",
        ));
    }
}

fn validate_status(obj: &Value, errs: &mut ErrorList) {
    let conditions = obj.pointer("/status/conditions").and_then(Value::as_array);
    for (i, c) in conditions.into_iter().flatten().enumerate() {
        let status = c.get("status").and_then(Value::as_str).unwrap_or("");
        if !["True", "False", "Unknown"].contains(&status) {
            errs.push(FieldError::not_supported(
                Path::new("status")
                    .child("conditions")
                    .index(i)
                    .child("status"),
                BadValue::Str(status.into()),
                &["True", "False", "Unknown"],
            ));
        }
    }
}

/// The `Available` cell: `True`, or `False (Reason)`.
fn available(obj: &Value) -> Value {
    let condition = obj
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Available"));
    let Some(c) = condition else {
        return json!("Unknown");
    };
    let status = c["status"].as_str().unwrap_or("Unknown");
    match c["reason"].as_str() {
        Some(reason) if status != "True" && !reason.is_empty() => {
            json!(format!("{status} ({reason})"))
        }
        _ => json!(status),
    }
}

impl Printer for ApiServices {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Service",
                "string",
                "The reference to the service that hosts this API endpoint.",
                |o| match o.pointer("/spec/service").filter(|s| s.is_object()) {
                    Some(s) => json!(format!(
                        "{}/{}",
                        s["namespace"].as_str().unwrap_or(""),
                        s["name"].as_str().unwrap_or("")
                    )),
                    None => json!("Local"),
                },
            ),
            Column::computed(
                "Available",
                "string",
                "Whether this service is available.",
                available,
            ),
            Column::builtin_age(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apiservice(name: &str, spec: Value) -> Value {
        json!({"metadata": {"name": name}, "spec": spec})
    }

    #[test]
    fn specs_are_checked_as_kube_aggregator_checks_them() {
        let ok = apiservice(
            "v1.metrics.example.com",
            json!({"group": "metrics.example.com", "version": "v1",
            "groupPriorityMinimum": 100, "versionPriority": 10,
            "service": {"namespace": "ns", "name": "metrics", "port": 443}, "caBundle": "Zm9v"}),
        );
        assert!(errors_of(&ApiServices, &ok, None).is_empty());
        let bad = apiservice(
            "metrics",
            json!({"group": "", "version": "v2", "groupPriorityMinimum": 0,
            "versionPriority": 1001, "caBundle": "Zm9vYmFy", "insecureSkipTLSVerify": true}),
        );
        assert_eq!(
            errors_of(&ApiServices, &bad, None),
            [
                "metadata.name: Invalid value: \"metrics\": must be `spec.version+\".\"+spec.group`: \"v2.\"",
                "spec.group: Required value: only v1 may have an empty group and it better be legacy kube",
                "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
                "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000",
                "spec.caBundle: Invalid value: \"6 bytes\": local APIServices may not have a caBundle",
                "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify",
            ]
        );
    }

    #[test]
    fn the_available_column_carries_the_reason() {
        let status = |s: &str, r: &str| json!({"status": {"conditions": [{"type": "Available", "status": s, "reason": r}]}});
        assert_eq!(available(&status("True", "Passed")), json!("True"));
        assert_eq!(
            available(&status("False", "ServiceNotFound")),
            json!("False (ServiceNotFound)")
        );
        assert_eq!(available(&json!({})), json!("Unknown"));
    }
}
