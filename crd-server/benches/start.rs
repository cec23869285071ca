//! What an operator test suite pays for its API server, next to envtest's published
//! 5–7 s boots (envtest itself needs Go binaries this machine does not have):
//!
//! - `TestServer` start with every built-in kind ready to the first answered request
//!   (a ConfigMap list), 100 starts: median, p99, max;
//! - the same with the CronTab CRD installed, to the first answered CronTab list;
//! - idle RSS of the `crd-server` binary (in-memory store) just started, and after one
//!   list of every served resource (which builds every kind's schema);
//! - creates/s and gets/s of ConfigMaps next to CronTabs on the embedded store, with the
//!   lifecycle controllers running and without them.
//!
//! `cargo bench -p crd-server --bench start --profile load`; BENCHMARKS.md records a run.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use support::{CLIENTS, concurrent, http, percentile, request};

#[path = "support/mod.rs"]
mod support;

const CRD: &str = include_str!("../../../shared/fixtures/crontab/crd-full.yaml");
const STARTS: usize = 100;
const CREATES: usize = 10_000;
const GETS: usize = 30_000;

fn summary(label: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    println!(
        "{label}: median {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} starts)",
        percentile(&ms, 0.5),
        percentile(&ms, 0.99),
        ms[ms.len() - 1],
        ms.len()
    );
}

async fn starts(with_crd: bool) -> Vec<f64> {
    let client = http();
    let mut times = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let t0 = Instant::now();
        let mut builder = crd_server::TestServer::builder();
        if with_crd {
            builder = builder.crd_yaml(CRD);
        }
        let server = builder.start().await.expect("start");
        let path = if with_crd {
            "/apis/stable.example.com/v1/namespaces/default/crontabs"
        } else {
            "/api/v1/namespaces/default/configmaps"
        };
        let (code, _) = request(
            &client,
            "GET",
            &format!("{}{path}", server.url()),
            Bytes::new(),
        )
        .await;
        assert_eq!(code, 200);
        times.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    times
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Every list path the server's discovery names.
async fn list_paths(client: &support::Http, base: &str) -> Vec<String> {
    let get = |path: String| {
        let client = client.clone();
        async move {
            let (code, body) = request(&client, "GET", &path, Bytes::new()).await;
            assert_eq!(code, 200, "{path}");
            serde_json::from_slice::<Value>(&body).expect("json")
        }
    };
    let mut group_versions = vec!["/api/v1".to_string()];
    let groups = get(format!("{base}/apis")).await;
    for g in groups["groups"].as_array().into_iter().flatten() {
        for v in g["versions"].as_array().into_iter().flatten() {
            group_versions.push(format!(
                "/apis/{}",
                v["groupVersion"].as_str().unwrap_or("")
            ));
        }
    }
    let mut paths = Vec::new();
    for gv in group_versions {
        let list = get(format!("{base}{gv}")).await;
        for r in list["resources"].as_array().into_iter().flatten() {
            let name = r["name"].as_str().unwrap_or("");
            let verbs = r["verbs"].as_array().cloned().unwrap_or_default();
            if !name.contains('/') && verbs.iter().any(|v| v == "list") {
                paths.push(format!("{base}{gv}/{name}"));
            }
        }
    }
    paths
}

async fn idle_rss() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-server"))
        .args(["--in-memory", "--listen", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("crd-server binary");
    let base = format!("http://127.0.0.1:{port}");
    let client = http();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let req = http::Request::get(format!("{base}/readyz"))
            .body(http_body_util::Full::new(Bytes::new()))
            .expect("request");
        if client.request(req).await.is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "crd-server did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let fresh = rss_kib(child.id());
    let paths = list_paths(&client, &base).await;
    for p in &paths {
        let (code, _) = request(&client, "GET", p, Bytes::new()).await;
        assert_eq!(code, 200, "{p}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let touched = rss_kib(child.id());
    println!(
        "idle RSS of crd-server (in-memory): {:.1} MiB just started, {:.1} MiB after listing all {} resources",
        fresh as f64 / 1024.0,
        touched as f64 / 1024.0,
        paths.len()
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// Creates and gets per second on the embedded store, with the lifecycle controllers
/// `controllers` running (the garbage collector follows every write).
async fn throughput(controllers: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let crds = crd_runtime::load_crds("crd-full.yaml", CRD)
        .expect("crd")
        .crds
        .into_iter()
        .map(|d| d.crd)
        .collect();
    let config = crd_server::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        store: crd_server::StoreConfig::DataDir(dir.path().to_path_buf()),
        crds,
        tls: None,
        token: None,
        engine: Default::default(),
        controllers: controllers.parse().expect("controllers"),
        ..Default::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let kinds: [(&str, &str, fn(usize) -> Value); 2] = [
        ("ConfigMaps", "/api/v1/namespaces/default/configmaps", |i| {
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": format!("o-{i:06}"), "labels": {"bench": "start"}},
                   "data": {"cronSpec": "* * * * */5", "image": "registry.example.com/cron:1.2.3"}})
        }),
        (
            "CronTabs",
            "/apis/stable.example.com/v1/namespaces/default/crontabs",
            |i| {
                json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                   "metadata": {"name": format!("o-{i:06}"), "labels": {"bench": "start"}},
                   "spec": {"cronSpec": "* * * * */5", "image": "registry.example.com/cron:1.2.3"}})
            },
        ),
    ];
    for (label, path, object) in kinds {
        let base = format!("{}{path}", server.url());
        let client = http();
        let (c, b) = (client.clone(), base.clone());
        let creates = concurrent(CREATES, move |i| {
            let (c, b) = (c.clone(), b.clone());
            async move {
                let body = Bytes::from(object(i).to_string());
                let (code, body) = request(&c, "POST", &b, body).await;
                assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
            }
        })
        .await;
        let (c, b) = (client.clone(), base.clone());
        let gets = concurrent(GETS, move |i| {
            let (c, b) = (c.clone(), b.clone());
            async move {
                let url = format!("{b}/o-{:06}", (i * 7919) % CREATES);
                let (code, _) = request(&c, "GET", &url, Bytes::new()).await;
                assert_eq!(code, 200);
            }
        })
        .await;
        println!(
            "embedded {label}, --controllers '{controllers}': creates/s {creates:.0} ({CLIENTS} clients, {CREATES} objects), gets/s {gets:.0}"
        );
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        println!(
            "machine: {} CPUs; client and server share them",
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(0)
        );
        summary(
            "TestServer start to the first ConfigMap list",
            starts(false).await,
        );
        summary(
            "TestServer start with the CronTab CRD to the first CronTab list",
            starts(true).await,
        );
        idle_rss().await;
        // Side by side: what the controllers (the garbage collector's informer above all)
        // cost a write-heavy suite.
        throughput("*").await;
        throughput("").await;
    });
}
