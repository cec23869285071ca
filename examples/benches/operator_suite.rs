//! An operator test suite's cost on crd-server: 100 "tests" in one process against one
//! TestServer, each in its own namespace, each starting the StaticSite controller for
//! its namespace, creating one site and waiting until it is reconciled (its ConfigMap
//! and Deployment exist and its `Ready` condition is reported), then stopping the
//! controller. Run one after another, then 8 at a time.
//!
//! `cargo bench -p crd-toolkit-examples --features kube --bench operator_suite`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::operator::controller::run;
use crd_toolkit_examples::operator::{Context, StaticSite, StaticSiteSpec};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::PostParams;
use kube::runtime::wait::await_condition;

const TESTS: usize = 100;

async fn one_test(server: &TestServer) -> Duration {
    let t0 = Instant::now();
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let ctx = Arc::new(Context::new(client.clone(), "bench"));
    let controller = tokio::spawn(run(ctx, Some(ns.clone()), async {
        let _ = stopped.await;
    }));
    let sites: Api<StaticSite> = Api::namespaced(client.clone(), &ns);
    let spec = StaticSiteSpec {
        image: "nginx:1.27".into(),
        replicas: 1,
        pages: [("index.html".to_string(), "hi".to_string())].into(),
    };
    sites
        .create(&PostParams::default(), &StaticSite::new("site", spec))
        .await
        .expect("create");
    let ready = |s: Option<&StaticSite>| s.and_then(|s| s.ready()).is_some();
    tokio::time::timeout(
        Duration::from_secs(30),
        await_condition(sites, "site", ready),
    )
    .await
    .expect("reconciled in 30 s")
    .expect("watch");
    let pages: Api<ConfigMap> = Api::namespaced(client, &ns);
    assert!(pages.get_opt("site-pages").await.expect("get").is_some());
    let _ = stop.send(());
    let _ = controller.await;
    t0.elapsed()
}

fn report(label: &str, total: Duration, mut each: Vec<Duration>) {
    each.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{label}: {TESTS} tests in {:.2} s; per test median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        total.as_secs_f64(),
        ms(each[each.len() / 2]),
        ms(each[(each.len() * 99) / 100 - 1]),
        ms(each[each.len() - 1]),
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let t0 = Instant::now();
        let server = TestServer::builder()
            .crd(StaticSite::crd())
            .start()
            .await
            .expect("server");
        println!(
            "TestServer with the StaticSite CRD: started in {:.1} ms",
            t0.elapsed().as_secs_f64() * 1e3
        );
        let server = Arc::new(server);

        let t0 = Instant::now();
        let mut each = Vec::with_capacity(TESTS);
        for _ in 0..TESTS {
            each.push(one_test(&server).await);
        }
        report("one after another", t0.elapsed(), each);

        let t0 = Instant::now();
        let mut each = Vec::with_capacity(TESTS);
        let mut left = TESTS;
        while left > 0 {
            let n = left.min(8);
            left -= n;
            let batch: Vec<_> = (0..n)
                .map(|_| {
                    let server = server.clone();
                    tokio::spawn(async move { one_test(&server).await })
                })
                .collect();
            for t in batch {
                each.push(t.await.expect("test"));
            }
        }
        report("8 at a time", t0.elapsed(), each);
    });
}
