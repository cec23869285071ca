//! crd-server's request handling: method, path, query string, headers and body
//! from the fuzzer, against the API with the CronTab CRD (in-memory store). Never a
//! panic; every error answer is a Kubernetes `Status` object with a matching code.
//! Each input runs against a fresh, empty in-memory store, so runs are reproducible.
//!
//! Input: `METHOD PATH?QUERY`, then `Name: value` header lines, an empty line, and
//! the body (seeded with real kubectl requests).
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime")
    })
}

/// A fresh API per input (the in-memory store starts empty): state carried over
/// from earlier inputs made findings depend on the run's history, and messages
/// quote names those earlier inputs chose.
fn app() -> Router {
    static CONFIG: OnceLock<crd_server::Config> = OnceLock::new();
    let config = CONFIG.get_or_init(|| {
        let crd_file = crd_toolkit_fuzz::shared_dir().join("fixtures/crontab/crd-full.yaml");
        let crds = crd_server::server::load_crd_files(&[crd_file]).expect("CronTab CRD");
        crd_server::Config {
            store: crd_server::StoreConfig::InMemory,
            crds,
            ..crd_server::Config::default()
        }
    });
    runtime().block_on(async {
        let app = crd_server::app(config).await.expect("the API starts");
        // One object to update, patch, apply to (with conflicts) and delete.
        let create = http::Request::post(
            "/apis/stable.example.com/v1/namespaces/default/crontabs?fieldManager=seed",
        )
        .header("content-type", "application/json")
        .body(axum::body::Body::from(SEED_OBJECT))
        .expect("a valid request");
        let response = app.clone().oneshot(create).await.expect("infallible");
        assert_eq!(
            response.status(),
            http::StatusCode::CREATED,
            "the seed object is created"
        );
        app
    })
}

const SEED_OBJECT: &str = r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","image":"img","replicas":2}}"#;

fn request(data: &[u8]) -> Option<http::Request<axum::body::Body>> {
    let split = data.windows(2).position(|w| w == b"\n\n");
    let (head, body) = match split {
        Some(at) => (&data[..at], data[at + 2..].to_vec()),
        None => (data, Vec::new()),
    };
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.lines();
    let (method, target) = lines.next()?.split_once(' ')?;
    let mut builder = http::Request::builder().method(method).uri(target);
    for line in lines {
        let (name, value) = line.split_once(':')?;
        builder = builder.header(name.trim(), value.trim());
    }
    builder.body(axum::body::Body::from(body)).ok()
}

fuzz_target!(|data: &[u8]| {
    let Some(req) = request(data) else { return };
    let watch = req.uri().query().is_some_and(|q| q.contains("watch"));
    // Built before block_on: building it blocks on the runtime itself.
    let app = app();
    runtime().block_on(async {
        let response = app.oneshot(req).await.expect("infallible");
        let status = response.status();
        if watch && status.is_success() {
            return;
        }
        let Ok(Ok(body)) =
            tokio::time::timeout(Duration::from_millis(200), response.into_body().collect()).await
        else {
            return;
        };
        let body = body.to_bytes();
        if status.is_client_error() || status.is_server_error() {
            let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body) else {
                panic!(
                    "{status} without a Status body: {}",
                    String::from_utf8_lossy(&body)
                );
            };
            assert_eq!(value["kind"], "Status", "{value}");
            assert_eq!(value["code"], status.as_u16(), "{value}");
            let message = value["message"].as_str().unwrap_or("");
            crd_toolkit_fuzz::MessageCheck::new(data).assert_clean(message);
        }
    });
});
