//! LimitRanges and ResourceQuotas: quantities that parse (a decoding error otherwise),
//! the orderings `ValidateLimitRange` requires (min ≤ default request ≤ default ≤ max),
//! the limit types, non-negative and integer quota values, and the printers' columns.

use std::collections::BTreeSet;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::builtin::behaviour::*;
use crate::api::kinds::builtin::checks::one_of;
use crate::api::kinds::builtin::quantity;
use crate::api::table::Column;

const LIMIT_TYPES: [&str; 3] = ["Container", "PersistentVolumeClaim", "Pod"];
/// Quota resources counted in whole objects (`IsIntegerResourceName`).
const INTEGER_RESOURCES: [&str; 10] = [
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
    "count",
];

fn q(map: &Value, key: &str) -> Option<(String, f64)> {
    let text = quantity::text(map.get(key)?)?;
    let v = quantity::parse(&text)?;
    Some((text, v))
}

/// LimitRanges.
pub struct LimitRanges;

defaults!(LimitRanges: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for LimitRanges {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        let n = obj["spec"]["limits"].as_array().map_or(0, Vec::len);
        let fields = [
            "max",
            "min",
            "default",
            "defaultRequest",
            "maxLimitRequestRatio",
        ];
        for i in 0..n {
            let pointers: Vec<String> = fields
                .iter()
                .map(|f| format!("/spec/limits/{i}/{f}"))
                .collect();
            let refs: Vec<&str> = pointers.iter().map(String::as_str).collect();
            quantity::check_maps(obj, &refs)?;
        }
        Ok(())
    }
}

impl Validator for LimitRanges {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        for (i, limit) in obj["spec"]["limits"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let path = Path::new("spec").child("limits").index(i);
            let ty = limit["type"].as_str().unwrap_or("");
            one_of(ty, &LIMIT_TYPES, path.child("type"), errs);
            if ty == "Pod" {
                for f in ["default", "defaultRequest"] {
                    if limit[f].as_object().is_some_and(|m| !m.is_empty()) {
                        errs.push(FieldError::forbidden(
                            path.child(f),
                            "may not be specified when `type` is 'Pod'",
                        ));
                    }
                }
            }
            let keys: BTreeSet<&String> = ["max", "min", "default", "defaultRequest"]
                .iter()
                .flat_map(|f| limit[*f].as_object().into_iter().flatten().map(|(k, _)| k))
                .collect();
            for k in keys {
                let (min, max) = (q(&limit["min"], k), q(&limit["max"], k));
                let (def, req) = (q(&limit["default"], k), q(&limit["defaultRequest"], k));
                // ValidateLimitRange's orderings: (smaller, larger, the field and value
                // blamed, their names in the message).
                let orderings = [
                    (&min, &max, "min", &min, "min value", "max value"),
                    (
                        &min,
                        &req,
                        "defaultRequest",
                        &req,
                        "min value",
                        "default request value",
                    ),
                    (
                        &req,
                        &max,
                        "defaultRequest",
                        &req,
                        "default request value",
                        "max value",
                    ),
                    (
                        &req,
                        &def,
                        "defaultRequest",
                        &req,
                        "default request value",
                        "default limit value",
                    ),
                    (&min, &def, "default", &min, "min value", "default value"),
                    (&def, &max, "default", &max, "default value", "max value"),
                ];
                for (small, large, field, blamed, small_name, large_name) in orderings {
                    if let (Some(small), Some(large), Some(blamed)) = (small, large, blamed)
                        && small.1 > large.1
                    {
                        errs.push(FieldError::invalid(
                            path.child(field).key(k),
                            BadValue::Str(blamed.0.clone()),
                            format!(
                                "{small_name} {} is greater than {large_name} {}",
                                small.0, large.0
                            ),
                        ));
                    }
                }
            }
        }
    }
}

impl Printer for LimitRanges {
    fn columns(&self) -> Vec<Column> {
        vec![Column::computed(
            "Created At",
            "date",
            "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
            |o| o["metadata"]["creationTimestamp"].clone(),
        )]
    }
}

/// ResourceQuotas.
pub struct ResourceQuotas;

defaults!(ResourceQuotas: Preparer, Serving, Deleter, AllocateStrategy);

impl Defaulter for ResourceQuotas {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        quantity::check_maps(obj, &["/spec/hard", "/status/hard", "/status/used"])
    }
}

impl Validator for ResourceQuotas {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        for (k, v) in obj["spec"]["hard"].as_object().into_iter().flatten() {
            let path = Path::new("spec").child("hard").key(k);
            let Some(text) = quantity::text(v) else {
                continue;
            };
            let Some(value) = quantity::parse(&text) else {
                continue;
            };
            if value < 0.0 {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(text.clone()),
                    "must be greater than or equal to 0",
                ));
            }
            let integer = INTEGER_RESOURCES.contains(&k.as_str()) || k.starts_with("count/");
            if integer && value.fract() != 0.0 {
                errs.push(FieldError::invalid(
                    path,
                    BadValue::Str(text),
                    "must be an integer",
                ));
            }
        }
        let scopes = [
            "BestEffort",
            "CrossNamespacePodAffinity",
            "NotBestEffort",
            "NotTerminating",
            "PriorityClass",
            "Terminating",
            "VolumeAttributesClass",
        ];
        for (i, s) in obj["spec"]["scopes"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let s = s.as_str().unwrap_or("");
            if !scopes.contains(&s) {
                errs.push(FieldError::not_supported(
                    Path::new("spec").child("scopes").index(i),
                    BadValue::Str(s.into()),
                    &scopes,
                ));
            }
        }
    }
}

impl Printer for ResourceQuotas {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::builtin_age(),
            Column::computed(
                "Request",
                "string",
                "Request represents a minimum amount of cpu/memory that a container may consume.",
                |o| json!(usage(o, false)),
            ),
            Column::computed(
                "Limit",
                "string",
                "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
                |o| json!(usage(o, true)),
            ),
        ]
    }
}

/// `used/hard` of each resource of the status, limits apart.
fn usage(o: &Value, limits: bool) -> String {
    let hard = &o["status"]["hard"];
    let mut names: Vec<&String> = hard
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    names.sort();
    names
        .into_iter()
        .filter(|k| k.starts_with("limits.") == limits)
        .map(|k| {
            let used = o["status"]["used"]
                .get(k.as_str())
                .and_then(quantity::text)
                .unwrap_or_else(|| "0".into());
            let total = hard
                .get(k.as_str())
                .and_then(quantity::text)
                .unwrap_or_else(|| "0".into());
            format!("{k}: {used}/{total}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_ranges_order_their_quantities() {
        let lr = json!({"spec": {"limits": [{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}, {"type": "Pod", "default": {"cpu": "1"}}]}});
        assert_eq!(
            errors_of(&LimitRanges, &lr, None),
            [
                "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1",
                "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'"
            ]
        );
        // Every ordering ValidateLimitRange checks, each blaming its field.
        let lr = json!({"spec": {"limits": [{"type": "Container",
            "min": {"cpu": "4"}, "max": {"cpu": "1"}, "default": {"cpu": "2"},
            "defaultRequest": {"cpu": "3"}}]}});
        assert_eq!(
            errors_of(&LimitRanges, &lr, None),
            [
                "spec.limits[0].min[cpu]: Invalid value: \"4\": min value 4 is greater than max value 1",
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"3\": min value 4 is greater than default request value 3",
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"3\": default request value 3 is greater than max value 1",
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"3\": default request value 3 is greater than default limit value 2",
                "spec.limits[0].default[cpu]: Invalid value: \"4\": min value 4 is greater than default value 2",
                "spec.limits[0].default[cpu]: Invalid value: \"1\": default value 2 is greater than max value 1",
            ]
        );
        let mut bad = json!({"spec": {"limits": [{"type": "Container", "max": {"cpu": "x"}}]}});
        assert!(LimitRanges.decode(&mut bad).is_err());
    }

    #[test]
    fn quotas_are_whole_and_non_negative() {
        let rq = json!({"spec": {"hard": {"pods": "1.5", "cpu": "-1"}}});
        assert_eq!(
            errors_of(&ResourceQuotas, &rq, None),
            [
                "spec.hard[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                "spec.hard[pods]: Invalid value: \"1.5\": must be an integer"
            ]
        );
        let used =
            json!({"status": {"hard": {"pods": "10", "limits.cpu": "2"}, "used": {"pods": "1"}}});
        assert_eq!(usage(&used, false), "pods: 1/10");
        assert_eq!(usage(&used, true), "limits.cpu: 0/2");
    }
}
