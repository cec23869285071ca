//! The operator's webhooks on crd-server's helpers, answering the reviews the API server
//! POSTs (driven in-process through the axum routers `serve_router` serves).

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use base64::Engine as _;
use crd_toolkit_downstream::webhooks;
use serde_json::{Value, json};
use tower::ServiceExt as _;

async fn post(app: Router, path: &str, body: Value) -> Value {
    let request = Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn admission_review(namespace: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "ops.example.com", "version": "v1", "kind": "Backup"},
            "resource": {"group": "ops.example.com", "version": "v1", "resource": "backups"},
            "name": "nightly", "namespace": namespace, "operation": "CREATE",
            "userInfo": {"username": "admin"},
            "object": {
                "apiVersion": "ops.example.com/v1", "kind": "Backup",
                "metadata": {"name": "nightly", "namespace": namespace},
                "spec": spec
            }
        }
    })
}

#[tokio::test]
async fn the_validating_webhook_admits_as_the_api_server_would() {
    let app = webhooks::admission_routes().into_router();
    let good = json!({"volume": "data", "keep": 3, "retainDays": 7});
    let answer = post(app.clone(), "/validate", admission_review("default", good)).await;
    assert_eq!(answer["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(
        answer["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );
    assert_eq!(answer["response"]["allowed"], true);

    let bad = json!({"volume": "data", "keep": 10, "retainDays": 7});
    let answer = post(app.clone(), "/validate", admission_review("default", bad)).await;
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(
        answer["response"]["status"]["message"],
        "spec: Invalid value: keep must not exceed retainDays"
    );

    let good = json!({"volume": "data", "keep": 3, "retainDays": 7});
    let answer = post(app, "/validate", admission_review("kube-system", good)).await;
    assert_eq!(answer["response"]["allowed"], false);
    assert_eq!(
        answer["response"]["status"]["message"],
        "no backups in kube-system"
    );
}

#[tokio::test]
async fn the_mutating_webhook_answers_with_a_json_patch() {
    let app = webhooks::admission_routes().into_router();
    let spec = json!({"volume": "data", "keep": 3, "retainDays": 7});
    let answer = post(app, "/mutate", admission_review("default", spec)).await;
    let response = &answer["response"];
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    let patch = base64::engine::general_purpose::STANDARD
        .decode(response["patch"].as_str().unwrap())
        .unwrap();
    let patch: Value = serde_json::from_slice(&patch).unwrap();
    assert_eq!(
        patch,
        json!([{"op": "add", "path": "/metadata/labels",
                "value": {"backup.ops.example.com/volume": "data"}}])
    );
}

#[tokio::test]
async fn the_conversion_webhook_converts_between_versions() {
    let app = crd_webhook::router(webhooks::converter());
    let review = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {
            "uid": "c1",
            "desiredAPIVersion": "ops.example.com/v2",
            "objects": [{
                "apiVersion": "ops.example.com/v1", "kind": "Backup",
                "metadata": {"name": "nightly", "namespace": "default", "uid": "u1"},
                "spec": {"volume": "data", "keep": 4, "retainDays": 7}
            }]
        }
    });
    let answer = post(app, "/convert", review).await;
    let response = &answer["response"];
    assert_eq!(response["uid"], "c1");
    assert_eq!(response["result"]["status"], "Success");
    let converted = &response["convertedObjects"][0];
    assert_eq!(converted["apiVersion"], "ops.example.com/v2");
    assert_eq!(
        converted["spec"],
        json!({"volume": "data", "copies": 4, "retainDays": 7})
    );
}
