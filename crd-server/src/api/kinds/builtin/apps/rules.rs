//! What the workload kinds (apps/v1 and batch/v1) share: semantic equality (nil and
//! empty alike), generation bumps, statuses as their strategies reset them, int-or-
//! percent checks and `ValidatePodTemplateSpecForReplicaSet`-style template checks.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::checks::invalid_go as invalid_rendered;
use crate::api::kinds::builtin::core::podspec::defaults::template_labels;
use crate::api::kinds::builtin::core::podspec::validate_template;
use crate::api::object::meta_mut;
use crate::api::selectors::label::{self as selector, go_string_map};

/// `apiequality.Semantic.DeepEqual` on JSON: absent, null and empty maps or lists are
/// the same value.
pub fn semantic_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    fn empty(v: Option<&Value>) -> bool {
        match v {
            None | Some(Value::Null) => true,
            Some(Value::Object(m)) => m.is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            _ => false,
        }
    }
    match (a, b) {
        _ if empty(a) && empty(b) => true,
        (Some(Value::Object(x)), Some(Value::Object(y))) => x
            .keys()
            .chain(y.keys())
            .all(|k| semantic_eq(x.get(k), y.get(k))),
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| semantic_eq(Some(p), Some(q)))
        }
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Generation 1 and the status a new object starts with (`PrepareForCreate`).
pub fn created(obj: &mut Value, status: Value) {
    meta_mut(obj).insert("generation".into(), json!(1));
    obj["status"] = status;
}

/// Fills the status fields Go always writes (non-`omitempty` integers) with 0.
pub fn status_zeros(obj: &mut Value, fields: &[&str]) {
    if let Some(status) = obj.get_mut("status").filter(|s| s.is_object()) {
        for f in fields {
            if status.get(*f).is_none_or(Value::is_null) {
                status[*f] = json!(0);
            }
        }
    }
}

/// `ValidateNonnegativeField` of an optional integer at `pointer`.
pub fn nonnegative(obj: &Value, pointer: &str, path: Path, errs: &mut ErrorList) {
    if let Some(n) = obj
        .pointer(pointer)
        .and_then(Value::as_i64)
        .filter(|n| *n < 0)
    {
        errs.push(FieldError::invalid(
            path,
            BadValue::Int(n),
            "must be greater than or equal to 0",
        ));
    }
}

/// [`nonnegative`] of each named top-level field of `obj`, in order.
pub fn nonnegative_fields(obj: &Value, fields: &[&str], path: &Path, errs: &mut ErrorList) {
    for field in fields {
        nonnegative(obj, &format!("/{field}"), path.child(field), errs);
    }
}

/// The pods of a replicated workload (`template` at `tpath`) restart `Always`.
pub fn restart_always(template: &Value, tpath: &Path, errs: &mut ErrorList) {
    let policy = template
        .pointer("/spec/restartPolicy")
        .and_then(Value::as_str)
        .unwrap_or("");
    if policy != "Always" {
        errs.push(FieldError::not_supported(
            tpath.child("spec").child("restartPolicy"),
            BadValue::Str(policy.into()),
            &["Always"],
        ));
    }
}

/// Go's `%#v` of an `intstr.IntOrString`.
fn go_int_or_string(v: &Value) -> String {
    match v {
        Value::String(s) => format!(
            "intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}",
            crd_runtime::__private::go::quote(s)
        ),
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_i64().unwrap_or(0)
        ),
    }
}

/// The value of an int-or-percent (`getIntOrPercentValue`) and whether it is a percent.
fn int_or_percent(v: &Value) -> (i64, bool) {
    match v {
        Value::String(s) => (
            s.strip_suffix('%')
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
            true,
        ),
        other => (other.as_i64().unwrap_or(0), false),
    }
}

/// `ValidatePositiveIntOrPercent`.
pub fn positive_int_or_percent(v: Option<&Value>, path: &Path, errs: &mut ErrorList) {
    match v {
        Some(Value::String(s)) => {
            let valid = s
                .strip_suffix('%')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !valid {
                errs.push(invalid_rendered(
                    path.clone(),
                    &go_int_or_string(&json!(s)),
                    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
                ));
            }
        }
        Some(n @ Value::Number(_)) => {
            if let Some(i) = n.as_i64().filter(|i| *i < 0) {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Int(i),
                    "must be greater than or equal to 0",
                ));
            }
        }
        _ => {}
    }
}

/// `ValidateRollingUpdateDeployment`'s shared part: both zero is refused, and the
/// unavailable part may not exceed 100%.
pub fn rolling_update(ru: &Value, path: &Path, errs: &mut ErrorList) {
    let unavailable = ru.get("maxUnavailable");
    let surge = ru.get("maxSurge");
    positive_int_or_percent(unavailable, &path.child("maxUnavailable"), errs);
    positive_int_or_percent(surge, &path.child("maxSurge"), errs);
    let zero = json!(0);
    let u = unavailable.unwrap_or(&zero);
    if int_or_percent(u).0 == 0 && int_or_percent(surge.unwrap_or(&zero)).0 == 0 {
        errs.push(invalid_rendered(
            path.child("maxUnavailable"),
            &go_int_or_string(u),
            "may not be 0 when `maxSurge` is 0",
        ));
    }
    let (value, percent) = int_or_percent(u);
    if percent && value > 100 {
        errs.push(invalid_rendered(
            path.child("maxUnavailable"),
            &go_int_or_string(u),
            "must not be greater than 100%",
        ));
    }
}

/// The selector checks of a workload whose selector is required: `Required`,
/// `ValidateLabelSelector`, and `empty selector is invalid for <what>`.
pub fn required_selector(sel: Option<&Value>, path: &Path, what: &str, errs: &mut ErrorList) {
    match sel.filter(|s| !s.is_null()) {
        None => errs.push(FieldError::required(path.clone(), "")),
        Some(s) => {
            selector::validate(s, selector::Options::default(), path, errs);
            if selector::is_empty(s) {
                errs.push(invalid_rendered(
                    path.clone(),
                    &selector::go_repr(s),
                    &format!("empty selector is invalid for {what}"),
                ));
            }
        }
    }
}

/// `selector does not match template labels` (a missing selector matches nothing,
/// an empty one everything).
pub fn selector_matches_template(
    sel: Option<&Value>,
    template: &Value,
    path: &Path,
    errs: &mut ErrorList,
) {
    let labels = template_labels(template);
    let matches = match sel.filter(|s| !s.is_null()) {
        None => false,
        Some(s) => selector::is_empty(s) || selector::matches(s, labels),
    };
    if !matches {
        errs.push(invalid_rendered(
            path.child("metadata").child("labels"),
            &go_string_map(labels),
            "`selector` does not match template `labels`",
        ));
    }
}

/// `ValidatePodTemplateSpecForReplicaSet` (Deployments, ReplicaSets, DaemonSets):
/// selector match, the template, `restartPolicy: Always`, no active deadline.
pub fn replica_template(
    spec: &Value,
    path: &Path,
    kind_name: &str,
    match_first: bool,
    errs: &mut ErrorList,
) {
    let empty = Value::Null;
    let template = spec.get("template").unwrap_or(&empty);
    let tpath = path.child("template");
    if match_first {
        selector_matches_template(spec.get("selector"), template, &tpath, errs);
    }
    validate_template(template, &tpath, errs);
    restart_always(template, &tpath, errs);
    if let Some(d) = template
        .pointer("/spec/activeDeadlineSeconds")
        .and_then(Value::as_i64)
    {
        errs.push(FieldError::invalid(
            tpath.child("spec").child("activeDeadlineSeconds"),
            BadValue::Int(d),
            format!("activeDeadlineSeconds in {kind_name} is not Supported"),
        ));
    }
}

/// `ValidateImmutableField` of the selector (apps/v1 and batch/v1 updates).
pub fn immutable_selector(
    new: &Value,
    old: &Value,
    pointer: &str,
    path: Path,
    errs: &mut ErrorList,
) {
    let (n, o) = (new.pointer(pointer), old.pointer(pointer));
    if !semantic_eq(n, o) {
        errs.push(invalid_rendered(
            path,
            &n.map_or("nil".to_string(), selector::go_repr),
            "field is immutable",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolling_updates_and_selectors_are_checked_like_apps_validation() {
        let mut errs = ErrorList::new();
        rolling_update(
            &json!({"maxUnavailable": 0, "maxSurge": "0%"}),
            &Path::new("spec").child("strategy").child("rollingUpdate"),
            &mut errs,
        );
        assert_eq!(
            errs.strings(),
            [
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: may not be 0 when `maxSurge` is 0"
            ]
        );
        let mut errs = ErrorList::new();
        let template = json!({"metadata": {"labels": {"app": "b"}}});
        selector_matches_template(
            Some(&json!({"matchLabels": {"app": "a"}})),
            &template,
            &Path::new("spec").child("template"),
            &mut errs,
        );
        assert_eq!(
            errs.strings(),
            [
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"b\"}: `selector` does not match template `labels`"
            ]
        );
        assert!(semantic_eq(Some(&json!({"a": {}})), Some(&json!({}))));
    }
}
