//! StorageVersionMigrations (storagemigration.k8s.io/v1): which resource to rewrite in
//! its storage version, and the conditions the migrator reports. Validation as
//! `pkg/apis/storagemigration/validation`: the resource is required and immutable, the
//! status' `resourceVersion` is set once, and `Succeeded`, `Failed` and `Running`
//! exclude each other as upstream's status update rules say.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::Value;

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::behaviour::*;

/// StorageVersionMigrations.
pub struct Migrations;

defaults!(Migrations: Defaulter, Printer, Deleter, AllocateStrategy);

impl Preparer for Migrations {
    /// The strategy's generation: 1, then one more for each spec change (the
    /// conditions' `observedGeneration`).
    fn prepare_for_create(&self, obj: &mut Value) {
        crate::api::object::meta_mut(obj).insert("generation".into(), serde_json::json!(1));
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        if sub == Subresource::Main && new.get("spec") != old.get("spec") {
            crate::api::object::bump_generation(new, old);
        }
    }
}

impl Serving for Migrations {
    fn served_in(&self, v: crd_runtime::KubeVersion) -> bool {
        v.at_least(37)
    }
}

/// Whether the condition `kind` of a migration is `True`.
pub fn condition_true(obj: &Value, kind: &str) -> bool {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == kind && c["status"] == "True")
        })
}

fn text<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

impl Validator for Migrations {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        validate_spec(obj, old, errs);
    }

    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        if cx.sub == Subresource::Status {
            validate_status_update(obj, cx.old, errs);
        } else {
            validate_spec(obj, cx.old, errs);
        }
    }
}

fn validate_spec(obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
    let resource = Path::new("spec").child("resource");
    if text(obj, "/spec/resource/resource").is_empty() {
        errs.push(FieldError::required(
            resource.child("resource"),
            "resource is required",
        ));
    }
    let Some(old) = old else { return };
    // Upstream names these fields without their `spec.resource` prefix.
    for field in ["group", "resource"] {
        let pointer = format!("/spec/resource/{field}");
        let now = text(obj, &pointer);
        if now != text(old, &pointer) {
            errs.push(FieldError::invalid(
                Path::new(field),
                BadValue::Str(now.into()),
                "field is immutable",
            ));
        }
    }
}

fn validate_status_update(obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
    let Some(old) = old else { return };
    let status = Path::new("status");
    let (rv, old_rv) = (
        text(obj, "/status/resourceVersion"),
        text(old, "/status/resourceVersion"),
    );
    if !rv.is_empty() && rv.parse::<u64>().is_err() {
        errs.push(FieldError::invalid(
            status.child("resourceVersion"),
            BadValue::Str(rv.into()),
            format!("failed to parse resource version \"{rv}\": invalid syntax"),
        ));
    }
    if !old_rv.is_empty() && old_rv != rv {
        errs.push(FieldError::invalid(
            status.child("resourceVersion"),
            BadValue::Str(rv.into()),
            "resourceVersion cannot be updated",
        ));
    }
    let (succeeded, failed, running) = (
        condition_true(obj, "Succeeded"),
        condition_true(obj, "Failed"),
        condition_true(obj, "Running"),
    );
    let conditions = status.child("conditions");
    let mut refuse = |message: &str| {
        errs.push(FieldError::invalid(
            conditions.clone(),
            BadValue::Json(
                obj.pointer("/status/conditions")
                    .cloned()
                    .unwrap_or(Value::Null),
            ),
            message,
        ));
    };
    if succeeded && failed {
        refuse("Both success and failed conditions cannot be true at the same time");
    }
    if succeeded && running {
        refuse("Running condition cannot be true when success condition is true");
    }
    if failed && running {
        refuse("Running condition cannot be true when failed condition is true");
    }
    if condition_true(old, "Succeeded") && !succeeded {
        refuse("Success condition cannot be set to false once it is true");
    }
    if condition_true(old, "Failed") && !failed {
        refuse("Failed condition cannot be set to false once it is true");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn migration(resource: &str, conditions: Value, rv: &str) -> Value {
        json!({"spec": {"resource": {"group": "stable.example.com", "resource": resource}},
               "status": {"conditions": conditions, "resourceVersion": rv}})
    }

    #[test]
    fn the_resource_is_required_and_immutable() {
        assert_eq!(
            errors_of(&Migrations, &migration("", json!([]), ""), None),
            ["spec.resource.resource: Required value: resource is required"]
        );
        let old = migration("crontabs", json!([]), "");
        assert_eq!(
            errors_of(&Migrations, &migration("gizmos", json!([]), ""), Some(&old)),
            ["resource: Invalid value: \"gizmos\": field is immutable"]
        );
    }

    #[test]
    fn status_updates_keep_the_resource_version_and_exclusive_conditions() {
        let mut errs = ErrorList::new();
        let t = |kind: &str, status: &str| json!({"type": kind, "status": status});
        let old = migration("crontabs", json!([t("Succeeded", "True")]), "7");
        let new = migration(
            "crontabs",
            json!([
                t("Succeeded", "False"),
                t("Running", "True"),
                t("Failed", "True")
            ]),
            "8",
        );
        validate_status_update(&new, Some(&old), &mut errs);
        let strings = errs.strings();
        assert_eq!(strings.len(), 3, "{strings:?}");
        assert_eq!(
            strings[0],
            "status.resourceVersion: Invalid value: \"8\": resourceVersion cannot be updated"
        );
        assert!(
            strings[1].ends_with("Running condition cannot be true when failed condition is true")
        );
        assert!(strings[2].ends_with("Success condition cannot be set to false once it is true"));
    }
}
