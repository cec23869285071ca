//! The metrics aggregated API server behind crd-server, end to end: the server reads
//! the front proxy's CA from the `extension-apiserver-authentication` ConfigMap,
//! registers its Service, Endpoints and APIService (verified as `metrics.default.svc`
//! against its `caBundle`), and is then used through crd-server's proxy — with kubectl
//! (`get` as a Table, `-o json`, `api-resources`) and with kube::Client (lists and gets as
//! users RBAC allows or refuses, aggregated discovery).
//! Run with `cargo test -p crd-toolkit-examples --test metrics_aggregated`.

mod support;

use std::time::{Duration, Instant};

use crd_server::TestServer;
use crd_toolkit_examples::metrics_api::{self, register};
use crd_webhook::{RunningWebhook, WebhookConfig, WebhookTls};
use k8s_openapi::api::core::v1::Node;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use kube::discovery::{ApiResource, Discovery};
use kube::{Api, Client};
use serde_json::json;

/// Two Nodes with capacities, and the metrics server registered behind `cluster`.
async fn metrics_behind(cluster: &TestServer) -> RunningWebhook {
    let nodes: Api<Node> = Api::all(cluster.client());
    for (name, cpu, memory) in [("node-a", "4", "8Gi"), ("node-b", "2", "4Gi")] {
        let node = serde_json::from_value(json!({"metadata": {"name": name}})).expect("node");
        nodes
            .create(&PostParams::default(), &node)
            .await
            .expect("node");
        let status = json!({"status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"}}});
        nodes
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
            .await
            .expect("node status");
    }
    // What a real aggregated server does at start: trust what the cluster publishes.
    let auth = metrics_api::authentication_from_cluster(&cluster.client())
        .await
        .expect("the cluster publishes its front proxy");
    let config = WebhookConfig {
        listen: ([127, 0, 0, 1], 0).into(),
        tls: WebhookTls::SelfSignedFor(vec!["metrics.default.svc".into()]),
    };
    let server = metrics_api::serve(cluster.client(), auth, config)
        .await
        .expect("serves");
    let registration = register::Registration {
        namespace: "default".into(),
        name: "metrics".into(),
        port: server.addr().port(),
        ca_pem: server.ca_pem().expect("self-signed").to_string(),
    };
    register::register(&cluster.client(), &registration)
        .await
        .expect("registers");
    wait_available(&cluster.client()).await;
    server
}

fn api_resource(kind: &str, plural: &str, group: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, "v1", kind), plural)
}

async fn wait_available(client: &Client) {
    let apiservices: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &api_resource("APIService", "apiservices", "apiregistration.k8s.io"),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let a = apiservices
            .get(&register::api_service_name())
            .await
            .expect("apiservice");
        let condition = a.data["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "Available"))
            .cloned();
        if condition.as_ref().is_some_and(|c| c["status"] == "True") {
            return;
        }
        assert!(Instant::now() < deadline, "not available: {condition:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn node_metrics(client: Client) -> Api<DynamicObject> {
    Api::all_with(
        client,
        &api_resource("NodeMetrics", "nodemetrics", "metrics.example.com"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_node_metrics_through_the_proxy() {
    let cluster = TestServer::builder()
        .front_proxy()
        .start()
        .await
        .expect("server");
    let _metrics = metrics_behind(&cluster).await;
    let url = cluster.url();
    tokio::task::spawn_blocking(move || {
        // kubectl asks for a Table; the extension server's columns come back.
        let deadline = Instant::now() + Duration::from_secs(20);
        let table = loop {
            let out = support::kubectl(&url, &["get", "nodemetrics"]);
            if out.status.success() {
                break String::from_utf8_lossy(&out.stdout).to_string();
            }
            // Until the discovery read in the background lists the kind.
            assert!(
                Instant::now() < deadline,
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(200));
        };
        let header: Vec<&str> = table
            .lines()
            .next()
            .expect("header")
            .split_whitespace()
            .collect();
        assert_eq!(header, ["NAME", "CPU", "MEMORY", "WINDOW"], "{table}");
        assert!(
            table.contains("node-a") && table.contains("1000m"),
            "{table}"
        );
        let one = support::kubectl_ok(&url, &["get", "nm", "node-b", "-o", "json"]);
        let one: serde_json::Value = serde_json::from_str(&one).expect("json");
        assert_eq!(one["kind"], "NodeMetrics");
        assert_eq!(one["usage"]["cpu"], "500m");
        let err = support::kubectl_err(&url, &["get", "nodemetrics", "node-z"]);
        assert!(
            err.contains("nodemetrics.metrics.example.com \"node-z\" not found"),
            "{err}"
        );
        let resources = support::kubectl_ok(
            &url,
            &["api-resources", "--api-group", "metrics.example.com"],
        );
        assert!(resources.contains("nodemetrics"), "{resources}");
        // The server is read-only: a delete is refused by it, through the proxy.
        let err = support::kubectl_err(&url, &["delete", "nodemetrics", "node-a"]);
        assert!(
            err.contains("MethodNotAllowed") || err.contains("does not allow this method"),
            "{err}"
        );
    })
    .await
    .expect("kubectl");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_client_reads_node_metrics_as_rbac_allows() {
    let cluster = TestServer::builder()
        .rbac()
        .front_proxy()
        .start()
        .await
        .expect("server");
    cluster
        .apply_yaml(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: nodemetrics-reader}\nrules:\n- {apiGroups: [metrics.example.com], resources: [nodemetrics], verbs: [get, list]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: bob-reads-nodemetrics}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nodemetrics-reader}\nsubjects:\n- {apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}\n",
        )
        .await
        .expect("bob's role");
    let _metrics = metrics_behind(&cluster).await;

    // The proxy routes by the APIServices it follows (a watch, as kube-aggregator's
    // informer): allow it to catch up with the Available condition just read.
    let admin = node_metrics(cluster.client());
    let deadline = Instant::now() + Duration::from_secs(20);
    let list = loop {
        match admin.list(&Default::default()).await {
            Ok(list) => break list,
            Err(e) => assert!(Instant::now() < deadline, "list: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let names: Vec<_> = list
        .items
        .iter()
        .filter_map(|o| o.metadata.name.clone())
        .collect();
    assert_eq!(names, ["node-a", "node-b"]);
    assert_eq!(list.items[0].data["usage"]["memory"], "2097152Ki");

    // bob: allowed by crd-server's RBAC and by the extension server's own review.
    let bob = cluster.client_as_user("bob", &[]);
    let one = node_metrics(bob).get("node-b").await.expect("bob gets");
    assert_eq!(one.data["usage"]["cpu"], "500m");
    // alice: refused by crd-server before anything is proxied.
    let alice = cluster.client_as_user("alice", &[]);
    let err = node_metrics(alice)
        .list(&Default::default())
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("{err}")
    };
    assert_eq!(status.code, 403);
    assert_eq!(
        status.message,
        "nodemetrics.metrics.example.com is forbidden: User \"alice\" cannot list resource \"nodemetrics\" in API group \"metrics.example.com\" at the cluster scope"
    );

    // kube's aggregated discovery finds the kind, once read from the extension server.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let discovery = Discovery::new(cluster.client())
            .filter(&["metrics.example.com"])
            .run_aggregated()
            .await
            .expect("discovery");
        let found = discovery
            .groups()
            .flat_map(|g| g.recommended_resources())
            .find(|(r, _)| r.plural == "nodemetrics");
        if let Some((r, caps)) = found {
            assert_eq!(r.kind, "NodeMetrics");
            assert_eq!(caps.scope, kube::discovery::Scope::Cluster);
            break;
        }
        assert!(Instant::now() < deadline, "nodemetrics never discovered");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
