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
