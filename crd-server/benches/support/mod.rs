//! What the server benchmarks share: a pooled HTTP/1.1 client on loopback, one request,
//! a fixed number of operations spread over concurrent clients, percentiles, the
//! process's CPU time.
#![allow(dead_code)]

pub mod etcd;

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// Concurrent clients of the throughput figures.
pub const CLIENTS: usize = 32;

/// Idle connections kept per host (the watch figure holds a thousand).
const POOL: usize = 2_000;

pub type Http = Client<HttpConnector, Full<Bytes>>;

pub fn http() -> Http {
    let mut c = HttpConnector::new();
    c.set_nodelay(true);
    Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(POOL)
        .build(c)
}

pub async fn request(client: &Http, method: &str, url: &str, body: Bytes) -> (u16, Bytes) {
    let req = http::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json")
        .body(Full::new(body))
        .expect("request");
    let resp = client.request(req).await.expect("response");
    let code = resp.status().as_u16();
    (
        code,
        resp.into_body().collect().await.expect("body").to_bytes(),
    )
}

/// Runs `total` operations over `CLIENTS` tasks; returns operations per second.
pub async fn concurrent<F, Fut>(total: usize, op: F) -> f64
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let op = Arc::new(op);
    let t0 = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let op = op.clone();
            tokio::spawn(async move {
                let mut i = c;
                while i < total {
                    op(i).await;
                    i += CLIENTS;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("task");
    }
    total as f64 / t0.elapsed().as_secs_f64()
}

/// CPU seconds this process has used, user and system (`/proc/self/stat`, in Linux's
/// fixed 100 ticks a second): a rate moves with the machine's other load, the CPU an
/// operation costs much less.
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}
