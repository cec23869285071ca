//! Labels and `metav1.LabelSelector`s, as apimachinery checks and evaluates them:
//! [`validate_labels`] (`ValidateLabels`), [`validate_selector`] and
//! [`validate_requirement`] (`ValidateLabelSelector`,
//! `ValidateLabelSelectorRequirement`, with their messages), [`matches`]
//! (`LabelSelectorAsSelector(..).Matches`) and [`selector_string`] (the selector's
//! `String()`, as `kubectl get -l` writes it and a Scale's `status.selector` holds it).
//!
//! Selectors are read as the JSON objects the API server stores (`matchLabels`,
//! `matchExpressions` of `{key, operator, values}`): an empty selector matches
//! everything.
//!
//! ```
//! use crd_runtime::field::{ErrorList, Path};
//! use crd_runtime::labels;
//! use serde_json::json;
//!
//! let selector = json!({"matchLabels": {"app": "web"},
//!     "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]});
//! let object = json!({"metadata": {"labels": {"app": "web", "tier": "front"}}});
//! assert_eq!(labels::matches(&selector, &labels::labels_of(&object)), Ok(true));
//! assert_eq!(labels::selector_string(&selector), "app=web,tier notin (db)");
//!
//! let mut errs = ErrorList::new();
//! let bad = json!({"matchExpressions": [{"key": "tier", "operator": "In"}]});
//! labels::validate_selector(&bad, labels::SelectorOptions::default(), &Path::new("selector"), &mut errs);
//! assert_eq!(errs.strings(), ["selector.matchExpressions[0].values: Required value: \
//!     must be specified when `operator` is 'In' or 'NotIn'"]);
//! ```

use serde_json::{Map, Value};

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::names::{label_value, qualified_name};

fn match_labels(selector: &Value) -> Option<&Map<String, Value>> {
    selector.get("matchLabels").and_then(Value::as_object)
}

fn expressions(selector: &Value) -> &[Value] {
    selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text<'a>(requirement: &'a Value, field: &str) -> &'a str {
    requirement.get(field).and_then(Value::as_str).unwrap_or("")
}

fn values(requirement: &Value) -> Vec<&str> {
    requirement
        .get("values")
        .and_then(Value::as_array)
        .map(|vs| vs.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether `labels` satisfy `selector`: every `matchLabels` entry and every
/// `matchExpressions` requirement (`In`, `NotIn`, `Exists`, `DoesNotExist`) holds. A
/// selector that is not an object (absent, `null`) matches everything, as the
/// configurations that default it to `{}` do. `Err` names an operator
/// `LabelSelectorAsSelector` refuses (validation refuses it first, so only a stored
/// object could hold one).
pub fn matches(selector: &Value, labels: &Map<String, Value>) -> Result<bool, String> {
    if !selector.is_object() {
        return Ok(true);
    }
    let label = |k: &str| labels.get(k).and_then(Value::as_str);
    for (k, v) in match_labels(selector).into_iter().flatten() {
        if label(k) != v.as_str() {
            return Ok(false);
        }
    }
    for requirement in expressions(selector) {
        let key = text(requirement, "key");
        let values = values(requirement);
        let held = match text(requirement, "operator") {
            "In" => label(key).is_some_and(|v| values.contains(&v)),
            "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
            "Exists" => label(key).is_some(),
            "DoesNotExist" => label(key).is_none(),
            other => return Err(format!("{other:?} is not a valid label selector operator")),
        };
        if !held {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `selector` selects everything (absent, `{}`, or with empty lists).
pub fn is_empty(selector: Option<&Value>) -> bool {
    let Some(Value::Object(sel)) = selector else {
        return true;
    };
    let none = |f: &str| match sel.get(f) {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    };
    none("matchLabels") && none("matchExpressions")
}

/// The labels of `object` (`metadata.labels`), empty when it has none.
pub fn labels_of(object: &Value) -> Map<String, Value> {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// `LabelSelectorAsSelector(selector).String()`: the requirements sorted by key, the
/// values of `in`/`notin` sorted and without duplicates (`a=b,c in (d,e),!f`); empty
/// for an empty selector. Requirements with an unknown operator are left out.
pub fn selector_string(selector: &Value) -> String {
    let mut requirements: Vec<(String, String)> = Vec::new();
    for (k, v) in match_labels(selector).into_iter().flatten() {
        requirements.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
    }
    for requirement in expressions(selector) {
        let key = text(requirement, "key");
        let mut values = values(requirement);
        values.sort_unstable();
        values.dedup();
        let written = match text(requirement, "operator") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        requirements.push((key.to_string(), written));
    }
    requirements.sort();
    let written: Vec<String> = requirements.into_iter().map(|(_, w)| w).collect();
    written.join(",")
}

/// `LabelSelectorValidationOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectorOptions {
    /// `AllowInvalidLabelValueInSelector`: the values of `matchExpressions` are not
    /// checked (an update keeping values an older server accepted).
    pub allow_invalid_label_value_in_selector: bool,
}

/// `ValidateLabelName`: `name` must be a qualified name.
pub fn validate_label_name(name: &str, path: &Path, errs: &mut ErrorList) {
    for m in qualified_name(name) {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            m,
        ));
    }
}

/// `ValidateLabels`: keys are qualified names, values label values; every error is
/// reported at `path` (the map, not the key).
pub fn validate_labels(labels: Option<&Map<String, Value>>, path: &Path, errs: &mut ErrorList) {
    for (k, v) in labels.into_iter().flatten() {
        validate_label_name(k, path, errs);
        let value = v.as_str().unwrap_or("");
        for m in label_value(value) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(value.into()),
                m,
            ));
        }
    }
}

/// `ValidateLabelSelector`: `matchLabels` (as [`validate_labels`]), then each of
/// `matchExpressions` (as [`validate_requirement`]).
pub fn validate_selector(
    selector: &Value,
    opts: SelectorOptions,
    path: &Path,
    errs: &mut ErrorList,
) {
    validate_labels(match_labels(selector), &path.child("matchLabels"), errs);
    for (i, requirement) in expressions(selector).iter().enumerate() {
        let at = path.child("matchExpressions").index(i);
        validate_requirement(requirement, opts, &at, errs);
    }
}

/// `ValidateLabelSelectorRequirement`: `values` required for `In`/`NotIn` and
/// forbidden for `Exists`/`DoesNotExist`, no other operator, the key a qualified name,
/// and (unless `opts` allow otherwise) the values label values.
pub fn validate_requirement(
    requirement: &Value,
    opts: SelectorOptions,
    path: &Path,
    errs: &mut ErrorList,
) {
    let values = values(requirement);
    match text(requirement, "operator") {
        "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
            path.child("values"),
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
            path.child("values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
        other => errs.push(FieldError::invalid(
            path.child("operator"),
            BadValue::Str(other.into()),
            "not a valid selector operator",
        )),
    }
    validate_label_name(text(requirement, "key"), &path.child("key"), errs);
    if opts.allow_invalid_label_value_in_selector {
        return;
    }
    for (j, v) in values.iter().enumerate() {
        for m in label_value(v) {
            errs.push(FieldError::invalid(
                path.child("values").index(j),
                BadValue::Str(v.to_string()),
                m,
            ));
        }
    }
}

#[cfg(test)]
#[path = "labels_tests.rs"]
mod tests;
