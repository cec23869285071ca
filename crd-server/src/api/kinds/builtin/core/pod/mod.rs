//! core/v1 Pods as kube-apiserver's pod strategy treats them: `SetDefaults_Pod` and
//! the PodSpec defaults, generation 1 on create and +1 on spec changes, a new pod's
//! status (`Pending` and its QoS class), `ValidatePodCreate` / `ValidatePodUpdate`
//! (the spec is immutable but for images, `activeDeadlineSeconds` and added
//! tolerations), and what the `status`, `ephemeralcontainers` and `resize`
//! endpoints may change.

pub mod eviction;
#[cfg(test)]
mod eviction_tests;
pub mod printers;
pub mod subresources;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::Validation;
use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::core::podspec::containers::images_for_pod;
use crate::api::kinds::builtin::core::podspec::{arr, defaults, validate_spec};
use crate::api::kinds::builtin::quantity::Quantity;
use crate::api::object::meta_mut;
use crate::api::table::Column;

/// What `ValidatePodUpdate` lets a client change in a pod's spec.
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// `qos.GetPodQOS` from the containers' cpu and memory requests and limits.
pub fn qos_class(spec: &Value) -> &'static str {
    let mut requests: Vec<(String, Quantity)> = Vec::new();
    let mut limits: Vec<(String, Quantity)> = Vec::new();
    let mut guaranteed = true;
    let add = |sum: &mut Vec<(String, Quantity)>, name: &str, q: Quantity| match sum
        .iter_mut()
        .find(|(n, _)| n == name)
    {
        Some((_, total)) => *total = total.add(&q),
        None => sum.push((name.to_string(), q)),
    };
    let positive = |list: Option<&Value>| -> Vec<(String, Quantity)> {
        list.and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(n, _)| *n == "cpu" || *n == "memory")
            .filter_map(|(n, v)| Some((n.clone(), Quantity::from_json(v)?)))
            .filter(|(_, q)| !q.is_zero() && !q.is_negative())
            .collect()
    };
    for c in arr(spec, "containers")
        .iter()
        .chain(arr(spec, "initContainers"))
    {
        for (n, q) in positive(c.pointer("/resources/requests")) {
            add(&mut requests, &n, q);
        }
        let found = positive(c.pointer("/resources/limits"));
        if !(found.iter().any(|(n, _)| n == "cpu") && found.iter().any(|(n, _)| n == "memory")) {
            guaranteed = false;
        }
        for (n, q) in found {
            add(&mut limits, &n, q);
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    if guaranteed
        && requests
            .iter()
            .all(|(n, r)| limits.iter().any(|(m, l)| m == n && l == r))
        && requests.len() == limits.len()
    {
        return "Guaranteed";
    }
    "Burstable"
}

/// `updatePodGeneration`: +1 when the spec changed.
fn update_generation(new: &mut Value, old: &Value) {
    if new.get("spec") != old.get("spec") {
        crate::api::object::bump_generation(new, old);
    }
}

/// `metav1.ResetObjectMetaForStatus`: a subresource keeps the object's labels,
/// annotations, finalizers and owners.
pub fn reset_meta_for_status(new: &mut Value, old: &Value) {
    for field in ["labels", "annotations", "finalizers", "ownerReferences"] {
        let value = old.pointer(&format!("/metadata/{field}")).cloned();
        let meta = meta_mut(new);
        match value {
            Some(v) => meta.insert(field.into(), v),
            None => meta.remove(field),
        };
    }
}

/// The spec an update would have if it changed only what may change (`mungedPodSpec`).
fn munged_spec(new: &Value, old: &Value) -> Value {
    let mut spec = new.clone();
    for list in ["containers", "initContainers"] {
        let old_list = arr(old, list);
        if let Some(items) = spec.get_mut(list).and_then(Value::as_array_mut)
            && items.len() == old_list.len()
        {
            for (c, o) in items.iter_mut().zip(old_list) {
                if c.is_object() {
                    c["image"] = o.get("image").cloned().unwrap_or(Value::Null);
                }
            }
        }
    }
    for field in ["activeDeadlineSeconds", "tolerations"] {
        match old.get(field) {
            Some(v) => spec[field] = v.clone(),
            None => {
                if let Value::Object(m) = &mut spec {
                    m.remove(field);
                }
            }
        }
    }
    let old_grace = old
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64);
    if old_grace.is_some_and(|g| g < 0)
        && spec.get("terminationGracePeriodSeconds") == Some(&json!(1))
    {
        spec["terminationGracePeriodSeconds"] = json!(old_grace);
    }
    spec
}

/// The fields two specs differ in, a `-`/`+` line pair each (the server prints
/// go-cmp's diff of the Go structs here, which JSON cannot reproduce).
fn spec_diff(old: &Value, new: &Value) -> String {
    let mut lines = Vec::new();
    json_diff(old, new, "spec", &mut lines);
    lines.join("\n")
}

fn json_diff(old: &Value, new: &Value, path: &str, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let (x, y) = (
                    a.get(k).unwrap_or(&Value::Null),
                    b.get(k).unwrap_or(&Value::Null),
                );
                json_diff(x, y, &format!("{path}.{k}"), out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                json_diff(x, y, &format!("{path}[{i}]"), out);
            }
        }
        _ if old != new => {
            out.push(format!("- \t{path}: {old}"));
            out.push(format!("+ \t{path}: {new}"));
        }
        _ => {}
    }
}

/// `ValidatePodUpdate`'s spec rules.
fn update_rules(new: &Value, old: &Value, errs: &mut ErrorList) {
    let spec_path = Path::new("spec");
    let empty = Value::Null;
    let new_spec = new.get("spec").unwrap_or(&empty);
    let old_spec = old.get("spec").unwrap_or(&empty);
    let deadline = spec_path.child("activeDeadlineSeconds");
    match (
        new_spec
            .get("activeDeadlineSeconds")
            .and_then(Value::as_i64),
        old_spec
            .get("activeDeadlineSeconds")
            .and_then(Value::as_i64),
    ) {
        (Some(n), _) if !(0..=i64::from(i32::MAX)).contains(&n) => {
            errs.push(FieldError::invalid(
                deadline,
                BadValue::Int(n),
                "must be between 0 and 2147483647, inclusive",
            ));
            return;
        }
        (Some(n), Some(o)) if o < n => {
            errs.push(FieldError::invalid(
                deadline,
                BadValue::Int(n),
                "must be less than or equal to previous value",
            ));
            return;
        }
        (None, Some(_)) => errs.push(FieldError::invalid(
            deadline,
            BadValue::Json(Value::Null),
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }
    let old_tolerations = arr(old_spec, "tolerations");
    let new_tolerations = arr(new_spec, "tolerations");
    let only_added = old_tolerations.iter().all(|t| new_tolerations.contains(t));
    let mut munged = munged_spec(new_spec, old_spec);
    if !only_added {
        munged["tolerations"] = json!(new_tolerations);
    }
    if &munged != old_spec {
        errs.push(FieldError::forbidden(
            spec_path,
            format!(
                "pod updates may not change fields other than {UPDATABLE}\n{}",
                spec_diff(old_spec, &munged)
            ),
        ));
    }
}

/// `ValidatePodEphemeralContainersUpdate`: existing ephemeral containers stay as they are.
fn ephemeral_rules(new: &Value, old: &Value, errs: &mut ErrorList) {
    let path = Path::new("spec").child("ephemeralContainers");
    let new_list = new.pointer("/spec/ephemeralContainers");
    let new_list = new_list
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for o in old
        .pointer("/spec/ephemeralContainers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = o.get("name").and_then(Value::as_str).unwrap_or("");
        match new_list.iter().find(|c| c.get("name") == o.get("name")) {
            None => errs.push(FieldError::forbidden(
                path.clone(),
                format!("existing ephemeral containers \"{name}\" may not be removed\n"),
            )),
            Some(c) if c != o => errs.push(FieldError::forbidden(
                path.clone(),
                format!("existing ephemeral containers \"{name}\" may not be changed\n"),
            )),
            Some(_) => {}
        }
    }
}

/// Pods.
pub struct Pods;

defaults!(Pods: Serving, AllocateStrategy);

impl Deleter for Pods {
    /// `podStrategy.CheckGracefulDelete`: the grace period asked for, else the pod's
    /// `terminationGracePeriodSeconds`; none for a pod no node runs or one finished.
    fn grace_period(&self, obj: &Value, requested: Option<i64>) -> Option<i64> {
        let mut period = requested
            .or_else(|| {
                obj.pointer("/spec/terminationGracePeriodSeconds")
                    .and_then(Value::as_i64)
            })
            .unwrap_or(0);
        let phase = obj.pointer("/status/phase").and_then(Value::as_str);
        let unscheduled = obj
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        if unscheduled || matches!(phase, Some("Failed" | "Succeeded")) {
            period = 0;
        }
        if period < 0 {
            period = 1;
        }
        Some(period)
    }
}

impl Defaulter for Pods {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) {
            defaults::pod(spec);
            defaults::pod_spec(spec)?;
        }
        Ok(())
    }
}

impl Validator for Pods {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        self.validate_with(obj, &Validation::main(old), errs)
    }

    fn validate_with(&self, obj: &Value, cx: &Validation<'_>, errs: &mut ErrorList) {
        let old = cx.old;
        let sub = cx.sub;
        let path = Path::new("spec");
        let empty = Value::Null;
        let spec = obj.get("spec").unwrap_or(&empty);
        match (old, sub) {
            (None, _) => {
                validate_spec(spec, &path, errs);
                images_for_pod(spec, "containers", &path.child("containers"), errs);
                images_for_pod(spec, "initContainers", &path.child("initContainers"), errs);
                if !arr(spec, "ephemeralContainers").is_empty() {
                    errs.push(FieldError::forbidden(
                        path.child("ephemeralContainers"),
                        "cannot be set on create",
                    ));
                }
            }
            (Some(old), Subresource::Main) => {
                validate_spec(spec, &path, errs);
                images_for_pod(spec, "containers", &path.child("containers"), errs);
                images_for_pod(spec, "initContainers", &path.child("initContainers"), errs);
                update_rules(obj, old, errs);
            }
            (Some(old), Subresource::EphemeralContainers) => {
                validate_spec(spec, &path, errs);
                ephemeral_rules(obj, old, errs);
            }
            (Some(old), Subresource::Resize) => {
                validate_spec(spec, &path, errs);
                let old_spec = old.get("spec").unwrap_or(&empty);
                if qos_class(spec) != qos_class(old_spec) {
                    errs.push(FieldError::invalid(
                        Path::new("metadata"),
                        BadValue::Str(qos_class(spec).into()),
                        "Pod QOS Class may not change as a result of resizing",
                    ));
                }
            }
            // The status endpoint keeps the spec, which was valid.
            (Some(_), _) => {}
        }
    }
}

impl Preparer for Pods {
    fn prepare_for_create(&self, obj: &mut Value) {
        meta_mut(obj).insert("generation".into(), json!(1));
        let qos = qos_class(obj.get("spec").unwrap_or(&Value::Null));
        obj["status"] = json!({"phase": "Pending", "qosClass": qos});
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        match sub {
            Subresource::Status => {
                reset_owners(new, old);
                let qos = old.pointer("/status/qosClass").cloned();
                if new.pointer("/status/qosClass").is_none_or(|q| q == "")
                    && let Some(q) = qos
                    && new.get("status").is_some_and(Value::is_object)
                {
                    new["status"]["qosClass"] = q;
                }
            }
            Subresource::EphemeralContainers => {
                let ephemeral = new.pointer("/spec/ephemeralContainers").cloned();
                new["spec"] = old.get("spec").cloned().unwrap_or(json!({}));
                if let Some(e) = ephemeral {
                    new["spec"]["ephemeralContainers"] = e;
                } else if let Some(m) = new["spec"].as_object_mut() {
                    m.remove("ephemeralContainers");
                }
                reset_meta_for_status(new, old);
                update_generation(new, old);
            }
            Subresource::Resize => {
                keep_resize_only(new, old);
                reset_meta_for_status(new, old);
                update_generation(new, old);
            }
            _ => update_generation(new, old),
        }
    }
}

impl Printer for Pods {
    fn columns(&self) -> Vec<Column> {
        printers::pod()
    }
}

/// The status endpoint may not change owners (old kubelets corrupted them).
fn reset_owners(new: &mut Value, old: &Value) {
    let owners = old.pointer("/metadata/ownerReferences").cloned();
    let meta = meta_mut(new);
    match owners {
        Some(o) => meta.insert("ownerReferences".into(), o),
        None => meta.remove("ownerReferences"),
    };
}

/// `dropNonResizeUpdates`: only containers' `resources` and `resizePolicy` change
/// (unless containers were added, removed or renamed, which validation refuses).
fn keep_resize_only(new: &mut Value, old: &Value) {
    let empty = Value::Null;
    let old_spec = old.get("spec").unwrap_or(&empty);
    let new_spec = new.get("spec").cloned().unwrap_or(json!({}));
    let mut spec = old_spec.clone();
    for list in ["containers", "initContainers"] {
        let (n, o) = (arr(&new_spec, list), arr(old_spec, list));
        if n.len() != o.len() || n.iter().zip(o).any(|(a, b)| a.get("name") != b.get("name")) {
            return;
        }
        for (i, c) in n.iter().enumerate() {
            for field in ["resources", "resizePolicy"] {
                match c.get(field) {
                    Some(v) => spec[list][i][field] = v.clone(),
                    None => {
                        if let Some(m) = spec[list][i].as_object_mut() {
                            m.remove(field);
                        }
                    }
                }
            }
        }
    }
    new["spec"] = spec;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(resources: Value) -> Value {
        json!({"containers": [{"name": "a", "image": "x", "resources": resources}]})
    }

    #[test]
    fn qos_classes_follow_requests_and_limits() {
        assert_eq!(qos_class(&pod(json!({}))), "BestEffort");
        assert_eq!(
            qos_class(&pod(json!({"requests": {"cpu": "100m"}}))),
            "Burstable"
        );
        let both = json!({"cpu": "1", "memory": "1Gi"});
        assert_eq!(
            qos_class(&pod(json!({"requests": both, "limits": both}))),
            "Guaranteed"
        );
    }

    #[test]
    fn pod_specs_are_immutable_but_for_images() {
        let old = json!({"spec": {"containers": [{"name": "a", "image": "x:1"}], "restartPolicy": "Always"}});
        let mut errs = ErrorList::new();
        let mut image = old.clone();
        image["spec"]["containers"][0]["image"] = json!("x:2");
        update_rules(&image, &old, &mut errs);
        assert!(errs.is_empty(), "{:?}", errs.strings());
        let mut policy = old.clone();
        policy["spec"]["restartPolicy"] = json!("Never");
        update_rules(&policy, &old, &mut errs);
        let out = errs.strings();
        assert!(
            out[0].starts_with(&format!(
                "spec: Forbidden: pod updates may not change fields other than {UPDATABLE}\n"
            )),
            "{out:?}"
        );
    }

    #[test]
    fn a_new_pod_is_pending_with_generation_one() {
        let mut p = json!({"metadata": {"name": "p"}, "spec": pod(json!({}))});
        Pods.prepare_for_create(&mut p);
        assert_eq!(
            p["status"],
            json!({"phase": "Pending", "qosClass": "BestEffort"})
        );
        assert_eq!(p["metadata"]["generation"], 1);
    }
}
