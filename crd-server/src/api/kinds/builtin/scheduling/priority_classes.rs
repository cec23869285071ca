//! scheduling.k8s.io/v1 PriorityClasses, as their validation and printer treat them;
//! the two system PriorityClasses kube-apiserver creates at start.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::{default_field, immutable_field};
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

/// PriorityClasses.
pub struct PriorityClasses;

defaults!(PriorityClasses: Preparer, Serving, Deleter, AllocateStrategy);

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
    use super::*;

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
        assert_eq!(
            errors_of(&PriorityClasses, &new, Some(&old)),
            ["value: Forbidden: may not be changed in an update."]
        );
        assert_eq!(
            errors_of(
                &PriorityClasses,
                &json!({"metadata": {"name": "big"}, "value": 2_000_000_000}),
                None
            ),
            ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
        );
    }
}
