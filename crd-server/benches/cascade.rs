//! Garbage collector benchmark: N ConfigMaps (env `CASCADE_N`, default 10,000) owned by
//! one ConfigMap are created over HTTP by concurrent clients on the embedded durable
//! store; then the owner is deleted (Background) and the time until a watch has seen
//! the last dependent deleted is measured. Prints both times and their ratio.
//! `cargo bench -p crd-server --bench cascade --profile load`; `CASCADE_POLICY=Foreground`
//! deletes the owner in the foreground instead (dependents that block it).

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use support::{CLIENTS, concurrent, http, request};

#[path = "support/mod.rs"]
mod support;

/// The longest the cascade may take before the benchmark gives up.
const LIMIT: Duration = Duration::from_secs(600);

fn main() {
    let n: usize = std::env::var("CASCADE_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let policy = std::env::var("CASCADE_POLICY").unwrap_or_else(|_| "Background".into());
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(run(n, &policy));
}

async fn run(n: usize, policy: &str) {
    let server = crd_server::TestServer::builder()
        .durable()
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let base = format!("{}/api/v1/namespaces/{ns}/configmaps", server.url());
    let client = http();

    let owner = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}});
    let (code, body) = request(&client, "POST", &base, Bytes::from(owner.to_string())).await;
    assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
    let owner: Value = serde_json::from_slice(&body).expect("owner");
    let owner_ref = json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                            "uid": owner["metadata"]["uid"], "blockOwnerDeletion": true}]);

    let (c, b) = (client.clone(), base.clone());
    let t0 = Instant::now();
    concurrent(n, move |i| {
        let (c, b) = (c.clone(), b.clone());
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
                          "metadata": {"name": format!("dep-{i:06}"), "labels": {"bench": "cascade"},
                                       "ownerReferences": owner_ref},
                          "data": {"k": "v"}});
        async move {
            let (code, body) = request(&c, "POST", &b, Bytes::from(body.to_string())).await;
            assert_eq!(code, 201, "{}", String::from_utf8_lossy(&body));
        }
    })
    .await;
    let created = t0.elapsed();
    println!(
        "created {n} dependents ({CLIENTS} clients): {:.2} s",
        created.as_secs_f64()
    );

    // Count the dependents' deletions on a watch from the current revision.
    let (_, list) = request(
        &client,
        "GET",
        &format!("{base}?limit=1&labelSelector=bench%3Dcascade"),
        Bytes::new(),
    )
    .await;
    let list: Value = serde_json::from_slice(&list).expect("list");
    let rv = list["metadata"]["resourceVersion"].as_str().expect("rv");
    let req = http::Request::get(format!(
        "{base}?watch=1&resourceVersion={rv}&labelSelector=bench%3Dcascade"
    ))
    .body(Full::new(Bytes::new()))
    .expect("watch request");
    let mut watch = client.request(req).await.expect("watch").into_body();

    let t0 = Instant::now();
    let (code, body) = request(
        &client,
        "DELETE",
        &format!("{base}/owner"),
        Bytes::from(json!({"propagationPolicy": policy}).to_string()),
    )
    .await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    let mut deleted = 0;
    let mut pending = Vec::new();
    while deleted < n {
        let frame = tokio::time::timeout(LIMIT.saturating_sub(t0.elapsed()), watch.frame())
            .await
            .unwrap_or_else(|_| panic!("{deleted} of {n} dependents deleted after {LIMIT:?}"))
            .expect("the watch ends only when the cascade is done")
            .expect("watch frame");
        let Ok(data) = frame.into_data() else {
            continue;
        };
        pending.extend_from_slice(&data);
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let event: Value = serde_json::from_slice(&line).expect("watch event");
            if event["type"] == "DELETED" {
                deleted += 1;
            }
        }
    }
    let cascade = t0.elapsed();
    println!(
        "{} cascade of {n} dependents: {:.2} s",
        policy.to_lowercase(),
        cascade.as_secs_f64()
    );
    println!(
        "cascade / creation: {:.2}",
        cascade.as_secs_f64() / created.as_secs_f64()
    );
}
