//! The container checks of core validation (`validateContainers`,
//! `validateContainerCommon`): names, ports, env, volume mounts, pull and termination
//! message policies, resource requirements and probes, with the server's messages.

use std::collections::HashSet;

use crd_runtime::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use crd_runtime::names::dns1123_label;
use serde_json::{Map, Value};

use crate::api::kinds::builtin::checks::{one_of, port_name_messages, port_number};
use crate::api::kinds::builtin::core::podspec::{arr, text};
use crate::api::kinds::builtin::quantity::Quantity;

/// `ValidateDNS1123Label` of a required name.
pub fn name_label(name: &str, path: Path, errs: &mut ErrorList) {
    if name.is_empty() {
        errs.push(FieldError::required(path, ""));
        return;
    }
    for m in dns1123_label(name) {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            m,
        ));
    }
}

fn ports(c: &Value, path: &Path, errs: &mut ErrorList) {
    let mut names = HashSet::new();
    for (i, p) in arr(c, "ports").iter().enumerate() {
        let at = path.index(i);
        let name = text(p, "name");
        if !name.is_empty() {
            for m in port_name_messages(name) {
                errs.push(FieldError::invalid(
                    at.child("name"),
                    BadValue::Str(name.into()),
                    m,
                ));
            }
            if !names.insert(name) {
                errs.push(FieldError::duplicate(
                    at.child("name"),
                    BadValue::Str(name.into()),
                ));
            }
        }
        let port = p.get("containerPort").and_then(Value::as_i64).unwrap_or(0);
        if port == 0 {
            errs.push(FieldError::required(at.child("containerPort"), ""));
        } else {
            port_number(port, at.child("containerPort"), errs);
        }
        let host = p.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
        if host != 0 {
            port_number(host, at.child("hostPort"), errs);
        }
        one_of(
            text(p, "protocol"),
            &["SCTP", "TCP", "UDP"],
            at.child("protocol"),
            errs,
        );
    }
}

/// `ValidateEnv` with the relaxed name rule every served release has on.
fn env(c: &Value, path: &Path, errs: &mut ErrorList) {
    for (i, e) in arr(c, "env").iter().enumerate() {
        let at = path.index(i).child("name");
        let name = text(e, "name");
        if name.is_empty() {
            errs.push(FieldError::required(at.clone(), ""));
            errs.push(FieldError::invalid(
                at,
                BadValue::Str(String::new()),
                "environment variable name must be non-empty",
            ));
        } else if name
            .chars()
            .any(|ch| !(' '..='~').contains(&ch) || ch == '=')
        {
            errs.push(FieldError::invalid(
                at,
                BadValue::Str(name.into()),
                "a valid environment variable name must consist only of printable ASCII characters other than '='",
            ));
        }
    }
}

/// `ValidateVolumeMounts`: each names a volume of the pod, mount paths unique.
fn volume_mounts(c: &Value, volumes: &HashSet<String>, path: &Path, errs: &mut ErrorList) {
    let mut mount_paths = HashSet::new();
    for (i, m) in arr(c, "volumeMounts").iter().enumerate() {
        let at = path.index(i);
        let name = text(m, "name");
        if name.is_empty() {
            errs.push(FieldError::required(at.child("name"), ""));
        }
        if !volumes.contains(name) {
            errs.push(FieldError::new(
                ErrorType::NotFound,
                at.child("name"),
                BadValue::Str(name.into()),
                "",
            ));
        }
        let mount_path = text(m, "mountPath");
        if mount_path.is_empty() {
            errs.push(FieldError::required(at.child("mountPath"), ""));
        }
        if !mount_paths.insert(mount_path) {
            errs.push(FieldError::invalid(
                at.child("mountPath"),
                BadValue::Str(mount_path.into()),
                "must be unique",
            ));
        }
    }
}

/// Whether requests may be below limits (`IsOvercommitAllowed`: native, not hugepages).
fn overcommit_allowed(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    native && !name.starts_with("hugepages-")
}

fn standard_container_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage")
        || name.starts_with("hugepages-")
        || name.contains('/')
}

fn resource_list<'a>(
    list: Option<&'a Map<String, Value>>,
    path: &Path,
    errs: &mut ErrorList,
) -> Vec<(&'a str, Quantity)> {
    let mut out = Vec::new();
    for (name, v) in list.into_iter().flatten() {
        let at = path.key(name);
        if !standard_container_resource(name) {
            errs.push(FieldError::invalid(
                at.clone(),
                BadValue::Str(name.clone()),
                "must be a standard resource for containers",
            ));
        }
        let Some(q) = Quantity::from_json(v) else {
            continue;
        };
        if q.is_negative() {
            errs.push(FieldError::invalid(
                at,
                BadValue::Str(q.canonical()),
                "must be greater than or equal to 0",
            ));
        }
        out.push((name.as_str(), q));
    }
    out
}

/// `ValidateContainerResourceRequirements` (and a pod's own `resources`).
pub fn resources(r: Option<&Value>, path: &Path, errs: &mut ErrorList) {
    let Some(r) = r else { return };
    let lim_path = path.child("limits");
    let req_path = path.child("requests");
    let limits = resource_list(r.get("limits").and_then(Value::as_object), &lim_path, errs);
    let requests = resource_list(
        r.get("requests").and_then(Value::as_object),
        &req_path,
        errs,
    );
    for (name, request) in &requests {
        match limits.iter().find(|(n, _)| n == name) {
            Some((_, limit)) if !overcommit_allowed(name) && request != limit => {
                errs.push(FieldError::invalid(
                    req_path.clone(),
                    BadValue::Str(request.canonical()),
                    format!("must be equal to {name} limit of {}", limit.canonical()),
                ));
            }
            Some((_, limit)) if request > limit => errs.push(FieldError::invalid(
                req_path.clone(),
                BadValue::Str(request.canonical()),
                format!(
                    "must be less than or equal to {name} limit of {}",
                    limit.canonical()
                ),
            )),
            None if !overcommit_allowed(name) => errs.push(FieldError::required(
                lim_path.clone(),
                "Limit must be set for non overcommitable resources",
            )),
            _ => {}
        }
    }
}

const HANDLERS: [&str; 5] = ["exec", "httpGet", "tcpSocket", "grpc", "sleep"];

/// `validateHandler`: exactly one handler type.
fn handler(h: &Value, path: &Path, errs: &mut ErrorList) {
    let mut count = 0;
    for kind in HANDLERS {
        if h.get(kind).is_some_and(|v| !v.is_null()) {
            if count > 0 {
                errs.push(FieldError::forbidden(
                    path.child(kind),
                    "may not specify more than 1 handler type",
                ));
            }
            count += 1;
        }
    }
    if count == 0 {
        errs.push(FieldError::required(
            path.clone(),
            "must specify a handler type",
        ));
    }
}

fn probe(c: &Value, field: &str, path: &Path, errs: &mut ErrorList) {
    let Some(p) = c.get(field).filter(|p| p.is_object()) else {
        return;
    };
    let at = path.child(field);
    handler(p, &at, errs);
    for f in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ] {
        if let Some(n) = p.get(f).and_then(Value::as_i64).filter(|n| *n < 0) {
            errs.push(FieldError::invalid(
                at.child(f),
                BadValue::Int(n),
                "must be greater than or equal to 0",
            ));
        }
    }
    let success = p.get("successThreshold").and_then(Value::as_i64);
    if field != "readinessProbe"
        && let Some(n) = success.filter(|n| *n != 1)
    {
        errs.push(FieldError::invalid(
            at.child("successThreshold"),
            BadValue::Int(n),
            "must be 1",
        ));
    }
}

/// Whether a container is a regular one, an init container or an ephemeral one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Regular,
    Init,
    Ephemeral,
}

/// `validateContainers` / `validateInitContainers` / the ephemeral ones: `names` holds
/// the names seen so far in the pod (names are unique across all lists).
pub fn containers(
    spec: &Value,
    list: &str,
    role: Role,
    volumes: &HashSet<String>,
    names: &mut HashSet<String>,
    path: &Path,
    errs: &mut ErrorList,
) {
    let items = arr(spec, list);
    if role == Role::Regular && items.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
    }
    for (i, c) in items.iter().enumerate() {
        let at = path.index(i);
        let name = text(c, "name");
        name_label(name, at.child("name"), errs);
        if !name.is_empty() && !names.insert(name.to_string()) {
            errs.push(FieldError::duplicate(
                at.child("name"),
                BadValue::Str(name.into()),
            ));
        }
        one_of(
            text(c, "terminationMessagePolicy"),
            &["File", "FallbackToLogsOnError"],
            at.child("terminationMessagePolicy"),
            errs,
        );
        ports(c, &at.child("ports"), errs);
        env(c, &at.child("env"), errs);
        volume_mounts(c, volumes, &at.child("volumeMounts"), errs);
        one_of(
            text(c, "imagePullPolicy"),
            &["Always", "IfNotPresent", "Never"],
            at.child("imagePullPolicy"),
            errs,
        );
        resources(c.get("resources"), &at.child("resources"), errs);
        if role == Role::Regular {
            for p in ["livenessProbe", "readinessProbe", "startupProbe"] {
                probe(c, p, &at, errs);
            }
        }
    }
}

/// `validateContainersOnlyForPod`: a Pod's containers need an image without
/// surrounding spaces (templates may leave it to a later step).
pub fn images_for_pod(spec: &Value, list: &str, path: &Path, errs: &mut ErrorList) {
    for (i, c) in arr(spec, list).iter().enumerate() {
        let at = path.index(i).child("image");
        let image = text(c, "image");
        if image.is_empty() {
            errs.push(FieldError::required(at, ""));
        } else if image.trim() != image {
            errs.push(FieldError::invalid(
                at,
                BadValue::Str(image.into()),
                "must not have leading or trailing whitespace",
            ));
        }
    }
}
