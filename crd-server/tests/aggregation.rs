//! APIServices (apiregistration.k8s.io/v1) with kubectl: a local one is available, one
//! backed by a Service is checked as kube-aggregator checks it — the Service, its port,
//! its Endpoints, then the extension server's discovery — with upstream's reasons and
//! messages, and `kubectl get apiservices` prints them.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The `Available` condition of APIService `name`, once its reason is `reason`.
fn available(url: &str, name: &str, reason: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let a = support::json_of(url, &["get", "apiservice", name]);
        let condition = a["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "Available"))
            .cloned()
            .unwrap_or(Value::Null);
        if condition["reason"] == reason {
            return condition;
        }
        assert!(
            Instant::now() < deadline,
            "{name}: still {condition} instead of reason {reason}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apiservices_are_checked_as_kube_aggregator_checks_them() {
    // The extension server: discovery of metrics.example.com/v1 over HTTPS.
    let tls = crd_server::tls::SelfSigned::generate().expect("certificate");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let app = axum::Router::new().route(
        "/apis/metrics.example.com/v1",
        axum::routing::get(|| async {
            axum::Json(json!({"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": "metrics.example.com/v1", "resources": []}))
        }),
    );
    let _extension = tokio::spawn(crd_server::tls::serve(listener, tls.acceptor(), app));
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().expect("tempdir");
        let apply = |name: &str, text: String| {
            let file = support::write(dir.path(), name, &text);
            support::kubectl_ok(&url, &["apply", "-f", &file]);
        };
        apply(
            "local.yaml",
            "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.local.example.com}\nspec: {group: local.example.com, version: v1, groupPriorityMinimum: 1000, versionPriority: 15}\n".into(),
        );
        let local = available(&url, "v1.local.example.com", "Local");
        assert_eq!(local["status"], "True");
        assert_eq!(local["message"], "Local APIServices are always available");

        apply(
            "remote.yaml",
            format!("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {{name: v1.metrics.example.com}}\nspec: {{group: metrics.example.com, version: v1, groupPriorityMinimum: 100, versionPriority: 10, insecureSkipTLSVerify: true, service: {{namespace: default, name: metrics, port: {port}}}}}\n"),
        );
        let c = available(&url, "v1.metrics.example.com", "ServiceNotFound");
        assert_eq!(c["status"], "False");
        assert_eq!(c["message"], "service/metrics in \"default\" is not present");
        let table = support::kubectl_ok(&url, &["get", "apiservices"]);
        let row = support::row(&table, "v1.metrics.example.com");
        assert_eq!(row[1..3], ["default/metrics", "False (ServiceNotFound)"], "{table}");

        apply(
            "service.yaml",
            format!("apiVersion: v1\nkind: Service\nmetadata: {{name: metrics, namespace: default}}\nspec: {{ports: [{{name: https, port: {port}}}]}}\n"),
        );
        let c = available(&url, "v1.metrics.example.com", "EndpointsNotFound");
        assert_eq!(c["message"], "cannot find endpoints for service/metrics in \"default\"");
        apply(
            "endpoints.yaml",
            format!("apiVersion: v1\nkind: Endpoints\nmetadata: {{name: metrics, namespace: default}}\nsubsets: [{{addresses: [{{ip: 127.0.0.1}}], ports: [{{name: other, port: {port}}}]}}]\n"),
        );
        let c = available(&url, "v1.metrics.example.com", "MissingEndpoints");
        assert_eq!(
            c["message"],
            "endpoints for service/metrics in \"default\" have no addresses with port name \"https\""
        );
        apply(
            "endpoints.yaml",
            format!("apiVersion: v1\nkind: Endpoints\nmetadata: {{name: metrics, namespace: default}}\nsubsets: [{{addresses: [{{ip: 127.0.0.1}}], ports: [{{name: https, port: {port}}}]}}]\n"),
        );
        let c = available(&url, "v1.metrics.example.com", "Passed");
        assert_eq!((c["status"].as_str(), c["message"].as_str()), (Some("True"), Some("all checks passed")));

        // The same server for a version it does not serve: a failed discovery check.
        apply(
            "v2.yaml",
            format!("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {{name: v2.metrics.example.com}}\nspec: {{group: metrics.example.com, version: v2, groupPriorityMinimum: 100, versionPriority: 5, insecureSkipTLSVerify: true, service: {{namespace: default, name: metrics, port: {port}}}}}\n"),
        );
        let c = available(&url, "v2.metrics.example.com", "FailedDiscoveryCheck");
        let discovery = format!("https://metrics.default.svc:{port}/apis/metrics.example.com/v2");
        assert_eq!(
            c["message"],
            format!("failing or missing response from {discovery}: bad status from {discovery}: 404")
        );
        let table = support::kubectl_ok(&url, &["get", "apiservices"]);
        assert_eq!(support::row(&table, "v1.metrics.example.com")[2], "True", "{table}");
        assert_eq!(support::row(&table, "v1.local.example.com")[1..3], ["Local", "True"], "{table}");
    })
    .await
    .expect("kubectl");
}

/// The extension server of the proxy test: `metrics.example.com/v1` over TLS that
/// demands a client certificate of `ca_pem` (the server's front proxy), and tells in
/// each object what it was sent.
mod extension {
    use std::sync::Arc;

    use axum::extract::{Query, Request};
    use axum::response::IntoResponse;
    use serde_json::{Value, json};
    use tokio_rustls::rustls;

    /// What the `nodemetrics` list reports about the request it answers.
    fn seen(req: &Request) -> Value {
        let h = req.headers();
        let all = |name: &str| -> Vec<String> {
            h.get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_string))
                .collect()
        };
        json!({
            "user": all("x-remote-user").join(","),
            "groups": all("x-remote-group").join(","),
            "extra-reason": all("x-remote-extra-reason").join(","),
            "authorization": h.contains_key("authorization").to_string(),
            "query": req.uri().query().unwrap_or(""),
        })
    }

    fn node_metrics(name: &str, seen: Value) -> Value {
        json!({"apiVersion": "metrics.example.com/v1", "kind": "NodeMetrics",
               "metadata": {"name": name, "annotations": {"seen": seen.to_string()}},
               "window": "30s", "usage": {"cpu": "250m", "memory": "1Gi"}})
    }

    /// Serves until the task is aborted; `release` lets the second watch event go.
    pub async fn serve(
        listener: tokio::net::TcpListener,
        serving: &crd_server::tls::SelfSigned,
        ca_pem: &str,
        release: Arc<tokio::sync::Notify>,
    ) {
        let mut roots = rustls::RootCertStore::empty();
        for c in rustls_pemfile::certs(&mut ca_pem.as_bytes()) {
            roots.add(c.expect("CA")).expect("CA");
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        .expect("verifier");
        let cert = rustls_pemfile::certs(&mut serving.cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .expect("cert");
        let key = rustls_pemfile::private_key(&mut serving.key_pem.as_bytes())
            .expect("key")
            .expect("key");
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_client_cert_verifier(verifier)
            .with_single_cert(cert, key)
            .expect("config");
        let discovery = || async {
            axum::Json(json!({"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": "metrics.example.com/v1", "resources": [
                    {"name": "nodemetrics", "singularName": "nodemetrics", "namespaced": false,
                     "kind": "NodeMetrics", "verbs": ["get", "list", "watch"], "shortNames": ["nm"]}]}))
        };
        let list = move |Query(q): Query<std::collections::HashMap<String, String>>,
                         req: Request| {
            let release = release.clone();
            async move {
                let seen = seen(&req);
                if q.get("watch").map(String::as_str) != Some("true") {
                    return axum::Json(json!({"apiVersion": "metrics.example.com/v1", "kind": "NodeMetricsList",
                        "metadata": {"resourceVersion": "1"}, "items": [node_metrics("node-1", seen)]}))
                    .into_response();
                }
                // A watch: one event now, the next once the test has read the first.
                let stream = async_stream(seen, release);
                axum::response::Response::builder()
                    .header("content-type", "application/json")
                    .body(axum::body::Body::from_stream(stream))
                    .expect("response")
            }
        };
        let app = axum::Router::new()
            .route("/apis/metrics.example.com/v1", axum::routing::get(discovery))
            // A server that never answers.
            .route(
                "/apis/metrics.example.com/v1/nodemetrics/stuck",
                axum::routing::get(std::future::pending::<String>),
            )
            .route("/apis/metrics.example.com/v1/nodemetrics", axum::routing::get(list))
            .route(
                "/openapi/v2",
                axum::routing::get(|| async {
                    axum::Json(json!({"swagger": "2.0", "paths": {"/apis/metrics.example.com/v1/nodemetrics": {"get": {}}},
                        "definitions": {"com.example.metrics.v1.NodeMetrics": {"type": "object"}}}))
                }),
            )
            .route(
                "/openapi/v3",
                axum::routing::get(|| async {
                    axum::Json(json!({"paths": {"apis/metrics.example.com/v1":
                        {"serverRelativeURL": "/openapi/v3/apis/metrics.example.com/v1?hash=1"}}}))
                }),
            )
            .route(
                "/openapi/v3/apis/metrics.example.com/v1",
                axum::routing::get(|| async {
                    axum::Json(json!({"openapi": "3.0.0", "paths": {},
                        "components": {"schemas": {"com.example.metrics.v1.NodeMetrics": {"type": "object"}}}}))
                }),
            );
        crd_server::tls::serve(
            listener,
            tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            app,
        )
        .await;
    }

    fn async_stream(
        seen: Value,
        release: Arc<tokio::sync::Notify>,
    ) -> impl futures::Stream<Item = Result<String, std::io::Error>> {
        let event = |n: &str| {
            format!(
                "{}\n",
                json!({"type": "ADDED", "object": node_metrics(n, seen.clone())})
            )
        };
        let (first, second) = (event("node-1"), event("node-2"));
        futures::stream::unfold(0, move |step| {
            let (first, second, release) = (first.clone(), second.clone(), release.clone());
            async move {
                match step {
                    0 => Some((Ok(first), 1)),
                    1 => {
                        release.notified().await;
                        Some((Ok(second), 2))
                    }
                    _ => None,
                }
            }
        })
    }
}

/// The whole answer to `GET path` (HTTP/1.1, `Connection: close`).
async fn http_get(addr: std::net::SocketAddr, path: &str, accept: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.expect("read");
    answer
}

/// `kubectl get --raw PATH`, read as JSON.
fn raw(url: &str, path: &str) -> Value {
    let out = support::kubectl_ok(url, &["get", "--raw", path]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{path}: {e}: {out}"))
}

/// Reads from `stream` until `buf` holds `lines` complete lines of a chunked body.
async fn read_events(stream: &mut tokio::net::TcpStream, buf: &mut String, events: usize) {
    use tokio::io::AsyncReadExt;
    let deadline = Instant::now() + Duration::from_secs(10);
    while buf.matches("\"type\":\"ADDED\"").count() < events {
        assert!(Instant::now() < deadline, "no event in {buf}");
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("read in time")
            .expect("read");
        assert!(n > 0, "the watch ended early: {buf}");
        buf.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_for_an_apiservice_are_proxied_to_its_server() {
    let server = crd_server::TestServer::builder()
        .front_proxy()
        .crd_yaml(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.metrics.example.com}\nspec:\n  group: metrics.example.com\n  scope: Namespaced\n  names: {plural: widgets, singular: widget, kind: Widget}\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n",
        )
        .start()
        .await
        .expect("server");
    let ca = server.front_proxy().expect("front proxy").ca_pem.clone();
    let serving = crd_server::tls::SelfSigned::generate().expect("certificate");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let r = release.clone();
    let _extension =
        tokio::spawn(async move { extension::serve(listener, &serving, &ca, r).await });
    let url = server.url();
    let u = url.clone();
    tokio::task::spawn_blocking(move || {
        let url = u;
        let dir = tempfile::tempdir().expect("tempdir");
        let apply = |name: &str, text: String| {
            let file = support::write(dir.path(), name, &text);
            support::kubectl_ok(&url, &["apply", "-f", &file]);
        };
        // What extension servers read to trust the proxy.
        let cm = support::json_of(&url, &["get", "configmap", "-n", "kube-system", "extension-apiserver-authentication"]);
        assert_eq!(cm["data"]["requestheader-allowed-names"], r#"["front-proxy-client"]"#);
        assert_eq!(cm["data"]["requestheader-group-headers"], r#"["X-Remote-Group"]"#);
        // Before the APIService, the CRD serves metrics.example.com/v1.
        support::kubectl_ok(&url, &["get", "widgets.v1.metrics.example.com", "-A"]);

        apply("service.yaml", format!("apiVersion: v1\nkind: Service\nmetadata: {{name: metrics, namespace: default}}\nspec: {{ports: [{{name: https, port: {port}}}]}}\n---\napiVersion: v1\nkind: Endpoints\nmetadata: {{name: metrics, namespace: default}}\nsubsets: [{{addresses: [{{ip: 127.0.0.1}}], ports: [{{name: https, port: {port}}}]}}]\n"));
        apply("apiservice.yaml", format!("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {{name: v1.metrics.example.com}}\nspec: {{group: metrics.example.com, version: v1, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: {{namespace: default, name: metrics, port: {port}}}}}\n"));
        // The discovery check showed the front proxy's certificate (the server demands one).
        available(&url, "v1.metrics.example.com", "Passed");
        // The proxy follows APIServices by a watch: it routes by the condition just read
        // a moment later at most.
        let deadline = Instant::now() + Duration::from_secs(20);
        while !support::kubectl(&url, &["get", "--raw", "/apis/metrics.example.com/v1/nodemetrics"]).status.success() {
            assert!(Instant::now() < deadline, "never proxied");
            std::thread::sleep(Duration::from_millis(100));
        }

        // A list, proxied with the caller's identity and without its credentials.
        let list = support::json_of(&url, &["get", "nodemetrics", "--as", "alice", "--as-group", "dev"]);
        let seen: Value = serde_json::from_str(list["items"][0]["metadata"]["annotations"]["seen"].as_str().expect("seen")).expect("json");
        assert_eq!(seen["user"], "alice");
        assert_eq!(seen["groups"], "dev,system:authenticated");
        assert_eq!(seen["authorization"], "false");
        // The CRD's other version is still its own; its v1 is the extension server's.
        support::kubectl_ok(&url, &["get", "widgets.v1beta1.metrics.example.com", "-A"]);
        let v1 = raw(&url, "/apis/metrics.example.com/v1");
        assert_eq!(v1["resources"][0]["name"], "nodemetrics", "{v1}");
        let group = raw(&url, "/apis/metrics.example.com");
        assert_eq!(group["preferredVersion"]["version"], "v1", "{group}");
        assert_eq!(group["versions"].as_array().map(Vec::len), Some(2), "{group}");
        let groups = raw(&url, "/apis");
        // The roots answer with a trailing slash too (the Python client asks so).
        assert_eq!(raw(&url, "/apis/"), groups);
        assert!(groups["groups"].as_array().expect("groups").iter().any(|g| g["name"] == "metrics.example.com"));

        // Aggregated discovery (kubectl's): the extension server's resources, once read.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let out = support::kubectl(&url, &["api-resources", "--api-group", "metrics.example.com"]);
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            if out.status.success() && text.contains("nodemetrics") {
                let row = support::row(&text, "nodemetrics");
                assert_eq!(row[1..], ["nm", "metrics.example.com/v1", "false", "NodeMetrics"], "{text}");
                assert!(text.contains("widgets"), "{text}");
                break;
            }
            assert!(Instant::now() < deadline, "{text}{}", String::from_utf8_lossy(&out.stderr));
            std::thread::sleep(Duration::from_millis(200));
        }
        // OpenAPI: the extension server's definitions merged, its v3 document listed.
        let v2 = raw(&url, "/openapi/v2");
        assert!(v2["definitions"]["com.example.metrics.v1.NodeMetrics"].is_object());
        assert!(v2["definitions"]["io.k8s.api.core.v1.Pod"].is_object() || v2["paths"]["/api/v1/pods"].is_object());
        let index = raw(&url, "/openapi/v3");
        let gv_url = index["paths"]["apis/metrics.example.com/v1"]["serverRelativeURL"].as_str().expect("listed").to_string();
        let v3 = raw(&url, &gv_url);
        assert!(v3["components"]["schemas"]["com.example.metrics.v1.NodeMetrics"].is_object());
    })
    .await
    .expect("kubectl");

    // A watch streams through the proxy: the first event arrives before the server
    // sends the second.
    let addr = server.addr();
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    use tokio::io::AsyncWriteExt;
    stream
        .write_all(format!("GET /apis/metrics.example.com/v1/nodemetrics?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: {addr}\r\nImpersonate-User: bob\r\nImpersonate-Extra-Reason: audit\r\n\r\n").as_bytes())
        .await
        .expect("write");
    let mut buf = String::new();
    read_events(&mut stream, &mut buf, 1).await;
    assert!(buf.starts_with("HTTP/1.1 200"), "{buf}");
    assert!(
        buf.contains("resourceVersion=0"),
        "the query went along: {buf}"
    );
    // The impersonated user and its extra went along; the impersonation headers did not.
    assert!(buf.contains(r#"\"user\":\"bob\""#), "{buf}");
    assert!(buf.contains(r#"\"extra-reason\":\"audit\""#), "{buf}");
    assert!(!buf.contains("node-2"));
    release.notify_one();
    read_events(&mut stream, &mut buf, 2).await;
    assert!(buf.contains("node-2"));

    // Fault rules apply to an aggregated resource as to any other: one injected 503,
    // then the extension server's answer again.
    server
        .add_fault("verb=list,resource=nodemetrics.metrics.example.com,code=503,count=1")
        .expect("rule");
    let list = "/apis/metrics.example.com/v1/nodemetrics";
    let injected = http_get(addr, list, "application/json").await;
    assert!(injected.starts_with("HTTP/1.1 503"), "{injected}");
    assert!(
        injected.contains(r#""reason":"ServiceUnavailable""#),
        "{injected}"
    );
    assert!(
        http_get(addr, list, "application/json")
            .await
            .starts_with("HTTP/1.1 200")
    );

    // A server that does not answer: kube-apiserver's timeout filter's 504 when the
    // request's time is up.
    let t0 = Instant::now();
    let answer = http_get(
        addr,
        "/apis/metrics.example.com/v1/nodemetrics/stuck?timeout=1s",
        "application/json",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 504"), "{answer}");
    assert!(answer.contains(r#""message":"Timeout: request did not complete within requested timeout - context deadline exceeded""#), "{answer}");
    assert!(t0.elapsed() < Duration::from_secs(10));

    // Unavailable (its endpoints gone): 503, which clients read as the server being
    // unable to handle the request.
    let u = url.clone();
    tokio::task::spawn_blocking(move || {
        support::kubectl_ok(&u, &["delete", "endpoints", "metrics"]);
        available(&u, "v1.metrics.example.com", "EndpointsNotFound");
        // kubectl no longer finds the kind (aggregated discovery calls its version
        // stale, below); a request for it is refused as unable to be handled.
        let err = support::kubectl_err(&u, &["get", "nodemetrics"]);
        assert!(
            err.contains("the server doesn't have a resource type \"nodemetrics\""),
            "{err}"
        );
        let err = support::kubectl_err(
            &u,
            &["get", "--raw", "/apis/metrics.example.com/v1/nodemetrics"],
        );
        assert!(
            err.contains("the server is currently unable to handle the request"),
            "{err}"
        );
    })
    .await
    .expect("kubectl");
    let aggregated = http_get(
        addr,
        "/apis",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    )
    .await;
    let doc: Value =
        serde_json::from_str(aggregated.split("\r\n\r\n").nth(1).expect("body")).expect("json");
    let group = doc["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|g| g["metadata"]["name"] == "metrics.example.com")
        .expect("group")
        .clone();
    let v1 = group["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .find(|v| v["version"] == "v1")
        .expect("v1")
        .clone();
    assert_eq!(v1["freshness"], "Stale", "{group}");
    let answer = http_get(
        addr,
        "/apis/metrics.example.com/v1/nodemetrics",
        "application/json",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.ends_with("\r\n\r\nservice unavailable\n"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_apiservices_are_registered_for_what_the_server_serves() {
    let server = crd_server::TestServer::builder()
        .controllers("customresourcecleanup,apiservice-status-available-controller,kube-apiserver-autoregistration")
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().expect("tempdir");
        // The built-in group/versions, local and available, labelled `onstart`.
        let apps = available(&url, "v1.apps", "Local");
        assert_eq!(apps["status"], "True");
        let a = support::json_of(&url, &["get", "apiservice", "v1.apps"]);
        assert_eq!(a["metadata"]["labels"]["kube-aggregator.kubernetes.io/automanaged"], "onstart");
        assert_eq!(a["spec"], json!({"group": "apps", "version": "v1", "groupPriorityMinimum": 17800, "versionPriority": 15}));
        let core = support::json_of(&url, &["get", "apiservice", "v1."]);
        assert_eq!(core["spec"]["groupPriorityMinimum"], 18000);
        let table = support::kubectl_ok(&url, &["get", "apiservices"]);
        assert_eq!(support::row(&table, "v1.batch")[1..3], ["Local", "True"], "{table}");

        // A CRD's served versions come and go with it, labelled `true`.
        let crd = support::write(dir.path(), "crd.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.acme.example.com}\nspec:\n  group: acme.example.com\n  scope: Namespaced\n  names: {plural: widgets, singular: widget, kind: Widget}\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n  - {name: v1alpha1, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}\n");
        support::kubectl_ok(&url, &["apply", "-f", &crd]);
        available(&url, "v1.acme.example.com", "Local");
        let w = support::json_of(&url, &["get", "apiservice", "v1.acme.example.com"]);
        assert_eq!(w["metadata"]["labels"]["kube-aggregator.kubernetes.io/automanaged"], "true");
        assert_eq!((w["spec"]["groupPriorityMinimum"].as_i64(), w["spec"]["versionPriority"].as_i64()), (Some(1000), Some(100)));
        let err = support::kubectl_err(&url, &["get", "apiservice", "v1alpha1.acme.example.com"]);
        assert!(err.contains("NotFound") || err.contains("not found"), "{err}");
        support::kubectl_ok(&url, &["delete", "-f", &crd]);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let out = support::kubectl(&url, &["get", "apiservice", "v1.acme.example.com"]);
            if !out.status.success() {
                break;
            }
            assert!(Instant::now() < deadline, "still there");
            std::thread::sleep(Duration::from_millis(100));
        }
        // An automanaged APIService deleted by hand comes back at the next sync (30 s):
        // not waited for here; the deletion itself is allowed.
        support::kubectl_ok(&url, &["delete", "apiservice", "v1.batch"]);
    })
    .await
    .expect("kubectl");
}
