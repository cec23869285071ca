//! Requests kubectl does not make: bad input and faults get the server's Status, never a
//! panic; concurrent writers; pagination; generateName; auth and TLS refusal.

mod support;

use std::time::Duration;

use bytes::Bytes;
use crd_server::TestServer;
use http::{Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};

const CRD: &str = include_str!("../../../shared/fixtures/crontab/crd-full.yaml");

struct Api {
    base: String,
    client: Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>,
}

impl Api {
    fn new(base: String) -> Api {
        Api {
            base,
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        content_type: &str,
        body: impl Into<Bytes>,
    ) -> (StatusCode, Value) {
        let req = http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("content-type", content_type)
            .body(Full::new(body.into()))
            .expect("request");
        let resp = tokio::time::timeout(Duration::from_secs(10), self.client.request(req))
            .await
            .expect("an answer within 10 s")
            .expect("the request is answered");
        let status = resp.status();
        let bytes = resp.into_body().collect().await.expect("body").to_bytes();
        let v = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (status, v)
    }

    async fn json(&self, method: Method, path: &str, body: &Value) -> (StatusCode, Value) {
        self.call(method, path, "application/json", body.to_string())
            .await
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, "application/json", Bytes::new())
            .await
    }
}

/// Sends only the head of a 4 MiB POST and returns what the server answers.
async fn too_large_answer(base: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://");
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST {CT} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        4 * 1024 * 1024
    );
    tcp.write_all(head.as_bytes()).await.expect("write");
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut answer))
        .await
        .expect("answer in time")
        .expect("read");
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

const CT: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn crontab(name: &str) -> Value {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": name},
           "spec": {"cronSpec": "* * * * */5", "image": "x"}})
}

async fn server() -> (TestServer, Api) {
    let server = TestServer::builder()
        .crd_yaml(CRD)
        .start()
        .await
        .expect("server");
    let api = Api::new(server.url());
    (server, api)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_the_servers_status() {
    let (_server, api) = server().await;
    // Over 3 MiB: refused from the declared length, before the body is read (a client
    // still writing would see its connection closed, so the request is written by hand).
    let head = too_large_answer(&api.base).await;
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert!(head.contains("RequestEntityTooLarge"), "{head}");
    let (code, s) = api
        .call(Method::POST, CT, "application/json", "{\"apiVersion\": ")
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{s}");
    assert_eq!(s["kind"], "Status");
    let (code, s) = api.call(Method::POST, CT, "text/plain", "x").await;
    assert_eq!(code, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{s}");
    let mut wrong = crontab("a");
    wrong["kind"] = json!("Other");
    let (code, s) = api.json(Method::POST, CT, &wrong).await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    assert_eq!(
        s["message"],
        "the kind in the data (Other) does not match the expected kind (CronTab)"
    );
    let mut wrong = crontab("a");
    wrong["apiVersion"] = json!("stable.example.com/v2");
    let (code, _) = api.json(Method::POST, CT, &wrong).await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    let mut wrong = crontab("a");
    wrong["metadata"]["namespace"] = json!("other");
    let (code, s) = api.json(Method::POST, CT, &wrong).await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    assert_eq!(
        s["message"],
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    for path in [
        "/apis/nope.example.com/v1/things",
        "/apis/stable.example.com/v9/crontabs",
        "/api/v1/nosuchthings",
        "/apis/stable.example.com/v1/crontabs/x",
        "/x/y",
    ] {
        let (code, s) = api.get(path).await;
        assert_eq!(code, StatusCode::NOT_FOUND, "{path}: {s}");
        assert_eq!(s["reason"], "NotFound", "{path}");
    }
    let (code, s) = api
        .get(&format!("{CT}?labelSelector=a%3D%3Db%3D%3Dc"))
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{s}");
    let (code, s) = api.get(&format!("{CT}?fieldSelector=spec.image%3Dx")).await;
    assert_eq!(
        (code, s["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("field label not supported: spec.image")
        )
    );
    let (code, s) = api.get(&format!("{CT}?limit=abc")).await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{s}");
    // Deep nesting is an error, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (code, _) = api.call(Method::POST, CT, "application/json", deep).await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    // Strategic merge patch is refused for custom resources, as the server does.
    api.json(Method::POST, CT, &crontab("p")).await;
    let (code, s) = api
        .call(
            Method::PATCH,
            &format!("{CT}/p"),
            "application/strategic-merge-patch+json",
            "{}",
        )
        .await;
    assert_eq!(code, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{s}");
    // A failed request leaves nothing behind.
    let mut invalid = crontab("half");
    invalid["spec"]["replicas"] = json!(99);
    let (code, s) = api.json(Method::POST, CT, &invalid).await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(s["details"]["causes"][0]["field"], "spec.replicas");
    assert_eq!(s["details"]["causes"][0]["reason"], "FieldValueInvalid");
    // The version the server follows is the one it reports.
    let (code, v) = api.get("/version").await;
    assert_eq!(code, StatusCode::OK);
    let default = crd_runtime::engine::EngineOptions::default().kube_version;
    assert_eq!(v["minor"], default.minor().to_string());
    assert_eq!(v["gitVersion"], format!("v{default}.0+crd-server"));
    assert_eq!(
        api.get(&format!("{CT}/half")).await.0,
        StatusCode::NOT_FOUND
    );
    // Writes into a missing namespace.
    let (code, s) = api
        .json(
            Method::POST,
            "/apis/stable.example.com/v1/namespaces/nope/crontabs",
            &crontab("n"),
        )
        .await;
    assert_eq!(
        (code, s["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("namespaces \"nope\" not found"))
    );
    // Health and version.
    for path in ["/healthz", "/livez", "/readyz"] {
        assert_eq!(api.get(path).await, (StatusCode::OK, json!("ok")));
    }
    assert_eq!(api.get("/version").await.1["major"], "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_writers_get_409_and_exactly_one_wins_each_round() {
    let (_server, api) = server().await;
    let (code, created) = api.json(Method::POST, CT, &crontab("contended")).await;
    assert_eq!(code, StatusCode::CREATED);
    assert_eq!(created["metadata"]["generation"], 1);
    let mut current = created;
    for round in 0..3 {
        let writes = (0..100).map(|i| {
            let mut next = current.clone();
            next["spec"]["image"] = json!(format!("image-{round}-{i}"));
            let api = &api;
            async move {
                api.json(Method::PUT, &format!("{CT}/contended"), &next)
                    .await
            }
        });
        let results = futures::future::join_all(writes).await;
        let winners: Vec<&Value> = results
            .iter()
            .filter(|(c, _)| *c == StatusCode::OK)
            .map(|(_, v)| v)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one writer wins");
        for (code, status) in results.iter().filter(|(c, _)| *c != StatusCode::OK) {
            assert_eq!(*code, StatusCode::CONFLICT);
            assert_eq!(
                status["message"],
                "Operation cannot be fulfilled on crontabs.stable.example.com \"contended\": the object has been modified; please apply your changes to the latest version and try again"
            );
        }
        current = winners[0].clone();
        assert_eq!(
            current["metadata"]["generation"],
            round + 2,
            "generation follows spec changes"
        );
    }
    let mut no_rv = current.clone();
    no_rv["metadata"]
        .as_object_mut()
        .expect("metadata")
        .remove("resourceVersion");
    let (code, s) = api
        .json(Method::PUT, &format!("{CT}/contended"), &no_rv)
        .await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        s["message"].as_str().unwrap_or("").contains(
            "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"
        ),
        "{s}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_page_and_names_are_generated() {
    let (_server, api) = server().await;
    for i in 0..7 {
        let mut obj = crontab("");
        obj["metadata"] = json!({"generateName": "gen-", "labels": {"n": i.to_string()}});
        let (code, v) = api.json(Method::POST, CT, &obj).await;
        assert_eq!(code, StatusCode::CREATED, "{v}");
        let name = v["metadata"]["name"].as_str().expect("name");
        assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
    }
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &token {
            Some(t) => format!("{CT}?limit=3&continue={t}"),
            None => format!("{CT}?limit=3"),
        };
        let (code, list) = api.get(&path).await;
        assert_eq!(code, StatusCode::OK, "{list}");
        assert_eq!(list["kind"], "CronTabList");
        names.extend(
            list["items"]
                .as_array()
                .expect("items")
                .iter()
                .map(|i| i["metadata"]["name"].clone()),
        );
        pages += 1;
        match list["metadata"]["continue"].as_str() {
            Some(t) => token = Some(t.to_string()),
            None => break,
        }
        assert!(pages < 10, "pagination ends");
    }
    assert_eq!((names.len(), pages), (7, 3));
    let (_, filtered) = api
        .get(&format!("{CT}?labelSelector=n%20in%20(1,2,3)&limit=2"))
        .await;
    assert_eq!(filtered["items"].as_array().map(Vec::len), Some(2));
    assert!(filtered["metadata"]["continue"].is_string());
    // deletecollection with a selector.
    let (code, _) = api
        .call(
            Method::DELETE,
            &format!("{CT}?labelSelector=n%3D1"),
            "application/json",
            Bytes::new(),
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    let (_, left) = api.get(CT).await;
    assert_eq!(left["items"].as_array().map(Vec::len), Some(6));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_required_when_configured_and_public_addresses_need_tls() {
    let config = crd_server::Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: crd_server::StoreConfig::InMemory,
        crds: Vec::new(),
        tls: None,
        token: Some("s3cret".into()),
        ..crd_server::Config::default()
    };
    // A token over plain HTTP: refused without it (kubectl only sends tokens over TLS).
    let server = crd_server::start(config.clone()).await.expect("server");
    let api = Api::new(server.url());
    assert_eq!(api.get("/apis").await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(api.get("/healthz").await.0, StatusCode::OK);
    // HTTPS (rustls) with the token: kubectl gets in with it, not without.
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("certificate");
    let dir = tempfile::tempdir().expect("tempdir");
    let (cert_file, key_file) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    std::fs::write(&cert_file, cert.cert.pem()).expect("write cert");
    std::fs::write(&key_file, cert.signing_key.serialize_pem()).expect("write key");
    let tls = crd_server::Config {
        tls: Some(crd_server::TlsFiles {
            cert: cert_file,
            key: key_file,
        }),
        ..config.clone()
    };
    let secure = crd_server::start(tls).await.expect("https server");
    assert!(secure.url().starts_with("https://127.0.0.1:"));
    let url = secure.url();
    let (ok, denied) = tokio::task::spawn_blocking(move || {
        let ok = support::kubectl_ok(
            &url,
            &[
                "--insecure-skip-tls-verify",
                "--token",
                "s3cret",
                "get",
                "ns",
                "-o",
                "name",
            ],
        );
        let denied = support::kubectl_err(
            &url,
            &[
                "--insecure-skip-tls-verify",
                "--token",
                "wrong",
                "get",
                "ns",
            ],
        );
        (ok, denied)
    })
    .await
    .expect("kubectl");
    assert!(ok.contains("namespace/default"), "{ok}");
    assert!(
        denied.contains("Unauthorized") || denied.contains("provide credentials"),
        "{denied}"
    );
    let public = crd_server::Config {
        listen: "0.0.0.0:0".parse().expect("addr"),
        token: None,
        ..config
    };
    let err = crd_server::start(public).await.err().expect("refused");
    assert!(
        err.to_string().contains("requires --tls-cert-file"),
        "{err}"
    );
}

/// Widgets with a transition rule on `spec.size` and `spec.color` selectable.
fn rules_crd() -> String {
    support::test_crd::TestCrd::new("example.com", "Widget")
        .version_field("selectableFields: [{jsonPath: .spec.color}]")
        .yaml(
            r#"
            type: object
            properties:
              spec:
                type: object
                properties:
                  color: {type: string}
                  size:
                    type: integer
                    x-kubernetes-validations:
                    - rule: self >= oldSelf
                      message: size may only grow
            "#,
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cel_transition_rules_warnings_selectable_fields_and_bookmarks() {
    let server = TestServer::builder()
        .crd_yaml(&rules_crd())
        .start()
        .await
        .expect("server");
    let api = Api::new(server.url());
    let path = "/apis/example.com/v1/namespaces/default/widgets";
    let widget = |name: &str, color: &str, size: i64| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
               "spec": {"color": color, "size": size, "shade": "extra"}})
    };
    // fieldValidation=Warn (the server's default): created, with a Warning header.
    let req = http::Request::post(format!("{}{path}", api.base))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(widget("a", "red", 2).to_string())))
        .expect("request");
    let resp = api.client.request(req).await.expect("response");
    assert_eq!(resp.status(), StatusCode::CREATED);
    let warning = resp
        .headers()
        .get("warning")
        .and_then(|w| w.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert_eq!(warning, r#"299 - "unknown field \"spec.shade\"""#);
    let (code, _) = api
        .json(
            Method::POST,
            &format!("{path}?fieldValidation=Ignore"),
            &widget("b", "blue", 1),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED);
    // Transition rule: oldSelf is the stored object.
    let (_, a) = api.get(&format!("{path}/a")).await;
    let mut smaller = a.clone();
    smaller["spec"]["size"] = json!(1);
    let (code, s) = api.json(Method::PUT, &format!("{path}/a"), &smaller).await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{s}");
    assert_eq!(
        s["message"],
        "Widget.example.com \"a\" is invalid: spec.size: Invalid value: 1: size may only grow"
    );
    let mut bigger = a;
    bigger["spec"]["size"] = json!(3);
    assert_eq!(
        api.json(Method::PUT, &format!("{path}/a"), &bigger).await.0,
        StatusCode::OK
    );
    // selectableFields.
    let (_, blue) = api
        .get(&format!("{path}?fieldSelector=spec.color%3Dblue"))
        .await;
    let names: Vec<&str> = blue["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["metadata"]["name"].as_str())
        .collect();
    assert_eq!(names, ["b"]);
    // A watch with initial events ends them with a bookmark.
    let req = http::Request::get(format!(
        "{}{path}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2",
        api.base
    ))
    .body(Full::new(Bytes::new()))
    .expect("request");
    let body = api
        .client
        .request(req)
        .await
        .expect("watch")
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    let events: Vec<Value> = body
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("event"))
        .collect();
    let types: Vec<&str> = events
        .iter()
        .filter_map(|e| e["type"].as_str())
        .take(3)
        .collect();
    assert_eq!(types, ["ADDED", "ADDED", "BOOKMARK"]);
    assert_eq!(
        events[2]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
}
