//! What the controllers cost the API (issue 46): validated creates/s of CronTabs with no
//! controller and with every controller (the binary's default), alternately, on the
//! embedded store; and the heap the garbage collector keeps for 100,000 ConfigMaps of
//! 1 KiB on etcd (whose values the server holds nowhere else once the watch cache has
//! let them go; the embedded store's page cache would blur the figure): live heap with
//! the garbage collector alone minus live heap with no controller,
//! counted by this binary's allocator once the watch cache has let those events go and
//! the heap has settled: about three minutes).
//!
//! `cargo bench -p crd-server --bench controllers --profile load [-- cost|memory] [ROUNDS]`
//! (both figures and 3 rounds by default; `COST_CONTROLLERS=LIST` measures those
//! controllers in place of every one). Each create round also prints the CPU the
//! process spent per create, which moves much less with the machine's load than a rate.
//! BENCHMARKS.md records a run.

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::json;
use support::{CLIENTS, concurrent, cpu_seconds, http, request};

#[path = "support/counting.rs"]
mod counting;
#[path = "support/mod.rs"]
mod support;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const CRD: &str = include_str!("../../../shared/fixtures/crontab/crd-full.yaml");
const CRONTABS: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";
const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const CREATES: usize = 20_000;
const CONFIGMAP_COUNT: usize = 100_000;
/// How long the watch cache keeps events (`crd_server::store::window`).
const WINDOW_FRESH: Duration = Duration::from_secs(75);

fn crontab(i: usize) -> Bytes {
    Bytes::from(
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
               "metadata": {"name": format!("ct-{i:06}"), "labels": {"bench": "controllers"}},
               "spec": {"cronSpec": "* * * * */5", "image": "registry.example.com/cron:1.2.3"}})
        .to_string(),
    )
}

/// A ConfigMap whose stored form is about 1 KiB.
fn configmap(i: usize) -> Bytes {
    let data = format!("{i:0>900}");
    Bytes::from(
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": format!("cm-{i:06}")},
               "data": {"payload": data}})
        .to_string(),
    )
}

async fn server(
    controllers: crd_server::Controllers,
    store: crd_server::StoreConfig,
) -> crd_server::RunningServer {
    let crds = crd_runtime::load_crds("crd-full.yaml", CRD)
        .expect("crd")
        .crds
        .into_iter()
        .map(|d| d.crd)
        .collect();
    let config = crd_server::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        store,
        crds,
        controllers,
        ..crd_server::Config::default()
    };
    crd_server::start(config).await.expect("server")
}

/// The controllers whose cost `cost` measures, and their name in its lines:
/// `COST_CONTROLLERS` (a `--controllers` list, for example `garbagecollector`) or every
/// one (the binary's default).
fn measured() -> (crd_server::Controllers, String) {
    match std::env::var("COST_CONTROLLERS") {
        Ok(list) => (
            list.parse()
                .expect("COST_CONTROLLERS: a --controllers list"),
            format!("controllers {list}"),
        ),
        Err(_) => (
            crd_server::Controllers::default(),
            "every controller".to_string(),
        ),
    }
}

/// How long the process's CPU still counts toward the creates after the last one: the
/// controllers finish handling their events meanwhile.
const CATCH_UP: Duration = Duration::from_secs(1);

/// Creates/s of CronTabs on a fresh server with `controllers`, and the CPU µs the
/// whole process spent per create (the creates, then [`CATCH_UP`] for the
/// controllers to finish with their events).
async fn creates_per_second(controllers: crd_server::Controllers) -> (f64, f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = crd_server::StoreConfig::DataDir(dir.path().to_path_buf());
    let server = server(controllers, store).await;
    let (client, base) = (http(), format!("{}{CRONTABS}", server.url()));
    let cpu = cpu_seconds();
    let rate = concurrent(CREATES, move |i| {
        let (c, b) = (client.clone(), base.clone());
        async move {
            let (code, body) = request(&c, "POST", &b, crontab(i)).await;
            assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
        }
    })
    .await;
    tokio::time::sleep(CATCH_UP).await;
    let cpu_per_create = (cpu_seconds() - cpu) * 1e6 / CREATES as f64;
    server.shutdown().await;
    (rate, cpu_per_create)
}

/// The live heap once it has stopped moving: sampled every 200 ms until two samples a
/// second apart differ by under 1 MB (at most 60 s).
async fn settled_heap() -> i64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = counting::live();
    let mut steady_since = Instant::now();
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = counting::live();
        if (now - last).abs() >= 1 << 20 {
            steady_since = Instant::now();
            last = now;
        } else if steady_since.elapsed() >= Duration::from_secs(1) {
            return now;
        }
    }
    counting::live()
}

/// Live heap after 100,000 ConfigMaps of 1 KiB, minus the heap before the server started.
async fn heap_after_configmaps(controllers: crd_server::Controllers) -> i64 {
    let before = settled_heap().await;
    let etcd = support::etcd::start().await;
    let store = crd_server::StoreConfig::Etcd(vec![etcd.url.clone()]);
    let server = server(controllers, store).await;
    let (client, base) = (http(), format!("{}{CONFIGMAPS}", server.url()));
    concurrent(CONFIGMAP_COUNT, move |i| {
        let (c, b) = (client.clone(), base.clone());
        async move {
            let (code, body) = request(&c, "POST", &b, configmap(i)).await;
            assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
        }
    })
    .await;
    // The watch cache's window holds every event younger than 75 s, values included;
    // once they are older, a few more writes shrink it to its least, so that what is
    // left is what the server and its controllers keep for good.
    tokio::time::sleep(WINDOW_FRESH + Duration::from_secs(1)).await;
    let (client, base) = (http(), format!("{}{CONFIGMAPS}", server.url()));
    for i in 0..64 {
        let (code, _) = request(&client, "POST", &base, configmap(CONFIGMAP_COUNT + i)).await;
        assert_eq!(code, 201);
    }
    let after = settled_heap().await;
    server.shutdown().await;
    after - before
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let rounds = args
        .iter()
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(3);
    let wants = |what: &str| {
        !args.iter().any(|a| a == "cost" || a == "memory") || args.iter().any(|a| a == what)
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        if wants("cost") {
            // Rates, not counts: the counting allocator's atomics would weigh on the
            // side that allocates more.
            counting::set_counting(false);
            let (controllers, label) = measured();
            let (mut off, mut on) = (Vec::new(), Vec::new());
            let (mut off_cpu, mut on_cpu) = (Vec::new(), Vec::new());
            for round in 1..=rounds {
                // The side that runs first alternates: the second run of a pair gains
                // a little (the first one's temp dir removal, the page cache).
                let ((a, a_cpu), (b, b_cpu)) = if round % 2 == 1 {
                    let a = creates_per_second(crd_server::Controllers::none()).await;
                    (a, creates_per_second(controllers.clone()).await)
                } else {
                    let b = creates_per_second(controllers.clone()).await;
                    (creates_per_second(crd_server::Controllers::none()).await, b)
                };
                println!(
                    "round {round}: creates/s ({CLIENTS} clients, {CREATES} CronTabs): no controllers {a:.0}, {label} {b:.0}; \
                     CPU per create: {a_cpu:.0} µs, {b_cpu:.0} µs"
                );
                off.push(a);
                on.push(b);
                off_cpu.push(a_cpu);
                on_cpu.push(b_cpu);
            }
            let (off, on) = (median(off), median(on));
            let (off_cpu, on_cpu) = (median(off_cpu), median(on_cpu));
            println!(
                "median creates/s: no controllers {off:.0}, {label} {on:.0} ({:+.1} %); \
                 CPU per create: {off_cpu:.0} µs, {on_cpu:.0} µs ({:+.1} %)",
                (on / off - 1.0) * 100.0,
                (on_cpu / off_cpu - 1.0) * 100.0
            );
        }
        counting::set_counting(true);
        if wants("memory") {
            let gc: crd_server::Controllers = "garbagecollector".parse().expect("selection");
            let none = heap_after_configmaps(crd_server::Controllers::none()).await;
            let with_gc = heap_after_configmaps(gc).await;
            let mb = |b: i64| b as f64 / 1e6;
            println!(
                "live heap after {CONFIGMAP_COUNT} ConfigMaps of 1 KiB: no controllers {:.1} MB, garbage collector {:.1} MB: the garbage collector keeps {:.1} MB ({:.0} bytes an object)",
                mb(none),
                mb(with_gc),
                mb(with_gc - none),
                (with_gc - none) as f64 / CONFIGMAP_COUNT as f64
            );
        }
    });
}
