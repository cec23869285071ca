//! The `meta.k8s.io/v1` Table of NodeMetrics that `kubectl get` prints: NAME, CPU,
//! MEMORY, WINDOW, each row carrying the object's metadata (`includeObject=Metadata`,
//! kubectl's default).

use serde_json::{Value, json};

/// The Table of `items` (NodeMetrics objects).
pub(super) fn table(items: &[Value], resource_version: &str) -> Value {
    let column = |name: &str, format: &str, description: &str| {
        json!({"name": name, "type": "string", "format": format,
               "description": description, "priority": 0})
    };
    let rows: Vec<Value> = items
        .iter()
        .map(|m| {
            json!({
                "cells": [m["metadata"]["name"], m["usage"]["cpu"], m["usage"]["memory"], m["window"]],
                "object": {
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": m["metadata"],
                },
            })
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version},
        "columnDefinitions": [
            column("Name", "name", "The Node's name."),
            column("CPU", "", "CPU in use, in millicores."),
            column("Memory", "", "Memory in use."),
            column("Window", "", "The time the sample covers."),
        ],
        "rows": rows,
    })
}
