//! `metav1.LabelSelector` as admission evaluates it (`LabelSelectorAsSelector`):
//! `matchLabels` and `matchExpressions` (`In`, `NotIn`, `Exists`, `DoesNotExist`)
//! all hold. An empty selector matches everything; an absent one too, where the
//! configuration defaults it to `{}`.

use serde_json::{Map, Value};

/// Whether `labels` satisfy `selector`. `Err` names what makes the selector invalid
/// (validation refuses such selectors, so only a stored object could hold one).
pub fn matches(selector: &Value, labels: &Map<String, Value>) -> Result<bool, String> {
    let Value::Object(sel) = selector else {
        return Ok(true);
    };
    let label = |k: &str| labels.get(k).and_then(Value::as_str);
    if let Some(Value::Object(want)) = sel.get("matchLabels") {
        for (k, v) in want {
            if label(k) != v.as_str() {
                return Ok(false);
            }
        }
    }
    let expressions = sel.get("matchExpressions").and_then(Value::as_array);
    for req in expressions.into_iter().flatten() {
        let key = req.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = req
            .get("values")
            .and_then(Value::as_array)
            .map(|vs| vs.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let op = req.get("operator").and_then(Value::as_str).unwrap_or("");
        let held = match op {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn labels_and_expressions_all_hold() {
        let l = labels(json!({"app": "web", "tier": "front"}));
        assert!(matches(&json!({}), &l).unwrap());
        assert!(matches(&json!({"matchLabels": {"app": "web"}}), &l).unwrap());
        assert!(!matches(&json!({"matchLabels": {"app": "db"}}), &l).unwrap());
        let sel = |op: &str, values: Value| json!({"matchExpressions": [{"key": "tier", "operator": op, "values": values}]});
        assert!(matches(&sel("In", json!(["front", "back"])), &l).unwrap());
        assert!(!matches(&sel("NotIn", json!(["front"])), &l).unwrap());
        assert!(matches(&sel("Exists", json!([])), &l).unwrap());
        assert!(!matches(&sel("DoesNotExist", json!([])), &l).unwrap());
        // NotIn holds for an absent label, In does not.
        let none = Map::new();
        assert!(matches(&sel("NotIn", json!(["front"])), &none).unwrap());
        assert!(!matches(&sel("In", json!(["front"])), &none).unwrap());
        assert!(matches(&sel("Bogus", json!([])), &l).is_err());
    }

    #[test]
    fn empty_selectors_select_everything() {
        assert!(is_empty(None));
        assert!(is_empty(Some(&json!({}))));
        assert!(is_empty(Some(
            &json!({"matchLabels": {}, "matchExpressions": []})
        )));
        assert!(!is_empty(Some(&json!({"matchLabels": {"a": "b"}}))));
    }
}
