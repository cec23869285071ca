//! autoscaling/v2 HorizontalPodAutoscalers: `SetDefaults_HorizontalPodAutoscaler`
//! (min replicas, the CPU metric, the scaling behaviour's rules), the replica and
//! target checks, the status a new one starts with, and the printer's columns.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use crate::api::kinds::Subresource;
use crate::api::kinds::builtin::behaviour::*;
use crate::api::table::Column;

/// `DefaultCPUUtilization`.
const DEFAULT_CPU: i64 = 80;

/// HorizontalPodAutoscalers.
pub struct Autoscalers;

/// Fills what a scaling rule leaves out with the default rule's values.
fn fill_rules(rules: &mut Value, window: i64, policies: Value) {
    if !rules.is_object() {
        *rules = json!({});
    }
    if rules["stabilizationWindowSeconds"].is_null() {
        rules["stabilizationWindowSeconds"] = json!(window);
    }
    if rules["selectPolicy"].is_null() {
        rules["selectPolicy"] = json!("Max");
    }
    if rules["policies"].is_null() {
        rules["policies"] = policies;
    }
}

defaults!(Autoscalers: Serving, Deleter, AllocateStrategy);

impl Defaulter for Autoscalers {
    fn decode(&self, obj: &mut Value) -> Result<(), String> {
        if !obj["spec"].is_object() {
            return Ok(());
        }
        let spec = &mut obj["spec"];
        if spec["minReplicas"].is_null() {
            spec["minReplicas"] = json!(1);
        }
        if spec["metrics"].as_array().is_none_or(Vec::is_empty) {
            spec["metrics"] = json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU}}}]);
        }
        if spec["behavior"].is_object() {
            fill_rules(
                &mut spec["behavior"]["scaleUp"],
                0,
                json!([
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
            fill_rules(
                &mut spec["behavior"]["scaleDown"],
                300,
                json!([
                {"type": "Percent", "value": 100, "periodSeconds": 15}]),
            );
        }
        Ok(())
    }
}

impl Validator for Autoscalers {
    fn validate(&self, obj: &Value, _old: Option<&Value>, errs: &mut ErrorList) {
        let spec = &obj["spec"];
        let sp = Path::new("spec");
        let min = spec["minReplicas"].as_i64().unwrap_or(1);
        let max = spec["maxReplicas"].as_i64().unwrap_or(0);
        if min < 1 {
            errs.push(FieldError::invalid(
                sp.child("minReplicas"),
                BadValue::Int(min),
                "must be greater than or equal to 1",
            ));
        }
        if max < 1 {
            errs.push(FieldError::invalid(
                sp.child("maxReplicas"),
                BadValue::Int(max),
                "must be greater than 0",
            ));
        }
        if max < min {
            errs.push(FieldError::invalid(
                sp.child("maxReplicas"),
                BadValue::Int(max),
                "must be greater than or equal to `minReplicas`",
            ));
        }
        let target = &spec["scaleTargetRef"];
        let tp = sp.child("scaleTargetRef");
        for f in ["kind", "name"] {
            let v = target[f].as_str().unwrap_or("");
            if v.is_empty() {
                errs.push(FieldError::required(tp.child(f), ""));
            } else {
                for m in crd_runtime::names::path_segment_name(v, false) {
                    errs.push(FieldError::invalid(tp.child(f), BadValue::Str(v.into()), m));
                }
            }
        }
        let types = [
            "ContainerResource",
            "External",
            "Object",
            "Pods",
            "Resource",
        ];
        for (i, m) in spec["metrics"].as_array().into_iter().flatten().enumerate() {
            let mp = sp.child("metrics").index(i);
            let ty = m["type"].as_str().unwrap_or("");
            if ty.is_empty() {
                errs.push(FieldError::required(
                    mp.child("type"),
                    "must specify a metric source type",
                ));
            } else if !types.contains(&ty) {
                errs.push(FieldError::not_supported(
                    mp.child("type"),
                    BadValue::Str(ty.into()),
                    &types,
                ));
            }
            if ty == "Resource" {
                let u = m
                    .pointer("/resource/target/averageUtilization")
                    .and_then(Value::as_i64);
                if let Some(u) = u.filter(|u| *u <= 0) {
                    errs.push(FieldError::invalid(
                        mp.child("resource")
                            .child("target")
                            .child("averageUtilization"),
                        BadValue::Int(u),
                        "must be greater than 0",
                    ));
                }
            }
        }
    }
}

impl Preparer for Autoscalers {
    fn prepare(&self, obj: &mut Value, old: Option<&Value>, _sub: Subresource) {
        if old.is_none() && obj.is_object() {
            obj["status"] = json!({"desiredReplicas": 0});
        }
    }
}

impl Printer for Autoscalers {
    fn columns(&self) -> Vec<Column> {
        vec![
            Column::computed(
                "Reference",
                "string",
                "Reference to the target resource being scaled",
                |o| {
                    let t = &o["spec"]["scaleTargetRef"];
                    json!(format!(
                        "{}/{}",
                        t["kind"].as_str().unwrap_or(""),
                        t["name"].as_str().unwrap_or("")
                    ))
                },
            ),
            Column::computed(
                "Targets",
                "string",
                "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
                |o| json!(targets(o)),
            ),
            Column::computed(
                "MinPods",
                "string",
                "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
                |o| {
                    json!(
                        o["spec"]["minReplicas"]
                            .as_i64()
                            .map_or("<unset>".to_string(), |n| n.to_string())
                    )
                },
            ),
            Column::computed(
                "MaxPods",
                "integer",
                "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
                |o| json!(o["spec"]["maxReplicas"].as_i64().unwrap_or(0)),
            ),
            Column::computed(
                "Replicas",
                "integer",
                "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
                |o| json!(o["status"]["currentReplicas"].as_i64().unwrap_or(0)),
            ),
            Column::builtin_age(),
        ]
    }
}

/// `formatHPAMetrics`: `cpu: <unknown>/80%` per metric, three at most.
fn targets(o: &Value) -> String {
    let specs = o["spec"]["metrics"].as_array().cloned().unwrap_or_default();
    if specs.is_empty() {
        return "<none>".into();
    }
    let current = o["status"]["currentMetrics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let list: Vec<String> = specs
        .iter()
        .take(3)
        .enumerate()
        .map(|(i, m)| {
            let ty = m["type"].as_str().unwrap_or("");
            let key = match ty {
                "Resource" => "resource",
                "ContainerResource" => "containerResource",
                "Pods" => "pods",
                "Object" => "object",
                "External" => "external",
                _ => "",
            };
            let target = &m[key]["target"];
            let now = &current
                .get(i)
                .map_or(Value::Null, |c| c[key]["current"].clone());
            let (cur, goal) = match target["type"].as_str().unwrap_or("") {
                "Utilization" => (
                    now["averageUtilization"]
                        .as_i64()
                        .map_or("<unknown>".into(), |u| format!("{u}%")),
                    format!("{}%", target["averageUtilization"].as_i64().unwrap_or(0)),
                ),
                "AverageValue" => (
                    now["averageValue"]
                        .as_str()
                        .map_or("<unknown>".into(), str::to_string),
                    target["averageValue"].as_str().unwrap_or("").to_string(),
                ),
                _ => (
                    now["value"]
                        .as_str()
                        .map_or("<unknown>".into(), str::to_string),
                    target["value"].as_str().unwrap_or("").to_string(),
                ),
            };
            match ty {
                "Resource" | "ContainerResource" => {
                    format!("{}: {cur}/{goal}", m[key]["name"].as_str().unwrap_or(""))
                }
                _ => format!("{cur}/{goal}"),
            }
        })
        .collect();
    let mut out = list.join(", ");
    if specs.len() > 3 {
        out.push_str(&format!(" + {} more...", specs.len() - 3));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autoscalers_default_and_check_their_replicas() {
        let mut hpa = json!({"spec": {"maxReplicas": 0, "scaleTargetRef": {"kind": "Deployment", "name": "web"},
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}});
        Autoscalers.decode(&mut hpa).unwrap();
        assert_eq!(hpa["spec"]["minReplicas"], 1);
        assert_eq!(
            hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"],
            60
        );
        assert_eq!(
            hpa["spec"]["behavior"]["scaleUp"]["policies"][0]["value"],
            4
        );
        assert_eq!(targets(&hpa), "cpu: <unknown>/80%");
        assert_eq!(
            errors_of(&Autoscalers, &hpa, None),
            [
                "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"
            ]
        );
    }
}
