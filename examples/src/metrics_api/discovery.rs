//! What the aggregator and kubectl read before any object: discovery (`/apis`, the
//! group, the APIResourceList kube-aggregator's availability check asks for) and the
//! OpenAPI v2 and v3 documents with the NodeMetrics schema (`kubectl explain`, the API
//! server's merged OpenAPI).

use std::hash::{Hash, Hasher};

use axum::Json;
use serde_json::{Value, json};

use super::{GROUP, KIND, RESOURCE, VERSION};

fn group_version() -> String {
    format!("{GROUP}/{VERSION}")
}

fn api_group() -> Value {
    let version = json!({"groupVersion": group_version(), "version": VERSION});
    json!({
        "kind": "APIGroup", "apiVersion": "v1", "name": GROUP,
        "versions": [version], "preferredVersion": version,
    })
}

/// `GET /apis`.
pub(super) async fn group_list() -> Json<Value> {
    let mut group = api_group();
    if let Some(g) = group.as_object_mut() {
        g.remove("kind");
        g.remove("apiVersion");
    }
    Json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": [group]}))
}

/// `GET /apis/metrics.example.com`.
pub(super) async fn group() -> Json<Value> {
    Json(api_group())
}

/// `GET /apis/metrics.example.com/v1`: what kube-aggregator checks for availability.
pub(super) async fn resource_list() -> Json<Value> {
    Json(json!({
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version(),
        "resources": [{
            "name": RESOURCE, "singularName": RESOURCE, "namespaced": false, "kind": KIND,
            "verbs": ["get", "list"], "shortNames": ["nm"],
        }],
    }))
}

/// The schemas of NodeMetrics and its list, with the metadata they refer to, keyed
/// by definition name; `prefix` is where references point (`#/definitions/` in v2,
/// `#/components/schemas/` in v3).
fn schemas(prefix: &str) -> Value {
    let meta = "io.k8s.apimachinery.pkg.apis.meta.v1";
    let kind_ref = |name: &str| json!({"$ref": format!("{prefix}{name}")});
    let gvk = |kind: &str| json!([{"group": GROUP, "version": VERSION, "kind": kind}]);
    let string = |description: &str| json!({"type": "string", "description": description});
    let quantity = json!({"type": "string", "description": "A resource quantity (`250m`, `1Gi`)."});
    json!({
        "com.example.metrics.v1.NodeMetrics": {
            "description": "NodeMetrics is the resource usage of a Node.",
            "type": "object",
            "properties": {
                "apiVersion": string("The versioned schema of this object."),
                "kind": string("The REST resource this object represents."),
                "metadata": kind_ref(&format!("{meta}.ObjectMeta")),
                "timestamp": {"type": "string", "format": "date-time",
                              "description": "When the usage was sampled."},
                "window": string("The time the sample covers, e.g. 30s."),
                "usage": {
                    "type": "object",
                    "description": "The resources in use.",
                    "properties": {"cpu": quantity.clone(), "memory": quantity},
                },
            },
            "x-kubernetes-group-version-kind": gvk(KIND),
        },
        "com.example.metrics.v1.NodeMetricsList": {
            "description": "NodeMetricsList is a list of NodeMetrics.",
            "type": "object",
            "required": ["items"],
            "properties": {
                "apiVersion": string("The versioned schema of this object."),
                "kind": string("The REST resource this object represents."),
                "metadata": kind_ref(&format!("{meta}.ListMeta")),
                "items": {"type": "array", "items": kind_ref("com.example.metrics.v1.NodeMetrics")},
            },
            "x-kubernetes-group-version-kind": gvk(&format!("{KIND}List")),
        },
        format!("{meta}.ObjectMeta"): {
            "description": "Standard object metadata.",
            "type": "object",
            "properties": {
                "name": string("The object's name."),
                "creationTimestamp": {"type": "string", "format": "date-time",
                                      "description": "When the object was made."},
            },
        },
        format!("{meta}.ListMeta"): {
            "description": "Standard list metadata.",
            "type": "object",
            "properties": {"resourceVersion": string("The list's version.")},
        },
    })
}

/// The GET operations of the resource, for a document's `paths`.
fn paths(prefix: &str) -> Value {
    let base = format!("/apis/{GROUP}/{VERSION}/{RESOURCE}");
    let operation = |id: &str, schema: &str, action: &str| {
        json!({"get": {
            "operationId": id,
            "responses": {"200": {"description": "OK", "schema": {"$ref": format!("{prefix}{schema}")}}},
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": {"group": GROUP, "version": VERSION, "kind": KIND},
        }})
    };
    json!({
        base.clone(): operation("listMetricsExampleComV1NodeMetrics", "com.example.metrics.v1.NodeMetricsList", "list"),
        format!("{base}/{{name}}"): operation("readMetricsExampleComV1NodeMetrics", "com.example.metrics.v1.NodeMetrics", "get"),
    })
}

/// `GET /openapi/v2`.
pub(super) async fn openapi_v2() -> Json<Value> {
    Json(json!({
        "swagger": "2.0",
        "info": {"title": "metrics-apiserver", "version": VERSION},
        "paths": paths("#/definitions/"),
        "definitions": schemas("#/definitions/"),
    }))
}

fn openapi_v3_document() -> Value {
    let mut paths = paths("#/components/schemas/");
    // v3 names a response's schema under its media type.
    for op in paths
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut())
    {
        let ok = &mut op["get"]["responses"]["200"];
        let schema = ok["schema"].take();
        ok.as_object_mut().map(|o| o.remove("schema"));
        ok["content"] = json!({"application/json": {"schema": schema}});
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": "metrics-apiserver", "version": VERSION},
        "paths": paths,
        "components": {"schemas": schemas("#/components/schemas/")},
    })
}

/// `GET /openapi/v3`: the index, each group-version with a URL that changes when its
/// document does (clients cache by it).
pub(super) async fn openapi_v3_index() -> Json<Value> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    openapi_v3_document().to_string().hash(&mut hasher);
    let url = format!(
        "/openapi/v3/apis/{GROUP}/{VERSION}?hash={:016X}",
        hasher.finish()
    );
    Json(json!({"paths": {format!("apis/{GROUP}/{VERSION}"): {"serverRelativeURL": url}}}))
}

/// `GET /openapi/v3/apis/metrics.example.com/v1`.
pub(super) async fn openapi_v3() -> Json<Value> {
    Json(openapi_v3_document())
}
