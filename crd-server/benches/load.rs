//! Load benchmark (bounded loops on loopback): validated creates/s and gets/s with N
//! concurrent clients, a list of 10k objects, and watch delivery latency with 1,000
//! watchers — on the embedded store and on a real etcd, next to etcd's own put rate for
//! the same bytes. `cargo bench -p crd-server --bench load` (etcd must be installed);
//! `-- embedded` or `-- etcd` runs one store only; `LOAD_LIFECYCLE=1` runs the server with
//! the lifecycle controllers only (the binary's default runs every controller). Prints one line per figure;
//! BENCHMARKS.md records a run, `scripts/load-side-by-side.sh` compares two commits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use support::{concurrent, cpu_seconds, http, percentile, request};

#[path = "support/mod.rs"]
mod support;

const CRD: &str = include_str!("../../../shared/fixtures/crontab/crd-full.yaml");
use support::CLIENTS;
const CREATES: usize = 20_000;
const GETS: usize = 50_000;
const WATCHERS: usize = 1_000;
const WATCH_WRITES: usize = 50;
const PATH: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn object(i: usize) -> Bytes {
    Bytes::from(
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
               "metadata": {"name": format!("ct-{i:06}"), "labels": {"bench": "load"}},
               "spec": {"cronSpec": "* * * * */5", "image": "registry.example.com/cron:1.2.3"}})
        .to_string(),
    )
}

async fn run(label: &str, store: crd_server::StoreConfig) {
    let crds = crd_runtime::load_crds("crd-full.yaml", CRD)
        .expect("crd")
        .crds
        .into_iter()
        .map(|d| d.crd)
        .collect();
    let config = crd_server::Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store,
        crds,
        tls: None,
        token: None,
        // `LOAD_LIFECYCLE=1`: the lifecycle controllers only (what `*` ran before the
        // workload controllers came), to see what those cost; `LOAD_NO_CONTROLLERS=1`:
        // none, to see the request path alone.
        controllers: if std::env::var_os("LOAD_NO_CONTROLLERS").is_some() {
            crd_server::Controllers::none()
        } else if std::env::var_os("LOAD_LIFECYCLE").is_some() {
            crd_server::Controllers::lifecycle()
        } else {
            crd_server::Controllers::default()
        },
        ..crd_server::Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let base = format!("{}{PATH}", server.url());
    let client = http();

    let (c, b) = (client.clone(), base.clone());
    let cpu = cpu_seconds();
    let creates = concurrent(CREATES, move |i| {
        let (c, b) = (c.clone(), b.clone());
        async move {
            let (code, body) = request(&c, "POST", &b, object(i)).await;
            assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
        }
    })
    .await;
    println!("{label}: validated creates/s ({CLIENTS} clients, {CREATES} objects): {creates:.0}");
    // The CPU of the whole process (client, server, controllers) per operation: it
    // moves much less than a rate with the machine's other load.
    let per = |cpu: f64, n: usize| (cpu_seconds() - cpu) * 1e6 / n as f64;
    println!("{label}: CPU per create: {:.1} µs", per(cpu, CREATES));
    // `LOAD_SETTLE_MS=N`: a pause before the GETs, so they start on an idle server (the
    // controllers done with the creates' events).
    if let Some(ms) = std::env::var("LOAD_SETTLE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }

    let (c, b) = (client.clone(), base.clone());
    let cpu = cpu_seconds();
    let gets = concurrent(GETS, move |i| {
        let (c, b) = (c.clone(), b.clone());
        async move {
            let (code, _) = request(
                &c,
                "GET",
                &format!("{b}/ct-{:06}", (i * 7919) % CREATES),
                Bytes::new(),
            )
            .await;
            assert_eq!(code, 200);
        }
    })
    .await;
    println!("{label}: gets/s ({CLIENTS} clients): {gets:.0}");
    println!("{label}: CPU per GET: {:.1} µs", per(cpu, GETS));

    let t0 = Instant::now();
    let (code, body) = request(&client, "GET", &format!("{base}?limit=10000"), Bytes::new()).await;
    assert_eq!(code, 200);
    let n = serde_json::from_slice::<Value>(&body).expect("list")["items"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    assert_eq!(n, 10_000);
    println!(
        "{label}: list of 10,000 objects: {:.0} ms ({} MB)",
        t0.elapsed().as_secs_f64() * 1e3,
        body.len() / 1_000_000
    );

    // Watch latency: WATCHERS watches on one object's namespace, then WATCH_WRITES updates;
    // latency = event received - update sent, over every (watcher, update) pair.
    let (_, obj) = request(&client, "GET", &format!("{base}/ct-000000"), Bytes::new()).await;
    let mut obj: Value = serde_json::from_slice(&obj).expect("object");
    // Watch from the current revision, as a client does after its list.
    let (_, list) = request(&client, "GET", &format!("{base}?limit=1"), Bytes::new()).await;
    let list: Value = serde_json::from_slice(&list).expect("list");
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    let sent: Arc<std::sync::Mutex<Vec<Instant>>> = Arc::default();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, Instant)>();
    let watch_url =
        format!("{base}?watch=1&resourceVersion={rv}&fieldSelector=metadata.name%3Dct-000000");
    let mut handles = Vec::new();
    for _ in 0..WATCHERS {
        let (c, url, tx) = (client.clone(), watch_url.clone(), tx.clone());
        handles.push(tokio::spawn(async move {
            let req = http::Request::get(&url)
                .body(Full::new(Bytes::new()))
                .expect("request");
            let mut body = c.request(req).await.expect("watch").into_body();
            let mut seen = 0;
            while seen < WATCH_WRITES {
                match body.frame().await {
                    Some(Ok(f)) => {
                        if let Ok(d) = f.into_data() {
                            let now = Instant::now();
                            for line in d.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                                if line.windows(10).any(|w| w == b"\"MODIFIED\"") {
                                    let _ = tx.send((seen, now));
                                    seen += 1;
                                }
                            }
                        }
                    }
                    _ => break,
                }
            }
        }));
    }
    drop(tx);
    tokio::time::sleep(Duration::from_secs(2)).await;
    for i in 0..WATCH_WRITES {
        // Always a change (the created object has 1): a no-op update sends no event.
        obj["spec"]["replicas"] = json!(2 + i % 8);
        sent.lock().expect("lock").push(Instant::now());
        let (code, body) = request(
            &client,
            "PUT",
            &format!("{base}/ct-000000"),
            Bytes::from(obj.to_string()),
        )
        .await;
        assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
        obj = serde_json::from_slice(&body).expect("updated");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut latencies = Vec::with_capacity(WATCHERS * WATCH_WRITES);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while latencies.len() < WATCHERS * WATCH_WRITES {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some((i, at))) => latencies.push(
                at.duration_since(sent.lock().expect("lock")[i])
                    .as_secs_f64()
                    * 1e3,
            ),
            _ => break,
        }
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "{label}: watch delivery ({WATCHERS} watchers x {WATCH_WRITES} updates, {} events): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(0.0)
    );
    for h in handles {
        h.abort();
    }
}

/// etcd's own put rate for the bytes crd-server stores per object, through the store's
/// own gRPC client (plain puts, no transaction).
async fn raw_etcd_puts(url: &str) {
    use crd_server::store::Store;
    let store = Arc::new(
        crd_server::store::EtcdStore::connect(&[url.to_string()])
            .await
            .expect("connect"),
    );
    let value = object(0);
    let (s, v) = (store.clone(), value.clone());
    let rate = concurrent(CREATES, move |i| {
        let (store, value) = (s.clone(), v.clone());
        async move {
            store
                .raw_put(&format!("/raw/{i:06}"), value)
                .await
                .expect("put");
        }
    })
    .await;
    println!("etcd raw puts/s ({CLIENTS} clients, same bytes, gRPC): {rate:.0}");
    // The store alone (compare-and-swap create transactions), without HTTP in front.
    let rate = concurrent(CREATES, move |i| {
        let (store, value) = (store.clone(), value.clone());
        async move {
            store
                .create(&format!("/store/{i:06}"), value)
                .await
                .expect("create");
        }
    })
    .await;
    println!(
        "etcd store creates/s ({CLIENTS} tasks, create transactions, no HTTP server): {rate:.0}"
    );
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
        // `cargo bench` passes `--bench`; a store name picks that store alone.
        let picked: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let wants = |store: &str| picked.is_empty() || picked.iter().any(|p| p == store);
        if wants("embedded") {
            let dir = tempfile::tempdir().expect("tempdir");
            run(
                "embedded",
                crd_server::StoreConfig::DataDir(dir.path().to_path_buf()),
            )
            .await;
        }
        if wants("etcd") {
            let etcd = support::etcd::start().await;
            raw_etcd_puts(&etcd.url).await;
            run(
                "etcd",
                crd_server::StoreConfig::Etcd(vec![etcd.url.clone()]),
            )
            .await;
        }
    });
}
