//! policy/v1 PodDisruptionBudgets, as their validation and printer treat them.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::behaviour::*;
use crate::api::selectors::label;
use crate::api::table::Column;

/// `ValidatePositiveIntOrPercent` and `IsNotMoreThan100Percent`.
fn int_or_percent(v: &Value, path: Path, errs: &mut ErrorList) {
    match v {
        Value::Number(n) if n.as_i64().is_some_and(|n| n < 0) => {
            errs.push(FieldError::invalid(
                path,
                BadValue::Int(n.as_i64().unwrap_or(0)),
                "must be greater than or equal to 0",
            ));
        }
        Value::String(s) => {
            let pct = s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok());
            match pct {
                None => errs.push(FieldError::invalid(
                    path,
                    BadValue::Str(s.clone()),
                    "must be an integer or percentage (e.g '5%')",
                )),
                Some(p) if p < 0 => errs.push(FieldError::invalid(
                    path,
                    BadValue::Str(s.clone()),
                    "must be greater than or equal to 0",
                )),
                Some(p) if p > 100 => errs.push(FieldError::invalid(
                    path,
                    BadValue::Str(s.clone()),
                    "must not be greater than 100%",
                )),
                Some(_) => {}
            }
        }
        _ => {}
    }
}

fn int_or_string_cell(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.to_string()),
        Value::String(s) => json!(s),
        _ => json!("N/A"),
    }
}

/// PodDisruptionBudgets.
pub struct DisruptionBudgets;

defaults!(DisruptionBudgets: Defaulter, Serving, Deleter, AllocateStrategy);

impl Validator for DisruptionBudgets {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let spec = &obj["spec"];
        let sp = Path::new("spec");
        let (min, max) = (&spec["minAvailable"], &spec["maxUnavailable"]);
        if !min.is_null() && !max.is_null() {
            // Go prints the spec struct (with pointers) here; left out.
            errs.push(FieldError::invalid(
                sp.clone(),
                BadValue::Omit,
                "minAvailable and maxUnavailable cannot be both set",
            ));
        }
        int_or_percent(min, sp.child("minAvailable"), errs);
        int_or_percent(max, sp.child("maxUnavailable"), errs);
        // `AllowInvalidLabelValueInSelector` when the old budget's selector had one.
        let opts = label::Options::for_update(old.and_then(|o| o.pointer("/spec/selector")));
        label::validate(&spec["selector"], opts, &sp.child("selector"), errs);
        if let Some(p) = spec["unhealthyPodEvictionPolicy"].as_str() {
            let ok = ["AlwaysAllow", "IfHealthyBudget"];
            if !ok.contains(&p) {
                errs.push(FieldError::not_supported(
                    sp.child("unhealthyPodEvictionPolicy"),
                    BadValue::Str(p.into()),
                    &ok,
                ));
            }
        }
    }
}

impl Preparer for DisruptionBudgets {
    fn prepare(&self, obj: &mut Value, old: Option<&Value>, _sub: Subresource) {
        if old.is_none() && obj.is_object() {
            obj["status"] = json!({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0});
        }
    }

    /// `podDisruptionBudgetStrategy`: generation 1, then one more for each spec change
    /// (what the disruption controller's `observedGeneration` answers).
    fn prepare_for_create(&self, obj: &mut Value) {
        crate::api::object::meta_mut(obj).insert("generation".into(), json!(1));
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        if sub == Subresource::Main && new.get("spec") != old.get("spec") {
            crate::api::object::bump_generation(new, old);
        }
    }
}

impl Printer for DisruptionBudgets {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Min Available",
                "string",
                "The minimum number of pods that must be available.",
                |o| int_or_string_cell(&o["spec"]["minAvailable"]),
            ),
            Column::computed(
                "Max Unavailable",
                "string",
                "The maximum number of pods that may be unavailable.",
                |o| int_or_string_cell(&o["spec"]["maxUnavailable"]),
            ),
            Column::computed(
                "Allowed Disruptions",
                "integer",
                "Calculated number of pods that may be disrupted at this time.",
                |o| json!(o["status"]["disruptionsAllowed"].as_i64().unwrap_or(0)),
            ),
            Column::builtin_age(),
        ]
    }
}

#[cfg(test)]
mod tests {

    /// A PodDisruptionBudget's selector is checked with its values, as kube-apiserver's
    /// `ValidatePodDisruptionBudgetSpec` does.
    #[test]
    fn budget_selectors_are_validated_with_their_values() {
        let pdb = |exprs: Value| json!({"spec": {"minAvailable": 1, "selector": {"matchExpressions": exprs}}});
        let mut errs = ErrorList::new();
        let bad = pdb(json!([
            {"key": "a", "operator": "DoesNotExist", "values": ["x"]},
            {"key": "b", "operator": "In", "values": []},
            {"key": "c", "operator": "In", "values": ["not ok"]}
        ]));
        DisruptionBudgets.validate(&bad, None, &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector.matchExpressions[2].values[0]: Invalid value: \"not ok\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ]
        );
        // An update of a budget whose selector already held the value keeps it.
        let old = pdb(json!([{"key": "c", "operator": "In", "values": ["not ok"]}]));
        let errs = errors_of(&DisruptionBudgets, &old, Some(&old));
        assert!(errs.is_empty(), "{errs:?}");
    }
    use super::*;

    #[test]
    fn budgets_take_one_of_min_and_max() {
        assert_eq!(
            errors_of(
                &DisruptionBudgets,
                &json!({"spec": {"minAvailable": 1, "maxUnavailable": "120%"}}),
                None
            ),
            [
                "spec: Invalid value: minAvailable and maxUnavailable cannot be both set",
                "spec.maxUnavailable: Invalid value: \"120%\": must not be greater than 100%"
            ]
        );
    }
}
