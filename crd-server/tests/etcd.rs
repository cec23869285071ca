//! The etcd backend against a real etcd: the store contract, and two crd-server replicas
//! sharing one etcd.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use crd_server::store::suite::{check_contract, check_watch_compaction};
use crd_server::store::{EtcdStore, Store};
use crd_server::{Config, StoreConfig};
use support::{Etcd, kubectl, kubectl_ok};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_store_keeps_the_contract_and_replicas_share_it() {
    let etcd = Etcd::start().await;
    let store = EtcdStore::connect(std::slice::from_ref(&etcd.url))
        .await
        .expect("connect");
    check_contract(&store, "/contract").await;
    check_watch_compaction(&store, "/contract").await;
    assert_eq!(store.describe(), format!("etcd {}", etcd.url));

    // An unreachable endpoint first: the next one is used.
    let dead = format!("http://127.0.0.1:{}", support::free_port());
    let failover = EtcdStore::connect(&[dead, etcd.url.clone()])
        .await
        .expect("fail over");
    assert!(failover.get("/contract/none").await.expect("get").is_none());

    let replica = |crds| Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        store: StoreConfig::Etcd(vec![etcd.url.clone()]),
        crds,
        tls: None,
        token: None,
        ..Config::default()
    };
    let crd =
        crd_server::server::load_crd_files(&["../../shared/fixtures/crontab/crd-full.yaml".into()])
            .or_else(|_| {
                crd_server::server::load_crd_files(&[
                    "../shared/fixtures/crontab/crd-full.yaml".into()
                ])
            })
            .expect("crd-full.yaml");
    let a = crd_server::start(replica(crd)).await.expect("replica a");
    let b = crd_server::start(replica(Vec::new()))
        .await
        .expect("replica b");
    assert!(a.store_description().starts_with("etcd "));

    // Objects are stored under kube-apiserver's keys.
    let manifest = tempfile::Builder::new()
        .suffix(".yaml")
        .tempfile()
        .expect("temp file");
    std::fs::write(&manifest, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: shared}\nspec: {cronSpec: '* * * * */5', image: x}\n").expect("write");
    let url_a = a.url();
    let url_b = b.url();
    let manifest_path = manifest.path().display().to_string();
    // Replica b learns the CRD through its etcd watch.
    let mut served = false;
    for _ in 0..50 {
        if kubectl(&url_b, &["get", "crontabs"]).status.success() {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(served, "replica b serves the CRD created through replica a");
    let watch = tokio::task::spawn_blocking({
        let url_b = url_b.clone();
        move || {
            kubectl(
                &url_b,
                &[
                    "get",
                    "crontabs",
                    "--watch-only",
                    "-o",
                    "name",
                    "--request-timeout=8s",
                ],
            )
        }
    });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let created =
        tokio::task::spawn_blocking(move || kubectl_ok(&url_a, &["create", "-f", &manifest_path]))
            .await
            .expect("join");
    assert!(
        created.contains("crontab.stable.example.com/shared created"),
        "{created}"
    );
    let got = kubectl_ok(
        &url_b,
        &[
            "get",
            "crontab",
            "shared",
            "-o",
            "jsonpath={.spec.replicas}",
        ],
    );
    assert_eq!(got, "1", "read through replica b, defaulted by replica a");
    let kv = store
        .get("/registry/stable.example.com/crontabs/default/shared")
        .await
        .expect("get")
        .expect("stored");
    assert!(String::from_utf8_lossy(&kv.value).contains("\"cronSpec\""));
    let watched = watch.await.expect("join");
    assert!(
        String::from_utf8_lossy(&watched.stdout).contains("crontab.stable.example.com/shared"),
        "replica b's watch saw the create through replica a: {}",
        String::from_utf8_lossy(&watched.stdout)
    );
}
