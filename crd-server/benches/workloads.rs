//! What running workloads costs (issue 44), one run side by side:
//!
//! - `TestServer` start to the first answered request, lifecycle controllers only (the
//!   default) against `.workloads()` (every controller and one simulated node): 50
//!   starts each, median and p99;
//! - a Deployment of 100 replicas on one node, and one of 1,000 over 10 nodes, from the
//!   create to `availableReplicas` equal to its replicas (3 runs, median);
//! - creates/s of ConfigMaps with the workload controllers running against off.
//!
//! `cargo bench -p crd-server --bench workloads --profile load`; BENCHMARKS.md records a
//! run.

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use support::{concurrent, http, percentile, request};

#[path = "support/mod.rs"]
mod support;

const STARTS: usize = 50;
const CREATES: usize = 5_000;

async fn start(workloads: bool, nodes: u32) -> crd_server::TestServer {
    let builder = crd_server::TestServer::builder();
    let builder = if workloads {
        builder.workloads().nodes(nodes)
    } else {
        builder
    };
    builder.start().await.expect("start")
}

async fn starts(workloads: bool) -> Vec<f64> {
    let client = http();
    let mut times = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let t0 = Instant::now();
        let server = start(workloads, 1).await;
        let url = format!("{}/api/v1/namespaces/default/configmaps", server.url());
        let (code, _) = request(&client, "GET", &url, Bytes::new()).await;
        assert_eq!(code, 200);
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    times
}

/// Seconds from the create of a Deployment of `replicas` to all of them available.
async fn rollout(replicas: u32, nodes: u32) -> f64 {
    let server = start(true, nodes).await;
    let client = http();
    // The nodes Ready first (what a cluster has before a rollout).
    let nodes_url = format!("{}/api/v1/nodes", server.url());
    for _ in 0..2_000 {
        let (_, body) = request(&client, "GET", &nodes_url, Bytes::new()).await;
        let list: Value = serde_json::from_slice(&body).expect("node list");
        let ready = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|n| n["spec"]["podCIDR"].is_string() && n["status"]["phase"] == "Running")
            .count();
        if ready == nodes as usize {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let base = format!(
        "{}/apis/apps/v1/namespaces/default/deployments",
        server.url()
    );
    let body = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}},
    });
    let t0 = Instant::now();
    let (code, _) = request(&client, "POST", &base, Bytes::from(body.to_string())).await;
    assert_eq!(code, 201);
    let url = format!("{base}/web");
    loop {
        let (_, body) = request(&client, "GET", &url, Bytes::new()).await;
        let d: Value = serde_json::from_slice(&body).expect("deployment");
        if d["status"]["availableReplicas"] == replicas {
            return t0.elapsed().as_secs_f64();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "rollout of {replicas} took over 300 s"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn creates(workloads: bool) -> f64 {
    let server = start(workloads, 1).await;
    let client = http();
    let base = format!("{}/api/v1/namespaces/default/configmaps", server.url());
    concurrent(CREATES, move |i| {
        let (client, base) = (client.clone(), base.clone());
        async move {
            let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": format!("cm-{i:06}")}, "data": {"k": "v"}});
            let (code, _) = request(&client, "POST", &base, Bytes::from(body.to_string())).await;
            assert_eq!(code, 201);
        }
    })
    .await
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    for (label, on) in [
        ("lifecycle controllers only", false),
        ("with .workloads()", true),
    ] {
        let t = starts(on).await;
        println!(
            "TestServer start, {label}: median {:.2} ms, p99 {:.2} ms ({STARTS} starts)",
            percentile(&t, 0.5),
            percentile(&t, 0.99)
        );
    }
    for (replicas, nodes) in [(100, 1), (1_000, 10)] {
        let mut runs = Vec::new();
        for _ in 0..3 {
            runs.push(rollout(replicas, nodes).await);
        }
        println!(
            "Deployment of {replicas} on {nodes} node(s), create to all available: median {:.2} s (runs: {})",
            median(runs.clone()),
            runs.iter()
                .map(|r| format!("{r:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for (label, on) in [
        ("workload controllers off", false),
        ("workload controllers on", true),
    ] {
        println!(
            "ConfigMap creates, {label}: {:.0}/s ({CREATES}, 32 clients)",
            creates(on).await
        );
    }
}
