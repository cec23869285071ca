//! A small admission webhook for tests and benches: HTTPS on a free loopback port
//! with a fresh self-signed CA, answering every `AdmissionReview` POSTed to any path
//! with what a closure decides, and recording the requests it got.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use serde_json::{Value, json};

/// What the webhook answers.
pub enum Reply {
    /// An `AdmissionReview` with this `response` (its `uid` is filled in when absent),
    /// in the request's `apiVersion`.
    Review(Value),
    /// A raw body with a status code (garbage, errors).
    Raw(u16, String),
    /// Waits, then answers the inner reply.
    Slow(Duration, Box<Reply>),
}

impl Reply {
    /// Allows.
    pub fn allow() -> Reply {
        Reply::Review(json!({"allowed": true}))
    }

    /// Denies with `message` and `code`.
    pub fn deny(message: &str, code: u16) -> Reply {
        Reply::Review(json!({"allowed": false, "status": {"message": message, "code": code}}))
    }

    /// Allows with a JSON patch.
    pub fn patch(operations: Value) -> Reply {
        let patch = base64::engine::general_purpose::STANDARD.encode(operations.to_string());
        Reply::Review(json!({"allowed": true, "patchType": "JSONPatch", "patch": patch}))
    }
}

/// The path that always denies, with [`PROBE_MESSAGE`].
pub const PROBE_PATH: &str = "/probe";
/// What `/probe` denies with.
pub const PROBE_MESSAGE: &str = "probe";

/// Decides the answer to the `request` of a review POSTed to `path`.
pub type Handler = dyn Fn(&str, &Value) -> Reply + Send + Sync;

struct Shared {
    handler: Box<Handler>,
    /// (path, review apiVersion, request) of every call.
    calls: Mutex<Vec<(String, String, Value)>>,
}

/// A running webhook; dropping it stops it.
pub struct TestWebhook {
    addr: std::net::SocketAddr,
    ca_bundle: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl TestWebhook {
    /// Starts a webhook answering with `handler`.
    pub async fn start(handler: impl Fn(&str, &Value) -> Reply + Send + Sync + 'static) -> Self {
        let tls = crd_server::tls::SelfSigned::generate().expect("certificate");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let shared = Arc::new(Shared {
            handler: Box::new(handler),
            calls: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .fallback(review)
            .with_state(shared.clone());
        let task = tokio::spawn(crd_server::tls::serve(listener, tls.acceptor(), app));
        TestWebhook {
            addr,
            ca_bundle: base64::engine::general_purpose::STANDARD.encode(&tls.ca_pem),
            shared,
            task,
        }
    }

    /// `https://ADDR/PATH`.
    pub fn url(&self, path: &str) -> String {
        format!("https://{}/{}", self.addr, path.trim_start_matches('/'))
    }

    /// The CA, base64 (a `clientConfig.caBundle`).
    pub fn ca_bundle(&self) -> &str {
        &self.ca_bundle
    }

    /// The `request`s received on `path`.
    pub fn calls(&self, path: &str) -> Vec<Value> {
        let path = format!("/{}", path.trim_start_matches('/'));
        self.shared
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| *p == path)
            .map(|(_, _, r)| r.clone())
            .collect()
    }

    /// The `apiVersion`s of the reviews received on `path`.
    pub fn review_versions(&self, path: &str) -> Vec<String> {
        let path = format!("/{}", path.trim_start_matches('/'));
        self.shared
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _, _)| *p == path)
            .map(|(_, v, _)| v.clone())
            .collect()
    }

    /// A webhook entry for a configuration: `name`, calling `path`, matching `rules`
    /// (more fields are merged by the caller).
    pub fn hook(&self, name: &str, path: &str, rules: Value) -> Value {
        json!({
            "name": name,
            "clientConfig": {"url": self.url(path), "caBundle": self.ca_bundle},
            "rules": rules,
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
        })
    }
}

impl Drop for TestWebhook {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn review(State(shared): State<Arc<Shared>>, uri: Uri, body: Bytes) -> Response {
    let Ok(review) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let request = review.get("request").cloned().unwrap_or(Value::Null);
    let path = uri.path().to_string();
    shared.calls.lock().unwrap().push((
        path.clone(),
        review["apiVersion"].as_str().unwrap_or("").to_string(),
        request.clone(),
    ));
    // `/probe` always denies: tests call it to see that a configuration is in effect.
    let mut reply = if path == PROBE_PATH {
        Reply::deny(PROBE_MESSAGE, 403)
    } else {
        (shared.handler)(&path, &request)
    };
    loop {
        match reply {
            Reply::Slow(wait, inner) => {
                tokio::time::sleep(wait).await;
                reply = *inner;
            }
            Reply::Review(mut response) => {
                if response.get("uid").is_none() {
                    response["uid"] = request["uid"].clone();
                }
                let answer = json!({"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                                    "response": response});
                return (
                    StatusCode::OK,
                    [(header::CONTENT_TYPE, "application/json")],
                    answer.to_string(),
                )
                    .into_response();
            }
            Reply::Raw(code, text) => {
                return (
                    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    [(header::CONTENT_TYPE, "application/json")],
                    text,
                )
                    .into_response();
            }
        }
    }
}
