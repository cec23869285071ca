//! What the aggregation proxy costs a request (bounded loops, loopback only): the
//! latency of a GET proxied to an APIService's extension server beside a direct GET
//! served by crd-server itself, one client, one request at a time, interleaved
//! (direct, proxied, direct, ...) so that both see the same machine. The extension
//! server is an axum router over TLS in the same process answering a NodeMetrics of the
//! size of the ConfigMap read directly; crd-server (embedded in memory, a front proxy of
//! its own) reaches it over TLS showing its proxy certificate, as in a cluster.
//! `cargo bench -p crd-server --bench aggregation [-- N]` (N GETs of each, default
//! 5,000).

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::json;
use support::{Http, http, percentile, request};

#[path = "support/mod.rs"]
mod support;

fn object(kind: &str) -> serde_json::Value {
    json!({"apiVersion": "metrics.example.com/v1", "kind": kind,
           "metadata": {"name": "node-a", "creationTimestamp": "2026-11-30T00:00:00Z"},
           "timestamp": "2026-11-30T00:00:00Z", "window": "30s",
           "usage": {"cpu": "1000m", "memory": "2097152Ki"}})
}

/// The extension server, on a free port: its port.
async fn extension() -> u16 {
    let tls = crd_server::tls::SelfSigned::generate().expect("certificate");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let body = Bytes::from(object("NodeMetrics").to_string());
    let app = axum::Router::new()
        .route(
            "/apis/metrics.example.com/v1",
            axum::routing::get(|| async {
                axum::Json(json!({"kind": "APIResourceList", "apiVersion": "v1",
                    "groupVersion": "metrics.example.com/v1", "resources": [
                    {"name": "nodemetrics", "singularName": "nodemetrics", "namespaced": false,
                     "kind": "NodeMetrics", "verbs": ["get", "list"]}]}))
            }),
        )
        .route(
            "/apis/metrics.example.com/v1/nodemetrics/{name}",
            axum::routing::get(move || {
                let body = body.clone();
                async move { ([("content-type", "application/json")], body) }
            }),
        );
    tokio::spawn(crd_server::tls::serve(listener, tls.acceptor(), app));
    port
}

async fn create(client: &Http, url: &str, body: serde_json::Value) {
    let (code, answer) = request(client, "POST", url, Bytes::from(body.to_string())).await;
    assert_eq!(code, 201, "{url}: {}", String::from_utf8_lossy(&answer));
}

/// One GET's latency in microseconds.
async fn timed_get(client: &Http, url: &str) -> f64 {
    let t0 = Instant::now();
    let (code, _) = request(client, "GET", url, Bytes::new()).await;
    let took = t0.elapsed().as_secs_f64() * 1e6;
    assert_eq!(code, 200, "{url}");
    took
}

fn summary(name: &str, mut us: Vec<f64>) -> (f64, f64) {
    us.sort_by(f64::total_cmp);
    let (p50, p90, p99) = (
        percentile(&us, 0.50),
        percentile(&us, 0.90),
        percentile(&us, 0.99),
    );
    println!("{name:<30} {p50:>9.0} {p90:>9.0} {p99:>9.0}");
    (p50, p99)
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5_000);
    let rt = crd_server::server::runtime_builder()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let server = crd_server::TestServer::builder()
            .front_proxy()
            .start()
            .await
            .expect("server");
        let base = server.url();
        let port = extension().await;
        let client = http();
        create(&client, &format!("{base}/api/v1/namespaces/default/services"),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "metrics"},
                   "spec": {"ports": [{"name": "https", "port": port}]}})).await;
        create(&client, &format!("{base}/api/v1/namespaces/default/endpoints"),
            json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "metrics"},
                   "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": port}]}]})).await;
        create(&client, &format!("{base}/apis/apiregistration.k8s.io/v1/apiservices"),
            json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                   "metadata": {"name": "v1.metrics.example.com"},
                   "spec": {"group": "metrics.example.com", "version": "v1", "groupPriorityMinimum": 100,
                            "versionPriority": 100, "insecureSkipTLSVerify": true,
                            "service": {"namespace": "default", "name": "metrics", "port": port}}})).await;
        let mut cm = object("ConfigMap");
        cm["apiVersion"] = json!("v1");
        cm["data"] = cm["usage"].take();
        for k in ["timestamp", "window", "usage"] {
            cm.as_object_mut().expect("object").remove(k);
        }
        create(&client, &format!("{base}/api/v1/namespaces/default/configmaps"), cm).await;
        let direct = format!("{base}/api/v1/namespaces/default/configmaps/node-a");
        let proxied = format!("{base}/apis/metrics.example.com/v1/nodemetrics/node-a");
        // Available once the availability controller has checked it.
        let deadline = Instant::now() + Duration::from_secs(30);
        while request(&client, "GET", &proxied, Bytes::new()).await.0 != 200 {
            assert!(Instant::now() < deadline, "the APIService never became available");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for _ in 0..500 {
            timed_get(&client, &direct).await;
            timed_get(&client, &proxied).await;
        }
        let (mut d, mut p) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            d.push(timed_get(&client, &direct).await);
            p.push(timed_get(&client, &proxied).await);
        }
        println!("{n} GETs of each, one at a time, interleaved; latency in µs");
        println!("{:<30} {:>9} {:>9} {:>9}", "", "p50", "p90", "p99");
        let (d50, d99) = summary("direct (ConfigMap)", d);
        let (p50, p99) = summary("proxied (APIService)", p);
        println!(
            "proxied / direct: p50 {:.2}x (+{:.0} µs), p99 {:.2}x (+{:.0} µs)",
            p50 / d50,
            p50 - d50,
            p99 / d99,
            p99 - d99
        );
    });
}
