//! kube-scheduler's filters over JSON objects, in its default plugins' order —
//! `NodeUnschedulable`, `NodeName`, `TaintToleration`, `NodeAffinity` (nodeSelector
//! and required node affinity), `NodeResourcesFit` (requests against allocatable, and
//! the pod count) — the score that spreads Pods (least allocated first), and the
//! `FitError` message a Pod that fits nowhere gets.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use crate::api::kinds::builtin::quantity::Quantity;
use crate::api::object::str_at;
use crate::controllers::nodes;

/// The containers of the pod's `spec.<field>` (`containers`, `initContainers`).
fn containers<'a>(pod: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    pod.pointer(&format!("/spec/{field}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The resources a pod asks for: `max(sum of containers, each init container)` plus
/// its overhead, by resource name (cpu, memory, extended resources).
pub fn requests(pod: &Value) -> BTreeMap<String, Quantity> {
    let list = |c: &Value| -> BTreeMap<String, Quantity> {
        c.pointer("/resources/requests")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), Quantity::from_json(v)?)))
            .collect()
    };
    let mut total: BTreeMap<String, Quantity> = BTreeMap::new();
    for c in containers(pod, "containers") {
        for (k, q) in list(c) {
            let sum = total.get(&k).map_or(q, |t| t.add(&q));
            total.insert(k, sum);
        }
    }
    for c in containers(pod, "initContainers") {
        for (k, q) in list(c) {
            if total.get(&k).is_none_or(|t| *t < q) {
                total.insert(k, q);
            }
        }
    }
    for (k, v) in pod
        .pointer("/spec/overhead")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(q) = Quantity::from_json(v) {
            let sum = total.get(k).map_or(q, |t| t.add(&q));
            total.insert(k.clone(), sum);
        }
    }
    total
}

/// What is in use on one node: the requests of its pods and how many there are.
#[derive(Default, Clone)]
pub struct Usage {
    pub pods: i64,
    pub requested: BTreeMap<String, Quantity>,
}

impl Usage {
    /// Adds a pod bound to the node (its requests counted only when `with_requests`).
    pub fn add(&mut self, pod: &Value, with_requests: bool) {
        self.pods += 1;
        if with_requests {
            for (k, q) in requests(pod) {
                let sum = self.requested.get(&k).map_or(q, |t| t.add(&q));
                self.requested.insert(k, sum);
            }
        }
    }
}

fn labels(obj: &Value) -> Option<&Map<String, Value>> {
    obj.pointer("/metadata/labels").and_then(Value::as_object)
}

/// Whether one of the pod's tolerations tolerates `taint` (`ToleratesTaint`).
pub fn tolerates(tolerations: &[Value], taint: &Value) -> bool {
    tolerations.iter().any(|t| {
        let effect = str_at(t, "/effect");
        if !effect.is_empty() && effect != str_at(taint, "/effect") {
            return false;
        }
        let key = str_at(t, "/key");
        if !key.is_empty() && key != str_at(taint, "/key") {
            return false;
        }
        match str_at(t, "/operator") {
            "Exists" => true,
            "" | "Equal" => str_at(t, "/value") == str_at(taint, "/value"),
            _ => false,
        }
    })
}

/// The node's taints, with the `not-ready` one the node lifecycle controller puts on
/// a node that is not Ready.
fn taints(node: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = node
        .pointer("/spec/taints")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !nodes::is_ready(node) {
        out.push(serde_json::json!({"key": "node.kubernetes.io/not-ready",
                                    "effect": "NoSchedule"}));
    }
    out
}

/// `nodeaffinity.Requirement` of one `matchExpressions` / `matchFields` entry.
fn requirement(req: &Value, value_of: impl Fn(&str) -> Option<String>) -> bool {
    let key = str_at(req, "/key");
    let values: Vec<&str> = req
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let value = value_of(key);
    match str_at(req, "/operator") {
        "In" => value.is_some_and(|v| values.contains(&v.as_str())),
        "NotIn" => value.is_none_or(|v| !values.contains(&v.as_str())),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        op @ ("Gt" | "Lt") => {
            let (Some(v), Some(bound)) = (
                value.and_then(|v| v.parse::<i64>().ok()),
                values.first().and_then(|b| b.parse::<i64>().ok()),
            ) else {
                return false;
            };
            if op == "Gt" { v > bound } else { v < bound }
        }
        _ => false,
    }
}

/// `nodeSelector` and `requiredDuringSchedulingIgnoredDuringExecution` node affinity.
pub fn affinity_matches(pod: &Value, node: &Value) -> bool {
    let node_labels = labels(node);
    let label = |k: &str| {
        node_labels
            .and_then(|l| l.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if let Some(sel) = pod.pointer("/spec/nodeSelector").and_then(Value::as_object)
        && !sel.iter().all(|(k, v)| label(k).as_deref() == v.as_str())
    {
        return false;
    }
    let terms = pod
        .pointer("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
        .and_then(Value::as_array);
    let Some(terms) = terms else {
        return true;
    };
    let field =
        |k: &str| (k == "metadata.name").then(|| str_at(node, "/metadata/name").to_string());
    terms.iter().any(|term| {
        let exprs = term.get("matchExpressions").and_then(Value::as_array);
        let fields = term.get("matchFields").and_then(Value::as_array);
        if exprs.is_none_or(Vec::is_empty) && fields.is_none_or(Vec::is_empty) {
            return false;
        }
        exprs.into_iter().flatten().all(|r| requirement(r, label))
            && fields.into_iter().flatten().all(|r| requirement(r, field))
    })
}

/// Why `pod` does not fit `node` (the first failing filter's reasons), or nothing.
pub fn filter(
    pod: &Value,
    node: &Value,
    usage: &Usage,
    wanted: &BTreeMap<String, Quantity>,
) -> Vec<String> {
    let tolerations: Vec<Value> = pod
        .pointer("/spec/tolerations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if node.pointer("/spec/unschedulable") == Some(&Value::Bool(true)) {
        let taint = serde_json::json!({"key": "node.kubernetes.io/unschedulable",
                                       "effect": "NoSchedule"});
        if !tolerates(&tolerations, &taint) {
            return vec!["node(s) were unschedulable".into()];
        }
    }
    let wanted_node = str_at(pod, "/spec/nodeName");
    if !wanted_node.is_empty() && wanted_node != str_at(node, "/metadata/name") {
        return vec!["node(s) didn't match the requested node name".into()];
    }
    for taint in taints(node) {
        let effect = str_at(&taint, "/effect");
        if (effect == "NoSchedule" || effect == "NoExecute") && !tolerates(&tolerations, &taint) {
            return vec![format!(
                "node(s) had untolerated taint {{{}: {}}}",
                str_at(&taint, "/key"),
                str_at(&taint, "/value")
            )];
        }
    }
    if !affinity_matches(pod, node) {
        return vec!["node(s) didn't match Pod's node affinity/selector".into()];
    }
    let allocatable = |r: &str| {
        node.pointer("/status/allocatable")
            .and_then(|a| a.get(r))
            .and_then(Quantity::from_json)
    };
    let mut reasons = Vec::new();
    let max_pods = allocatable("pods").map_or(i128::MAX, |q| milli(&q) / 1000);
    if i128::from(usage.pods) + 1 > max_pods {
        reasons.push("Too many pods".to_string());
    }
    for (r, q) in wanted {
        if q.is_zero() {
            continue;
        }
        let fits = allocatable(r).is_some_and(|a| {
            let used = usage.requested.get(r).map_or(*q, |u| u.add(q));
            used <= a
        });
        if !fits {
            reasons.push(format!("Insufficient {r}"));
        }
    }
    reasons
}

/// A quantity in thousandths (saturating), for the pod count and the score.
pub fn milli(q: &Quantity) -> i128 {
    (q.as_f64() * 1000.0) as i128
}

/// `NodeResourcesFit`'s `LeastAllocated` score (0–100) blended with the pod count, so
/// that pods without requests spread too.
pub fn score(node: &Value, usage: &Usage) -> i128 {
    let allocatable = |r: &str| {
        node.pointer("/status/allocatable")
            .and_then(|a| a.get(r))
            .and_then(Quantity::from_json)
            .map(|q| milli(&q))
            .unwrap_or(0)
    };
    let free = |r: &str| {
        let cap = allocatable(r);
        let used = usage.requested.get(r).map_or(0, milli);
        if cap <= 0 {
            0
        } else {
            (cap - used).max(0) * 100 / cap
        }
    };
    (free("cpu") + free("memory")) * 1000 - i128::from(usage.pods)
}

/// `FitError.Error()`: `0/N nodes are available: <count reason, …>.` and the
/// preemption's verdict (no victims when resources are short, not helpful
/// otherwise).
pub fn fit_error(total: usize, per_node: &[Vec<String>]) -> String {
    if total == 0 {
        return "no nodes available to schedule pods".into();
    }
    let mut histogram: HashMap<&str, usize> = HashMap::new();
    let (mut no_victims, mut not_helpful) = (0, 0);
    for reasons in per_node {
        for r in reasons {
            *histogram.entry(r.as_str()).or_default() += 1;
        }
        if reasons
            .iter()
            .all(|r| r.starts_with("Insufficient") || r == "Too many pods")
        {
            no_victims += 1;
        } else {
            not_helpful += 1;
        }
    }
    let mut counted: Vec<String> = histogram.iter().map(|(r, n)| format!("{n} {r}")).collect();
    counted.sort();
    let mut preemption = Vec::new();
    if no_victims > 0 {
        preemption.push(format!(
            "{no_victims} No preemption victims found for incoming pod"
        ));
    }
    if not_helpful > 0 {
        preemption.push(format!(
            "{not_helpful} Preemption is not helpful for scheduling"
        ));
    }
    preemption.sort();
    format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        counted.join(", "),
        preemption.join(", ")
    )
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;
