//! The admission router's answers (apiVersion and uid echoed, 400/405/413/500) and
//! the typed helpers (decode errors with their path, patches of typed changes).

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine as _;
use crd_runtime::admission::review::{AdmissionRequest, AdmissionResponse};
use http_body_util::BodyExt as _;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower::ServiceExt as _;

use super::*;

async fn call(app: Router, method: &str, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn review(api_version: &str, uid: &str, object: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": api_version, "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
            "resource": {"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
            "name": "a", "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "system:admin"},
            "object": object
        }
    }))
    .unwrap()
}

fn crontab(spec: Value) -> Value {
    json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"name": "a", "namespace": "default",
                     "managedFields": [{"manager": "kubectl", "operation": "Update"}]},
        "spec": spec
    })
}

/// Denies a replica count over 3, allows the rest.
fn limit(request: &AdmissionRequest) -> AdmissionResponse {
    let replicas = request
        .object
        .as_ref()
        .and_then(|o| o["spec"]["replicas"].as_i64())
        .unwrap_or(0);
    if replicas > 3 {
        AdmissionResponse::deny(&request.uid, format!("{replicas} replicas is over 3"))
    } else {
        AdmissionResponse::allow(&request.uid).with_warning("checked")
    }
}

#[tokio::test]
async fn answers_with_the_request_api_version_and_uid() {
    for api_version in ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] {
        let body = review(api_version, "u-1", crontab(json!({"replicas": 2})));
        let (status, answer) = call(admission_router(limit), "POST", "/validate", body).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            answer,
            json!({"apiVersion": api_version, "kind": "AdmissionReview",
                   "response": {"uid": "u-1", "allowed": true, "warnings": ["checked"]}})
        );

        let body = review(api_version, "u-2", crontab(json!({"replicas": 5})));
        let (status, answer) = call(admission_router(limit), "POST", "/", body).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(answer["apiVersion"], api_version);
        assert_eq!(
            answer["response"],
            json!({"uid": "u-2", "allowed": false,
                   "status": {"message": "5 replicas is over 3", "code": 403}})
        );
    }
}

#[tokio::test]
async fn the_uid_is_the_request_one_whatever_the_handler_says() {
    let wrong = |_: &AdmissionRequest| AdmissionResponse::allow("not-the-uid");
    let body = review("admission.k8s.io/v1", "u-3", crontab(json!({})));
    let (_, answer) = call(admission_router(wrong), "POST", "/x", body).await;
    assert_eq!(answer["response"]["uid"], "u-3");
}

#[tokio::test]
async fn a_body_that_is_no_review_is_a_400_status() {
    let cases: [(&[u8], &str); 5] = [
        (b"not json", "cannot decode the body as an AdmissionReview: "),
        (
            br#"{"apiVersion":"v1","kind":"Pod"}"#,
            r#"expected an AdmissionReview of admission.k8s.io/v1 or admission.k8s.io/v1beta1, got kind "Pod" of apiVersion "v1""#,
        ),
        (
            br#"{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview"}"#,
            r#"got kind "AdmissionReview" of apiVersion "admission.k8s.io/v2""#,
        ),
        (
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#,
            "the admission.k8s.io/v1 AdmissionReview has no request",
        ),
        (
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"operation":7}}"#,
            "cannot decode the body as an AdmissionReview: request.operation: invalid type: integer `7`, expected a string",
        ),
    ];
    for (body, message) in cases {
        let (status, answer) = call(admission_router(limit), "POST", "/", body.to_vec()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["kind"], "Status");
        assert_eq!(answer["code"], 400);
        assert_eq!(answer["reason"], "BadRequest");
        let got = answer["message"].as_str().unwrap();
        assert!(got.contains(message), "{got:?} lacks {message:?}");
    }
}

#[tokio::test]
async fn only_post_and_bodies_up_to_3_mib() {
    let (status, _) = call(admission_router(limit), "GET", "/", vec![]).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);

    let big = "x".repeat(3 * 1024 * 1024);
    let body = review("admission.k8s.io/v1", "u", crontab(json!({"big": big})));
    let (status, _) = call(admission_router(limit), "POST", "/", body).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);

    // Just under the limit is read.
    let big = "x".repeat(3 * 1024 * 1024 - 1024);
    let body = review("admission.k8s.io/v1", "u", crontab(json!({"big": big})));
    let (status, _) = call(admission_router(limit), "POST", "/", body).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_panicking_handler_is_a_500() {
    let panics = |_: &AdmissionRequest| -> AdmissionResponse { panic!("handler bug") };
    let body = review("admission.k8s.io/v1", "u", crontab(json!({})));
    let (status, answer) = call(admission_router(panics), "POST", "/", body).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(answer["message"], "the admission handler panicked");
}

/// An asynchronous handler, implemented on a type.
struct Slow;

impl AdmissionHandler for Slow {
    async fn review(&self, request: &AdmissionRequest) -> AdmissionResponse {
        tokio::task::yield_now().await;
        AdmissionResponse::deny(&request.uid, "slow no")
    }
}

#[tokio::test]
async fn routes_by_path() {
    let app = AdmissionRoutes::new()
        .route("/validate", limit)
        .route("/deny", Slow)
        .into_router();
    let body = review("admission.k8s.io/v1", "u", crontab(json!({"replicas": 1})));
    let (_, answer) = call(app.clone(), "POST", "/validate", body.clone()).await;
    assert_eq!(answer["response"]["allowed"], true);
    let (_, answer) = call(app.clone(), "POST", "/deny", body.clone()).await;
    assert_eq!(answer["response"]["status"]["message"], "slow no");
    let (status, _) = call(app, "POST", "/mutate", body).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[derive(Debug, Serialize, Deserialize)]
struct Tab {
    metadata: crd_runtime::ObjectMeta,
    spec: TabSpec,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TabSpec {
    cron_spec: String,
    #[serde(default)]
    replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image: Option<String>,
}

fn request(object: Option<Value>) -> AdmissionRequest {
    let mut body: Value =
        serde_json::from_slice(&review("admission.k8s.io/v1", "u-9", Value::Null)).unwrap();
    body["request"]["object"] = object.unwrap_or(Value::Null);
    serde_json::from_value(body["request"].take()).unwrap()
}

#[test]
fn object_as_names_the_failing_field() {
    let ok = request(Some(crontab(
        json!({"cronSpec": "* * * * *", "replicas": 2}),
    )));
    let tab: Tab = ok.object_as().unwrap();
    assert_eq!(
        (tab.spec.cron_spec.as_str(), tab.spec.replicas),
        ("* * * * *", 2)
    );

    let bad = request(Some(crontab(
        json!({"cronSpec": "* * * * *", "replicas": "two"}),
    )));
    let err = bad.object_as::<Tab>().unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"cannot decode request.object (stable.example.com/v1, Kind=CronTab): spec.replicas: invalid type: string "two", expected i32"#
    );
    let denial = err.deny("u-9");
    assert_eq!(denial.status.as_ref().unwrap()["code"], 400);

    let err = ok.old_object_as::<Tab>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "request.oldObject is absent (CREATE of stable.example.com/v1, Kind=CronTab)"
    );
}

fn decoded_patch(response: &AdmissionResponse) -> Value {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(response.patch.as_ref().expect("a patch"))
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
fn mutate_object_patches_only_the_typed_change() {
    // `managedFields` is unknown to `Tab` and `replicas` absent (a serde default):
    // the patch leaves the first alone and adds the second when changed.
    let raw = crontab(json!({"cronSpec": "* * * * *"}));
    let req = request(Some(raw.clone()));
    let response = mutate_object(&req, |tab: &mut Tab| {
        tab.spec.image = Some("busybox".into());
        tab.spec.replicas = 1;
        tab.metadata
            .labels
            .get_or_insert_default()
            .insert("checked".into(), "true".into());
    })
    .unwrap();
    assert!(response.allowed);
    assert_eq!(response.uid, "u-9");
    assert_eq!(response.patch_type.as_deref(), Some("JSONPatch"));
    let ops = decoded_patch(&response);
    let mut patched = raw.clone();
    json_patch::patch(
        &mut patched,
        &serde_json::from_value::<json_patch::Patch>(ops.clone()).unwrap(),
    )
    .unwrap();
    let mut expected = raw;
    expected["spec"]["image"] = json!("busybox");
    expected["spec"]["replicas"] = json!(1);
    expected["metadata"]["labels"] = json!({"checked": "true"});
    assert_eq!(patched, expected, "{ops}");
    assert!(
        ops.as_array().unwrap().iter().all(|op| op["op"] == "add"),
        "{ops}"
    );

    // Nothing changed: no patch at all.
    let response = mutate_object(&req, |_: &mut Tab| {}).unwrap();
    assert_eq!(
        (response.allowed, response.patch, response.patch_type),
        (true, None, None)
    );

    // A changed value is replaced where it is.
    let req = request(Some(crontab(
        json!({"cronSpec": "* * * * *", "replicas": 4}),
    )));
    let response = mutate_object(&req, |tab: &mut Tab| tab.spec.replicas = 2).unwrap();
    assert_eq!(
        decoded_patch(&response),
        json!([{"op": "replace", "path": "/spec/replicas", "value": 2}])
    );

    let err = mutate_object(&request(None), |_: &mut Tab| {}).unwrap_err();
    assert!(
        matches!(
            err,
            ObjectError::Missing {
                field: "object",
                ..
            }
        ),
        "{err}"
    );
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Limits {
    cpu: i32,
    #[serde(default)]
    memory: i32,
}

#[derive(Debug, Serialize, Deserialize)]
struct WithDefaults {
    spec: DefaultedSpec,
}

#[derive(Debug, Serialize, Deserialize)]
struct DefaultedSpec {
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    tags: Vec<String>,
}

#[test]
fn a_change_under_a_member_the_object_lacks_adds_the_member() {
    // `spec.limits` and `spec.tags` are serde defaults: absent from the object sent.
    let raw = json!({"spec": {}});
    let req = request(Some(raw.clone()));
    let response = mutate_object(&req, |o: &mut WithDefaults| {
        o.spec.limits.cpu = 2;
        o.spec.tags.clear();
    })
    .unwrap();
    let ops = decoded_patch(&response);
    assert_eq!(
        ops,
        json!([{"op": "add", "path": "/spec/limits", "value": {"cpu": 2, "memory": 0}}])
    );
    let req = request(Some(json!({"spec": {"tags": ["a", "b"]}})));
    let response = mutate_object(&req, |o: &mut WithDefaults| {
        o.spec.tags.remove(0);
    })
    .unwrap();
    assert_eq!(
        decoded_patch(&response),
        json!([{"op": "replace", "path": "/spec/tags/0", "value": "b"},
               {"op": "remove", "path": "/spec/tags/1"}])
    );
}

#[test]
fn json_patch_ops_is_rfc_6902() {
    let a = json!({"a": 1, "list": [1, 2, 3], "gone": true, "k/~": 1});
    let b = json!({"a": 2, "list": [1], "new": {"x": null}, "k/~": 2});
    let ops = json_patch_ops(&a, &b);
    let mut doc = a.clone();
    json_patch::patch(
        &mut doc,
        &serde_json::from_value::<json_patch::Patch>(ops.clone()).unwrap(),
    )
    .unwrap();
    assert_eq!(doc, b, "{ops}");
    assert!(ops.to_string().contains(r#""path":"/k~1~0""#), "{ops}");
    assert_eq!(json_patch_ops(&a, &a), json!([]));
}
