//! `crd_server::app` as a plain service (no listener), driven with the kinds of
//! request the request fuzzer (`fuzz/fuzz_targets/server_request.rs`) produces:
//! every refusal is a `Status` object whose `code` is the HTTP status, never a panic.

use std::path::PathBuf;

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

async fn api() -> axum::Router {
    let crd = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/crontab/crd-full.yaml");
    let crds = crd_server::server::load_crd_files(&[crd]).expect("the CronTab CRD loads");
    let config = crd_server::Config {
        store: crd_server::StoreConfig::InMemory,
        crds,
        ..crd_server::Config::default()
    };
    crd_server::app(&config).await.expect("the API starts")
}

async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(Body::from(body))
        .expect("a well-formed request");
    let response = app
        .clone()
        .oneshot(request)
        .await
        .expect("the service is infallible");
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    let value = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
        panic!(
            "{method} {uri}: {status} with a body that is not JSON: {}",
            String::from_utf8_lossy(&bytes)
        )
    });
    (status, value)
}

const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

#[tokio::test]
async fn hostile_requests_get_a_status_with_the_right_code() {
    let app = api().await;
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000)).into_bytes();
    let cases: Vec<(&str, String, &str, Vec<u8>, u16)> = vec![
        (
            "POST",
            CRONTABS.into(),
            "application/json",
            b"{".to_vec(),
            400,
        ),
        (
            "POST",
            CRONTABS.into(),
            "application/json",
            deep.clone(),
            400,
        ),
        (
            "POST",
            CRONTABS.into(),
            "application/json",
            vec![0xff, 0xfe, b'{'],
            400,
        ),
        (
            "POST",
            CRONTABS.into(),
            "application/json",
            br#"{"kind":"CronTab","kind":"x"}"#.to_vec(),
            400,
        ),
        (
            "POST",
            CRONTABS.into(),
            "application/yaml",
            b"a: &a [*a]".to_vec(),
            400,
        ),
        ("POST", CRONTABS.into(), "text/plain", b"{}".to_vec(), 415),
        (
            "PATCH",
            format!("{CRONTABS}/x"),
            "application/json-patch+json",
            deep,
            404,
        ),
        (
            "PATCH",
            format!("{CRONTABS}/x"),
            "application/bogus-patch",
            b"{}".to_vec(),
            415,
        ),
        (
            "GET",
            format!("{CRONTABS}?labelSelector=a%20in%20(((("),
            "",
            Vec::new(),
            400,
        ),
        (
            "GET",
            format!("{CRONTABS}?fieldSelector=spec.nope%3Dx"),
            "",
            Vec::new(),
            400,
        ),
        (
            "GET",
            format!("{CRONTABS}?limit=-1&continue=%00%ff"),
            "",
            Vec::new(),
            400,
        ),
        (
            "GET",
            format!("{CRONTABS}?watch=true&resourceVersion=abc"),
            "",
            Vec::new(),
            400,
        ),
        (
            "POST",
            "/apis/stable.example.com/v1/namespaces/../crontabs".into(),
            "application/json",
            br#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":".."}}"#
                .to_vec(),
            404,
        ),
        (
            "GET",
            "/apis/nope.example.com/v1/things".into(),
            "",
            Vec::new(),
            404,
        ),
        (
            "DELETE",
            format!("{CRONTABS}/{}", "a".repeat(10_000)),
            "",
            Vec::new(),
            404,
        ),
        (
            "PUT",
            format!("{CRONTABS}/x/status"),
            "application/json",
            b"[]".to_vec(),
            400,
        ),
    ];
    for (method, uri, content_type, body, expected) in cases {
        let (status, value) = send(&app, method, &uri, content_type, body).await;
        let shown = &uri[..uri.len().min(80)];
        assert_eq!(value["kind"], "Status", "{method} {shown}: {value}");
        assert_eq!(value["code"], status.as_u16(), "{method} {shown}: {value}");
        assert_eq!(status.as_u16(), expected, "{method} {shown}: {value}");
        let message = value["message"].as_str().unwrap_or_default();
        assert!(
            !message.is_empty() && !message.contains("Error {"),
            "{method} {shown}: {message}"
        );
    }
}

/// Dropping the service releases its store: the same data directory opens again at
/// once (redb refuses a second open while the first is alive). Background tasks
/// used to keep the store alive after the service was gone, leaking about 1 MB per
/// `app()` (found by the request fuzzer, which builds a fresh API per input).
#[tokio::test]
async fn dropping_the_service_releases_its_store() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = crd_server::Config {
        store: crd_server::StoreConfig::DataDir(dir.path().to_path_buf()),
        ..crd_server::Config::default()
    };
    for round in 0..3 {
        let app = crd_server::app(&config)
            .await
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        let (status, _) = send(&app, "GET", "/api/v1/namespaces/default", "", Vec::new()).await;
        assert_eq!(status, StatusCode::OK);
        drop(app);
        // Aborted tasks are dropped when the runtime next polls them.
        tokio::task::yield_now().await;
    }
}
