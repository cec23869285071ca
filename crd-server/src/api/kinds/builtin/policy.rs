//! policy/v1 PodDisruptionBudgets and scheduling.k8s.io/v1 PriorityClasses, as their
//! validation and printers treat them; the two system PriorityClasses kube-apiserver
//! creates at start.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use super::behaviour::*;
use super::{default_field, immutable_field};
use crate::api::kinds::Subresource;
use crate::api::selectors::label;
use crate::api::table::Column;

/// `HighestUserDefinablePriority`.
const HIGHEST_USER_PRIORITY: i64 = 1_000_000_000;

/// The system PriorityClasses: name, value, description.
pub const SYSTEM_PRIORITY_CLASSES: [(&str, i64, &str); 2] = [
    (
        "system-node-critical",
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
];

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

defaults!(DisruptionBudgets: Defaulter, Serving, Deleter, Allocator);

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

/// PriorityClasses.
pub struct PriorityClasses;

defaults!(PriorityClasses: Preparer, Serving, Deleter, Allocator);

impl Defaulter for PriorityClasses {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        default_field(obj, "preemptionPolicy", json!("PreemptLowerPriority"));
        Ok(())
    }
}

impl Validator for PriorityClasses {
    fn validate(&self, obj: &Value, old: Option<&Value>, errs: &mut ErrorList) {
        let name = obj["metadata"]["name"].as_str().unwrap_or("");
        let value = obj["value"].as_i64().unwrap_or(0);
        if let Some(old) = old {
            if obj["value"] != old["value"] {
                errs.push(FieldError::forbidden(
                    Path::new("value"),
                    "may not be changed in an update.",
                ));
            }
            immutable_field(
                obj,
                old,
                "/preemptionPolicy",
                Path::new("preemptionPolicy"),
                errs,
            );
            return;
        }
        if name.starts_with("system-") {
            let known = SYSTEM_PRIORITY_CLASSES.iter().find(|(n, _, _)| *n == name);
            let why = match known {
                None => Some(format!("{name} is not a known system priority class")),
                Some((_, v, _)) if *v != value => {
                    Some(format!("value of {name} PriorityClass must be {v}"))
                }
                Some(_) if obj["globalDefault"] == json!(true) => Some(format!(
                    "globalDefault of {name} PriorityClass must be false"
                )),
                Some(_) => None,
            };
            if let Some(why) = why {
                errs.push(FieldError::forbidden(
                    Path::new("metadata").child("name"),
                    format!("priority class names with 'system-' prefix are reserved for system use only. error: {why}"),
                ));
            }
        } else if value > HIGHEST_USER_PRIORITY {
            errs.push(FieldError::forbidden(
                Path::new("value"),
                format!(
                    "maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"
                ),
            ));
        }
        if let Some(p) = obj["preemptionPolicy"].as_str() {
            let ok = ["Never", "PreemptLowerPriority"];
            if !ok.contains(&p) {
                errs.push(FieldError::not_supported(
                    Path::new("preemptionPolicy"),
                    BadValue::Str(p.into()),
                    &ok,
                ));
            }
        }
    }
}

impl Printer for PriorityClasses {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Value",
                "integer",
                "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
                |o| json!(o["value"].as_i64().unwrap_or(0)),
            ),
            Column::computed(
                "Global-Default",
                "boolean",
                "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
                |o| json!(o["globalDefault"].as_bool().unwrap_or(false)),
            ),
            Column::builtin_age(),
            Column::computed(
                "PreemptionPolicy",
                "string",
                "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
                |o| json!(o["preemptionPolicy"].as_str().unwrap_or("")),
            ),
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
        let mut errs = ErrorList::new();
        DisruptionBudgets.validate(&old, Some(&old), &mut errs);
        assert!(errs.is_empty(), "{:?}", errs.strings());
    }
    use super::*;

    #[test]
    fn budgets_take_one_of_min_and_max() {
        let mut errs = ErrorList::new();
        DisruptionBudgets.validate(
            &json!({"spec": {"minAvailable": 1, "maxUnavailable": "120%"}}),
            None,
            &mut errs,
        );
        assert_eq!(
            errs.strings(),
            [
                "spec: Invalid value: minAvailable and maxUnavailable cannot be both set",
                "spec.maxUnavailable: Invalid value: \"120%\": must not be greater than 100%"
            ]
        );
    }

    #[test]
    fn priority_classes_keep_their_value() {
        let mut errs = ErrorList::new();
        let pc = json!({"metadata": {"name": "system-x"}, "value": 5});
        PriorityClasses.validate(&pc, None, &mut errs);
        assert_eq!(
            errs.strings(),
            [
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class"
            ]
        );
        let old = json!({"metadata": {"name": "a"}, "value": 5, "preemptionPolicy": "Never"});
        let mut new = old.clone();
        new["value"] = json!(6);
        let mut errs = ErrorList::new();
        PriorityClasses.validate(&new, Some(&old), &mut errs);
        assert_eq!(
            errs.strings(),
            ["value: Forbidden: may not be changed in an update."]
        );
        let mut errs = ErrorList::new();
        PriorityClasses.validate(
            &json!({"metadata": {"name": "big"}, "value": 2_000_000_000}),
            None,
            &mut errs,
        );
        assert_eq!(
            errs.strings(),
            ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
        );
    }
}
