//! `metav1validation.ValidateLabelSelector` and the small value checks the
//! admission kinds share (fully qualified names, qualified names, ports).

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::names::{dns1123_subdomain, label_value, qualified_name};
use serde_json::Value;

use super::{strings, text};

/// `ValidateLabelSelector`; `allow_invalid_values`: label values in expressions are
/// not checked (an update of an object that already held such values).
pub fn label_selector(sel: &Value, allow_invalid_values: bool, path: &Path, errs: &mut ErrorList) {
    let expressions = sel.get("matchExpressions").and_then(Value::as_array);
    for (i, req) in expressions.into_iter().flatten().enumerate() {
        let at = path.child("matchExpressions").index(i);
        let values = strings(req, "values");
        match text(req, "operator") {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                at.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                at.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errs.push(FieldError::invalid(
                at.child("operator"),
                BadValue::Str(other.into()),
                "not a valid selector operator",
            )),
        }
        label_name(text(req, "key"), &at.child("key"), errs);
        if !allow_invalid_values {
            for (j, v) in values.iter().enumerate() {
                for m in label_value(v) {
                    errs.push(FieldError::invalid(
                        at.child("values").index(j),
                        BadValue::Str(v.to_string()),
                        m,
                    ));
                }
            }
        }
    }
    let labels = sel.get("matchLabels").and_then(Value::as_object);
    let mut labels: Vec<_> = labels.into_iter().flatten().collect();
    labels.sort_by(|a, b| a.0.cmp(b.0));
    for (k, v) in labels {
        let at = path.child("matchLabels");
        label_name(k, &at, errs);
        let v = v.as_str().unwrap_or("");
        for m in label_value(v) {
            errs.push(FieldError::invalid(at.clone(), BadValue::Str(v.into()), m));
        }
    }
}

/// Whether a selector holds a label value `ValidateLabelSelector` refuses.
pub fn has_invalid_label_value(sel: Option<&Value>) -> bool {
    let mut errs = ErrorList::new();
    if let Some(sel) = sel {
        label_selector(sel, false, &Path::root(), &mut errs);
    }
    !errs.is_empty()
}

/// `ValidateLabelName` (and `ValidateQualifiedName`): the name at `path`.
pub fn label_name(name: &str, path: &Path, errs: &mut ErrorList) {
    for m in qualified_name(name) {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            m,
        ));
    }
}

/// `IsFullyQualifiedName`: a DNS subdomain with at least three segments.
pub fn fully_qualified_name(name: &str, path: &Path, errs: &mut ErrorList) {
    if name.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
        return;
    }
    let problems = dns1123_subdomain(name);
    if !problems.is_empty() {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            problems.join(","),
        ));
    } else if name.split('.').count() < 3 {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(name.into()),
            "should be a domain with at least three segments separated by dots",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_and_names_are_checked_like_apimachinery() {
        let mut errs = ErrorList::new();
        let sel = json!({
            "matchLabels": {"a": "b c"},
            "matchExpressions": [
                {"key": "k", "operator": "In"},
                {"key": "k", "operator": "Exists", "values": ["x"]},
                {"key": "k", "operator": "Near"}
            ]
        });
        label_selector(&sel, false, &Path::new("objectSelector"), &mut errs);
        let out = errs.strings();
        assert_eq!(
            out[..3],
            [
                "objectSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "objectSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "objectSelector.matchExpressions[2].operator: Invalid value: \"Near\": not a valid selector operator",
            ]
        );
        assert!(
            out[3].starts_with(
                "objectSelector.matchLabels: Invalid value: \"b c\": a valid label must be"
            ),
            "{out:?}"
        );

        let mut errs = ErrorList::new();
        fully_qualified_name("hook.example", &Path::new("name"), &mut errs);
        fully_qualified_name("", &Path::new("name"), &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "name: Invalid value: \"hook.example\": should be a domain with at least three segments separated by dots",
                "name: Required value"
            ]
        );
    }
}
