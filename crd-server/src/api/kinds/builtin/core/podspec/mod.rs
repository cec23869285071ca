//! What Pods and every pod template share: the PodSpec's defaults ([`defaults`]) and
//! the important part of `ValidatePodSpec` / `ValidatePodTemplateSpec` ([`containers`]
//! and the pod-level checks here), with core validation's messages and paths.

pub mod containers;
pub mod defaults;

use std::collections::HashSet;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::{dns1123_label, dns1123_subdomain};
use serde_json::Value;

use crate::api::kinds::builtin::checks::one_of;
use crate::api::selectors::label::validate_labels;
use containers::{Role, name_label};

/// The array at `field` (empty when absent).
pub fn arr<'a>(obj: &'a Value, field: &str) -> &'a [Value] {
    obj.get(field)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The string at `field` (empty when absent).
pub fn text<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj.get(field).and_then(Value::as_str).unwrap_or("")
}

/// The name field of a volume source that must be set (`secretName`, `claimName`, …).
const REQUIRED_SOURCE_NAMES: [(&str, &str); 4] = [
    ("secret", "secretName"),
    ("configMap", "name"),
    ("persistentVolumeClaim", "claimName"),
    ("hostPath", "path"),
];

/// `ValidateVolumes`: the names of the valid volumes.
fn volumes(spec: &Value, path: &Path, errs: &mut ErrorList) -> HashSet<String> {
    let mut names = HashSet::new();
    for (i, v) in arr(spec, "volumes").iter().enumerate() {
        let at = path.index(i);
        let mut el = ErrorList::new();
        let sources = defaults::volume_sources(v);
        if sources.is_empty() {
            el.push(FieldError::required(
                at.clone(),
                "must specify a volume type",
            ));
        }
        for extra in sources.iter().skip(1) {
            el.push(FieldError::forbidden(
                at.child(extra),
                "may not specify more than 1 volume type",
            ));
        }
        for (source, field) in REQUIRED_SOURCE_NAMES {
            if let Some(s) = v.get(source).filter(|s| s.is_object())
                && text(s, field).is_empty()
            {
                el.push(FieldError::required(at.child(source).child(field), ""));
            }
        }
        let name = text(v, "name");
        name_label(name, at.child("name"), &mut el);
        if names.contains(name) {
            el.push(FieldError::duplicate(
                at.child("name"),
                BadValue::Str(name.into()),
            ));
        }
        if el.is_empty() {
            names.insert(name.to_string());
        } else {
            errs.extend(el);
        }
    }
    names
}

fn optional_label(spec: &Value, field: &str, path: &Path, errs: &mut ErrorList) {
    optional_name(spec, field, dns1123_label, path, errs);
}

fn optional_subdomain(spec: &Value, field: &str, path: &Path, errs: &mut ErrorList) {
    optional_name(spec, field, dns1123_subdomain, path, errs);
}

/// The messages `check` gives the name at `field`, when it is set.
fn optional_name(
    spec: &Value,
    field: &str,
    check: fn(&str) -> Vec<String>,
    path: &Path,
    errs: &mut ErrorList,
) {
    let value = text(spec, field);
    if value.is_empty() {
        return;
    }
    for m in check(value) {
        errs.push(FieldError::invalid(
            path.child(field),
            BadValue::Str(value.into()),
            m,
        ));
    }
}

/// `ValidatePodSpec`'s important checks.
pub fn validate_spec(spec: &Value, path: &Path, errs: &mut ErrorList) {
    let vols = volumes(spec, &path.child("volumes"), errs);
    let mut names = HashSet::new();
    for (list, role) in [
        ("containers", Role::Regular),
        ("initContainers", Role::Init),
        ("ephemeralContainers", Role::Ephemeral),
    ] {
        containers::containers(spec, list, role, &vols, &mut names, &path.child(list), errs);
    }
    one_of(
        text(spec, "restartPolicy"),
        &["Always", "OnFailure", "Never"],
        path.child("restartPolicy"),
        errs,
    );
    one_of(
        text(spec, "dnsPolicy"),
        &["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"],
        path.child("dnsPolicy"),
        errs,
    );
    validate_labels(
        spec.get("nodeSelector").and_then(Value::as_object),
        &path.child("nodeSelector"),
        errs,
    );
    optional_subdomain(spec, "serviceAccountName", path, errs);
    optional_subdomain(spec, "nodeName", path, errs);
    if let Some(d) = spec.get("activeDeadlineSeconds").and_then(Value::as_i64)
        && !(1..=i64::from(i32::MAX)).contains(&d)
    {
        errs.push(FieldError::invalid(
            path.child("activeDeadlineSeconds"),
            BadValue::Int(d),
            "must be between 1 and 2147483647, inclusive",
        ));
    }
    optional_label(spec, "hostname", path, errs);
    optional_label(spec, "subdomain", path, errs);
    optional_subdomain(spec, "priorityClassName", path, errs);
    containers::resources(spec.get("resources"), &path.child("resources"), errs);
}

/// `ValidatePodTemplateSpec` (labels are reported at `<template>.labels`, as the
/// server names them).
pub fn validate_template(template: &Value, path: &Path, errs: &mut ErrorList) {
    validate_labels(
        defaults::template_labels(template),
        &path.child("labels"),
        errs,
    );
    let empty = Value::Null;
    let spec = template.get("spec").unwrap_or(&empty);
    validate_spec(spec, &path.child("spec"), errs);
    if !arr(spec, "ephemeralContainers").is_empty() {
        errs.push(FieldError::forbidden(
            path.child("spec").child("ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
}

/// The containers of a template or spec, as the printers list them: names, images.
pub fn containers_and_images(spec: Option<&Value>) -> (String, String) {
    let list = spec.map(|s| arr(s, "containers")).unwrap_or(&[]);
    let names: Vec<&str> = list.iter().map(|c| text(c, "name")).collect();
    let images: Vec<&str> = list.iter().map(|c| text(c, "image")).collect();
    (names.join(","), images.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(spec: Value) -> Vec<String> {
        let mut spec = spec;
        defaults::pod_spec(&mut spec).unwrap();
        let mut errs = ErrorList::new();
        validate_spec(&spec, &Path::new("spec"), &mut errs);
        errs.strings()
    }

    #[test]
    fn containers_are_required_and_named() {
        assert_eq!(check(json!({})), ["spec.containers: Required value"]);
        let out = check(
            json!({"containers": [{"name": "Web", "image": "x"}, {"name": "b", "image": "x"}, {"name": "b", "image": "y"}]}),
        );
        assert!(
            out[0].starts_with(
                "spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label"
            ),
            "{out:?}"
        );
        assert_eq!(out[1], "spec.containers[2].name: Duplicate value: \"b\"");
    }

    #[test]
    fn ports_env_mounts_and_resources_use_the_servers_words() {
        let out = check(json!({"containers": [{"name": "a", "image": "x",
            "ports": [{"containerPort": 70000, "protocol": "ICMP"}],
            "env": [{"name": "A=B"}],
            "volumeMounts": [{"name": "data", "mountPath": "/d"}],
            "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "2"}}}],
            "restartPolicy": "Sometimes"}));
        assert_eq!(
            out,
            [
                "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
                "spec.containers[0].volumeMounts[0].name: Not found: \"data\"",
                "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1",
                "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
            ]
        );
        let out = check(
            json!({"containers": [{"name": "a", "image": "x"}], "volumes": [{"name": "v", "emptyDir": {}, "secret": {"secretName": "s"}}]}),
        );
        assert_eq!(
            out,
            ["spec.volumes[0].secret: Forbidden: may not specify more than 1 volume type"]
        );
    }
}
