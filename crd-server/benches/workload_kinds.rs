//! What the StatefulSet, DaemonSet and CronJob controllers cost (issue 44), 3 runs each,
//! median:
//!
//! - a StatefulSet of 20 replicas with `OrderedReady` (each Pod waits for the one before
//!   to be Ready) and one of 100 with `Parallel`, from the create to `readyReplicas`;
//! - a DaemonSet over 20 simulated nodes, from the create to `numberAvailable: 20`;
//! - 100 CronJobs due in the same minute: from the clock moved past it to their 100 Jobs.
//!
//! `cargo bench -p crd-server --bench workload_kinds --profile load`; BENCHMARKS.md
//! records a run.

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use support::{http, request};

#[path = "support/mod.rs"]
mod support;

const RUNS: usize = 3;

async fn server(nodes: u32) -> crd_server::TestServer {
    crd_server::TestServer::builder()
        .workloads()
        .nodes(nodes)
        .start()
        .await
        .expect("start")
}

/// Waits until `GET url` satisfies `done` (bounded: 300 s); seconds since `t0`.
async fn until(url: &str, t0: Instant, done: impl Fn(&Value) -> bool) -> f64 {
    let client = http();
    loop {
        let (_, body) = request(&client, "GET", url, Bytes::new()).await;
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if done(&v) {
            return t0.elapsed().as_secs_f64();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "{url} took over 300 s"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn create(url: &str, body: Value) {
    let (code, out) = request(&http(), "POST", url, Bytes::from(body.to_string())).await;
    assert_eq!(code, 201, "{}", String::from_utf8_lossy(&out));
}

fn template(app: &str) -> Value {
    json!({"metadata": {"labels": {"app": app}},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

/// Seconds from the create of a StatefulSet to all its replicas ready.
async fn statefulset(replicas: u32, policy: &str) -> f64 {
    let server = server(1).await;
    let base = format!(
        "{}/apis/apps/v1/namespaces/default/statefulsets",
        server.url()
    );
    let t0 = Instant::now();
    create(
        &base,
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
               "spec": {"replicas": replicas, "serviceName": "web", "podManagementPolicy": policy,
                        "selector": {"matchLabels": {"app": "web"}}, "template": template("web")}}),
    )
    .await;
    until(&format!("{base}/web"), t0, |v| {
        v["status"]["readyReplicas"] == replicas
    })
    .await
}

/// Seconds from the create of a DaemonSet to a Pod available on each of `nodes`.
async fn daemonset(nodes: u32) -> f64 {
    let server = server(nodes).await;
    let base = format!(
        "{}/apis/apps/v1/namespaces/default/daemonsets",
        server.url()
    );
    // The nodes first, as a cluster has them.
    until(
        &format!("{}/api/v1/nodes", server.url()),
        Instant::now(),
        |v| {
            v["items"]
                .as_array()
                .is_some_and(|n| n.len() == nodes as usize)
        },
    )
    .await;
    let t0 = Instant::now();
    create(
        &base,
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
               "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template("agent")}}),
    )
    .await;
    until(&format!("{base}/agent"), t0, |v| {
        v["status"]["numberAvailable"] == nodes
    })
    .await
}

/// Seconds from the clock moved past the next minute to the Jobs of `count` CronJobs.
async fn cronjobs(count: usize) -> f64 {
    let server = server(1).await;
    let base = format!("{}/apis/batch/v1/namespaces/default/cronjobs", server.url());
    for i in 0..count {
        create(
            &base,
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": format!("cj-{i:03}")},
                   "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {
                       "spec": {"restartPolicy": "Never",
                                "containers": [{"name": "c", "image": "busybox"}]}}}}}}),
        )
        .await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = Instant::now();
    server.clock().advance(Duration::from_secs(60));
    let jobs = format!("{}/apis/batch/v1/namespaces/default/jobs", server.url());
    until(&jobs, t0, |v| {
        v["items"].as_array().is_some_and(|j| j.len() >= count)
    })
    .await
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn report(label: &str, runs: Vec<f64>) {
    let shown: Vec<String> = runs.iter().map(|r| format!("{r:.2}")).collect();
    println!(
        "{label}: median {:.2} s ({})",
        median(runs),
        shown.join(", ")
    );
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        runs.push(statefulset(20, "OrderedReady").await);
    }
    report("StatefulSet, 20 replicas, OrderedReady", runs);
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        runs.push(statefulset(100, "Parallel").await);
    }
    report("StatefulSet, 100 replicas, Parallel", runs);
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        runs.push(daemonset(20).await);
    }
    report("DaemonSet over 20 nodes", runs);
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        runs.push(cronjobs(100).await);
    }
    report(
        "100 CronJobs due in one minute: clock moved to 100 Jobs",
        runs,
    );
}
