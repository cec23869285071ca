//! What crd-server itself spends per request, without HTTP or a network: `crd_server::app`
//! (the in-memory store and the CronTab CRD) driven as a service on one thread —
//! validated creates, GETs, merge patches and server-side applies of CronTabs. Prints
//! the time per request; under callgrind, `--toggle-collect='*requests::phase*'`
//! counts the instructions of the requests alone (repeatable whatever the machine
//! load). `cargo bench -p crd-server --bench requests [-- N [PHASE...]]`: PHASE is
//! `create`, `get`, `patch` or `apply` (creates always run: the others need them), or
//! `watched`: a watch on the CronTabs is open (and read) during the creates, so each
//! create also goes into the watch cache's window (`crd_server::store::window`'s
//! `push`, which callgrind shows on its own); `embedded`: the embedded store (redb, in a
//! temporary directory) in place of the in-memory one, whose path a load run takes. Each phase also prints its heap
//! allocations and bytes allocated per request, counted by this binary's allocator
//! (exact on one thread, whatever the machine load).

use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::body::Body;
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

#[path = "support/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const CRD: &str = include_str!("../../../shared/fixtures/crontab/crd-full.yaml");
const PATH: &str = "/apis/stable.example.com/v1/namespaces/default/crontabs";

fn request(method: &str, uri: String, content_type: &str, body: Vec<u8>) -> http::Request<Body> {
    http::Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(Body::from(body))
        .expect("request")
}

async fn send(app: &axum::Router, req: http::Request<Body>) -> u16 {
    let resp = app.clone().oneshot(req).await.expect("infallible");
    let code = resp.status().as_u16();
    black_box(resp.into_body().collect().await.expect("body").to_bytes());
    code
}

fn crontab(i: usize) -> Vec<u8> {
    json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
           "metadata": {"name": format!("ct-{i:06}"), "labels": {"bench": "requests"}},
           "spec": {"cronSpec": "* * * * */5", "image": "registry.example.com/cron:1.2.3"}})
    .to_string()
    .into_bytes()
}

/// Whether a watch is open during the requests (`watched`).
static WATCHED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// One kind of request `n` times; the requests of this function are what callgrind
/// counts with `--toggle-collect`.
#[inline(never)]
fn phase(
    rt: &tokio::runtime::Runtime,
    app: &axum::Router,
    name: &str,
    n: usize,
    make: impl Fn(usize) -> http::Request<Body>,
) {
    let (allocations, bytes) = (counting::allocations(), counting::bytes());
    let start = Instant::now();
    rt.block_on(async {
        for i in 0..n {
            let code = send(app, make(i)).await;
            assert!(code < 300, "{name} {i}: {code}");
            if WATCHED.load(Ordering::Relaxed) {
                // The in-memory store never makes a request wait: let the watch's
                // fan-out and reader run between requests, as a server's would.
                tokio::task::yield_now().await;
            }
        }
    });
    let per = start.elapsed() / n as u32;
    let allocations = (counting::allocations() - allocations) as f64 / n as f64;
    let bytes = (counting::bytes() - bytes) as f64 / n as f64;
    println!(
        "{name}: {:.1} µs per request ({n} requests), {allocations:.1} allocations and \
         {bytes:.0} bytes allocated per request",
        per.as_secs_f64() * 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let picked = |p: &str| args.len() < 2 || args[1..].iter().any(|a| a == p);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let data_dir = args
        .iter()
        .any(|a| a == "embedded")
        .then(|| tempfile::tempdir().expect("tempdir"));
    let app = rt.block_on(async {
        let crds = crd_runtime::load_crds("crd-full.yaml", CRD)
            .expect("CronTab CRD")
            .crds
            .into_iter()
            .map(|d| d.crd)
            .collect();
        let config = crd_server::Config {
            store: match &data_dir {
                Some(dir) => crd_server::StoreConfig::DataDir(dir.path().to_path_buf()),
                None => crd_server::StoreConfig::InMemory,
            },
            crds,
            ..crd_server::Config::default()
        };
        crd_server::app(&config).await.expect("app")
    });
    if args.iter().skip(1).any(|a| a == "watched") {
        WATCHED.store(true, Ordering::Relaxed);
        // A watcher keeps the CronTabs' fan-out hub, and so its window, alive.
        let watch = request("GET", format!("{PATH}?watch=true"), "", Vec::new());
        let resp = rt.block_on(app.clone().oneshot(watch)).expect("infallible");
        assert_eq!(resp.status().as_u16(), 200, "watch");
        let mut body = resp.into_body().into_data_stream();
        rt.spawn(async move {
            use futures::StreamExt;
            while let Some(chunk) = body.next().await {
                black_box(chunk.ok());
            }
        });
    }
    phase(&rt, &app, "create", n, |i| {
        request("POST", PATH.into(), "application/json", crontab(i))
    });
    if picked("get") {
        phase(&rt, &app, "get", n, |i| {
            request("GET", format!("{PATH}/ct-{i:06}"), "", Vec::new())
        });
    }
    if picked("patch") {
        phase(&rt, &app, "merge patch", n, |i| {
            let body = json!({"spec": {"replicas": 2}}).to_string().into_bytes();
            request(
                "PATCH",
                format!("{PATH}/ct-{i:06}"),
                "application/merge-patch+json",
                body,
            )
        });
    }
    if picked("apply") {
        phase(&rt, &app, "apply", n, |i| {
            let body = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                              "metadata": {"name": format!("ct-{i:06}")}, "spec": {"image": "other:1"}})
            .to_string()
            .into_bytes();
            request(
                "PATCH",
                format!("{PATH}/ct-{i:06}?fieldManager=bench&force=true"),
                "application/apply-patch+yaml",
                body,
            )
        });
    }
}
