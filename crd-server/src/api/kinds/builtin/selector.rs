//! `metav1.LabelSelector` as the workload kinds use it: matched against template
//! labels, validated (`ValidateLabelSelector`), written as a selector string (what a
//! Scale's `status.selector` and the printers' Selector column show) and rendered
//! as Go's `%#v` does in the messages that quote a whole selector.

use crd_runtime::__private::go::quote;
use crd_runtime::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use crd_runtime::names::{label_value, qualified_name};
use serde_json::{Map, Value};

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn match_labels(sel: &Value) -> Option<&Map<String, Value>> {
    sel.get("matchLabels").and_then(Value::as_object)
}

fn expressions(sel: &Value) -> &[Value] {
    sel.get("matchExpressions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Whether a selector selects everything (no labels, no expressions).
pub fn is_empty(sel: &Value) -> bool {
    match_labels(sel).is_none_or(Map::is_empty) && expressions(sel).is_empty()
}

/// `LabelSelectorAsSelector(sel).String()`: requirements sorted by key, `in`/`notin`
/// values sorted; empty for an empty selector.
pub fn selector_string(sel: &Value) -> String {
    let mut reqs: Vec<(String, String)> = Vec::new();
    for (k, v) in match_labels(sel).into_iter().flatten() {
        reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
    }
    for e in expressions(sel) {
        let key = e.get("key").and_then(Value::as_str).unwrap_or("");
        let mut values = strings(e.get("values"));
        values.sort_unstable();
        values.dedup();
        let text = match e.get("operator").and_then(Value::as_str).unwrap_or("") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        reqs.push((key.to_string(), text));
    }
    reqs.sort();
    reqs.into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.FormatLabelSelector`: the selector string, `<none>` when it is empty.
pub fn format(sel: Option<&Value>) -> String {
    match sel.map(selector_string) {
        Some(s) if !s.is_empty() => s,
        _ => "<none>".into(),
    }
}

/// Whether `labels` satisfy the selector (`selector.Matches`).
pub fn matches(sel: &Value, labels: Option<&Map<String, Value>>) -> bool {
    let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    let labels_ok = match_labels(sel)
        .into_iter()
        .flatten()
        .all(|(k, v)| get(k) == v.as_str());
    labels_ok
        && expressions(sel).iter().all(|e| {
            let key = e.get("key").and_then(Value::as_str).unwrap_or("");
            let values = strings(e.get("values"));
            match e.get("operator").and_then(Value::as_str).unwrap_or("") {
                "In" => get(key).is_some_and(|v| values.contains(&v)),
                "NotIn" => get(key).is_none_or(|v| !values.contains(&v)),
                "Exists" => get(key).is_some(),
                "DoesNotExist" => get(key).is_none(),
                _ => false,
            }
        })
}

/// `ValidateLabels`: keys as qualified names, values as label values.
pub fn validate_labels(labels: Option<&Map<String, Value>>, path: &Path, errs: &mut ErrorList) {
    for (k, v) in labels.into_iter().flatten() {
        for m in qualified_name(k) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(k.clone()),
                m,
            ));
        }
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

/// `ValidateLabelSelector` (metav1 validation).
pub fn validate(sel: &Value, path: &Path, errs: &mut ErrorList) {
    validate_labels(match_labels(sel), &path.child("matchLabels"), errs);
    for (i, e) in expressions(sel).iter().enumerate() {
        let at = path.child("matchExpressions").index(i);
        let values = strings(e.get("values"));
        let op = e.get("operator").and_then(Value::as_str).unwrap_or("");
        match op {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                at.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                at.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            _ => errs.push(FieldError::invalid(
                at.child("operator"),
                BadValue::Str(op.into()),
                "not a valid selector operator",
            )),
        }
        let key = e.get("key").and_then(Value::as_str).unwrap_or("");
        for m in qualified_name(key) {
            errs.push(FieldError::invalid(
                at.child("key"),
                BadValue::Str(key.into()),
                m,
            ));
        }
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

/// Go's `%#v` of a `map[string]string` (keys sorted; `(nil)` when absent).
pub fn go_string_map(map: Option<&Map<String, Value>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".into();
    };
    let mut entries: Vec<(&String, &str)> = map
        .iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or("")))
        .collect();
    entries.sort();
    let inner: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", quote(k), quote(v)))
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

fn go_strings(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array) {
        None => "[]string(nil)".into(),
        Some(a) => {
            let items: Vec<String> = a.iter().map(|s| quote(s.as_str().unwrap_or(""))).collect();
            format!("[]string{{{}}}", items.join(", "))
        }
    }
}

/// Go's `%#v` of a `v1.LabelSelector` (how `field is immutable` quotes a selector).
pub fn go_repr(sel: &Value) -> String {
    let exprs = match sel.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_string(),
        Some(list) => {
            let items: Vec<String> = list
                .iter()
                .map(|e| {
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                        quote(e.get("key").and_then(Value::as_str).unwrap_or("")),
                        quote(e.get("operator").and_then(Value::as_str).unwrap_or("")),
                        go_strings(e.get("values"))
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{exprs}}}",
        go_string_map(match_labels(sel))
    )
}

/// An `Invalid value` whose value is already rendered as Go prints it (a struct or map
/// `%#v`, which no [`BadValue`] spells).
pub fn invalid_rendered(path: Path, rendered: &str, detail: &str) -> FieldError {
    FieldError::new(
        ErrorType::Invalid,
        path,
        BadValue::Omit,
        format!("{rendered}: {detail}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_print_sorted_like_label_selector_string() {
        let sel = json!({"matchLabels": {"tier": "fe", "app": "web"},
                         "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]},
                                              {"key": "gone", "operator": "DoesNotExist"}]});
        assert_eq!(
            selector_string(&sel),
            "app=web,env in (dev,prod),!gone,tier=fe"
        );
        assert_eq!(format(Some(&json!({}))), "<none>");
        let labels = json!({"app": "web", "tier": "fe", "env": "dev"});
        assert!(matches(&sel, labels.as_object()));
        assert!(!matches(&sel, json!({"app": "web"}).as_object()));
    }

    #[test]
    fn go_rendering_matches_the_servers_messages() {
        assert_eq!(
            go_repr(&json!({"matchLabels": {"app": "a"}})),
            "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"a\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"
        );
        let mut errs = ErrorList::new();
        let sel = json!({"matchExpressions": [{"key": "k", "operator": "In"}, {"key": "k", "operator": "Is"}]});
        validate(&sel, &Path::new("spec").child("selector"), &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector.matchExpressions[1].operator: Invalid value: \"Is\": not a valid selector operator"
            ]
        );
    }
}
