//! The conditions the namespace controller keeps on a terminating namespace, as
//! kube-controller-manager's deleter reports them: one of each type always present,
//! `True` with what went wrong or what remains, `False` with its all-clear wording.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// What one pass over a namespace's content found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Why some content could not be deleted (one message per resource).
    pub content_errors: Vec<String>,
    /// Objects left per resource, labelled `plural.group` (`configmaps.` for core).
    pub remaining: BTreeMap<String, usize>,
    /// Objects left per finalizer they carry.
    pub finalizers: BTreeMap<String, usize>,
}

impl Report {
    /// Whether objects remain.
    pub fn content_remains(&self) -> bool {
        self.remaining.values().any(|n| *n > 0)
    }
}

/// The condition types, in the order they are first added, each with its all-clear
/// reason and message.
const TYPES: [(&str, &str, &str); 5] = [
    (
        "NamespaceDeletionDiscoveryFailure",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    ),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    (
        "NamespaceContentRemaining",
        "ContentRemoved",
        "All content successfully removed",
    ),
    (
        "NamespaceFinalizersRemaining",
        "ContentHasNoFinalizers",
        "All content-preserving finalizers finished",
    ),
];

/// "`name` `how` `n` resource instances" for each name of `counts` with some, sorted.
fn counted(counts: &BTreeMap<String, usize>, how: &str) -> Vec<String> {
    let mut out: Vec<String> = counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(name, n)| format!("{name} {how} {n} resource instances"))
        .collect();
    out.sort();
    out
}

/// The `True` conditions a report calls for: (type, reason, message).
fn failures(report: &Report) -> Vec<(&'static str, &'static str, String)> {
    let mut out = Vec::new();
    if !report.content_errors.is_empty() {
        let mut msgs = report.content_errors.clone();
        msgs.sort();
        out.push((
            "NamespaceDeletionContentFailure",
            "ContentDeletionFailed",
            format!(
                "Failed to delete all resource types, {} remaining: {}",
                msgs.len(),
                msgs.join(", ")
            ),
        ));
    }
    let remaining = counted(&report.remaining, "has");
    if !remaining.is_empty() {
        out.push((
            "NamespaceContentRemaining",
            "SomeResourcesRemain",
            format!("Some resources are remaining: {}", remaining.join(", ")),
        ));
    }
    let finalizers = counted(&report.finalizers, "in");
    if !finalizers.is_empty() {
        out.push((
            "NamespaceFinalizersRemaining",
            "SomeFinalizersRemain",
            format!(
                "Some content in the namespace has finalizers remaining: {}",
                finalizers.join(", ")
            ),
        ));
    }
    out
}

/// Brings `status.conditions` of `ns` in line with `report` at time `now`; whether
/// anything changed. A condition's `lastTransitionTime` moves only when its status
/// flips.
pub fn apply(ns: &mut Value, report: &Report, now: &str) -> bool {
    let failing = failures(report);
    if !ns.get("status").is_some_and(Value::is_object) {
        ns["status"] = json!({});
    }
    if !ns["status"].get("conditions").is_some_and(Value::is_array) {
        ns["status"]["conditions"] = json!([]);
    }
    let Some(conditions) = ns["status"]["conditions"].as_array_mut() else {
        return false;
    };
    let mut changed = false;
    for (kind, ok_reason, ok_message) in TYPES {
        let (status, reason, message) = match failing.iter().find(|(t, ..)| *t == kind) {
            Some((_, reason, message)) => ("True", *reason, message.clone()),
            None => ("False", ok_reason, ok_message.to_string()),
        };
        let old = conditions.iter_mut().find(|c| c["type"] == kind);
        match old {
            None => {
                conditions.push(json!({
                    "type": kind,
                    "status": status,
                    "lastTransitionTime": now,
                    "reason": reason,
                    "message": message,
                }));
                changed = true;
            }
            Some(c) => {
                if c["status"] == status && c["reason"] == reason && c["message"] == *message {
                    continue;
                }
                if c["status"] != status {
                    c["lastTransitionTime"] = json!(now);
                }
                c["status"] = json!(status);
                c["reason"] = json!(reason);
                c["message"] = json!(message);
                changed = true;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(ns: &Value) -> Vec<(String, String, String)> {
        ns["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["type"].as_str().unwrap().to_string(),
                    c["status"].as_str().unwrap().to_string(),
                    c["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn remaining_content_and_finalizers_then_all_clear() {
        let mut ns = json!({"status": {"phase": "Terminating"}});
        let report = Report {
            content_errors: Vec::new(),
            remaining: [("widgets.example.com".into(), 2), ("configmaps.".into(), 1)].into(),
            finalizers: [("example.com/hold".into(), 2)].into(),
        };
        assert!(apply(&mut ns, &report, "2024-01-01T00:00:00Z"));
        let got = kinds(&ns);
        assert_eq!(got.len(), 5);
        assert_eq!(got[0].0, "NamespaceDeletionDiscoveryFailure");
        assert_eq!(
            got[3],
            (
                "NamespaceContentRemaining".into(),
                "True".into(),
                "Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances".into()
            )
        );
        assert_eq!(
            got[4].2,
            "Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances"
        );
        assert_eq!(
            ns["status"]["conditions"][4]["reason"],
            "SomeFinalizersRemain"
        );
        // The same report again changes nothing.
        assert!(!apply(&mut ns, &report, "2024-01-01T00:00:09Z"));
        // All clear: the status flips, and with it the transition time.
        assert!(apply(&mut ns, &Report::default(), "2024-01-01T00:00:10Z"));
        let c = &ns["status"]["conditions"][4];
        assert_eq!(
            (
                &c["status"],
                &c["reason"],
                &c["message"],
                &c["lastTransitionTime"]
            ),
            (
                &json!("False"),
                &json!("ContentHasNoFinalizers"),
                &json!("All content-preserving finalizers finished"),
                &json!("2024-01-01T00:00:10Z")
            )
        );
        assert_eq!(
            ns["status"]["conditions"][0]["lastTransitionTime"],
            "2024-01-01T00:00:00Z"
        );
    }

    #[test]
    fn content_errors_are_sorted_and_counted() {
        let mut ns = json!({});
        let report = Report {
            content_errors: vec!["b failed".into(), "a failed".into()],
            ..Report::default()
        };
        apply(&mut ns, &report, "t");
        let c = &ns["status"]["conditions"][2];
        assert_eq!(c["reason"], "ContentDeletionFailed");
        assert_eq!(
            c["message"],
            "Failed to delete all resource types, 2 remaining: a failed, b failed"
        );
    }
}
