//! kwok's `stages.kwok.x-k8s.io` CustomResourceDefinition, installed by the kwok
//! controller as kwok's deployment installs it, so `kubectl apply -f stage.yaml` and
//! `kubectl get stages` work; what its schema cannot check (operators, keys,
//! templates) the server checks at create and update (`crate::stages::validate`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::controllers::cache::Informer;
use crate::controllers::workload::Api;
use crate::stages::{GROUP, VERSION};

/// How long the controller waits for the CRD to be served (bounded polls).
const POLLS: u32 = 400;
const POLL: Duration = Duration::from_millis(25);

/// Installs the CRD (kept when it exists) and returns the Stages' informer once the
/// kind is served; `None` when the server never serves it.
pub async fn install(api: &Api) -> Option<Arc<Informer>> {
    let crds = api
        .informer("apiextensions.k8s.io", "customresourcedefinitions")
        .ok()?;
    if crds.get("", &format!("stages.{GROUP}")).is_none() {
        // AlreadyExists (a restart over a durable store, or the user's own copy) is fine.
        let _ = api.create(&crds, "", definition()).await;
    }
    for _ in 0..POLLS {
        if let Some(inf) = api.cache.informer_at(GROUP, VERSION, "stages") {
            return Some(inf);
        }
        tokio::time::sleep(POLL).await;
    }
    None
}

fn string() -> Value {
    json!({"type": "string"})
}

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn int64() -> Value {
    json!({"type": "integer", "format": "int64"})
}

/// `ExpressionFromSource` (with kwok's newer `jq` form).
fn expression_from() -> Value {
    json!({"type": "object", "properties": {
        "expressionFrom": string(),
        "jq": {"type": "object", "properties": {"expression": string()}},
    }})
}

fn finalizer_items() -> Value {
    json!({"type": "array", "items": {"type": "object", "required": ["value"],
            "properties": {"value": string()}}})
}

/// The CRD, with kwok's `v1alpha1` schema.
pub fn definition() -> Value {
    let expression = json!({"type": "object", "properties": {
        "key": string(),
        "operator": string(),
        "values": strings(),
        "jq": {"type": "object", "properties": {
            "key": string(), "operator": string(), "values": strings()}},
    }});
    let spec = json!({
        "type": "object",
        "required": ["resourceRef"],
        "properties": {
            "resourceRef": {"type": "object", "required": ["kind"], "properties": {
                "apiGroup": string(), "kind": string()}},
            "selector": {"type": "object", "properties": {
                "matchLabels": {"type": "object", "additionalProperties": string()},
                "matchAnnotations": {"type": "object", "additionalProperties": string()},
                "matchExpressions": {"type": "array", "items": expression},
            }},
            "weight": {"type": "integer"},
            "weightFrom": expression_from(),
            "delay": {"type": "object", "properties": {
                "durationMilliseconds": int64(),
                "durationFrom": expression_from(),
                "jitterDurationMilliseconds": int64(),
                "jitterDurationFrom": expression_from(),
            }},
            "next": {"type": "object", "properties": {
                "statusTemplate": string(),
                "statusSubresource": string(),
                "finalizers": {"type": "object", "properties": {
                    "add": finalizer_items(), "remove": finalizer_items(),
                    "empty": {"type": "boolean"}}},
                "delete": {"type": "boolean"},
                "event": {"type": "object", "properties": {
                    "type": string(), "reason": string(), "message": string()}},
            }},
            "immediateNextStage": {"type": "boolean"},
        },
    });
    let status = json!({"type": "object", "properties": {
        "conditions": {"type": "array", "items": {
            "type": "object", "x-kubernetes-preserve-unknown-fields": true}}}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("stages.{GROUP}")},
        "spec": {
            "group": GROUP,
            "names": {"kind": "Stage", "listKind": "StageList", "plural": "stages",
                      "singular": "stage"},
            "scope": "Cluster",
            "versions": [{
                "name": VERSION,
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": "Stage is an API that describes the staged change of a resource",
                    "required": ["spec"],
                    "properties": {
                        "apiVersion": string(),
                        "kind": string(),
                        "metadata": {"type": "object"},
                        "spec": spec,
                        "status": status,
                    },
                }},
            }],
        },
    })
}
