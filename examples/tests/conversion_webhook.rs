//! The `conversion-webhook` example as a user runs it: a self-signed CA written with
//! `--self-signed-ca-out`, `POST /convert` over HTTPS trusting only that CA, CronTab
//! v1 ↔ v2 in order with the uid echoed, a stored object lacking a defaulted field
//! converted with its version's defaults, a Failure result for an unknown version, 400
//! for a body that is no ConversionReview, and usage errors (exit 2).

mod support;

use support::{example_binary, kubectl, kubectl_err, kubectl_ok, post, spawn_listening};

use std::path::PathBuf;
use std::process::{Child, Command};

use crd_toolkit_examples::crontab_v2;
use serde_json::{Value, json};

struct Webhook {
    child: Child,
    url: String,
    ca: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Webhook {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let (child, url) = spawn_listening(
        "conversion-webhook",
        &[
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
            "--self-signed-ca-out".as_ref(),
            ca.as_os_str(),
        ],
    );
    Webhook {
        child,
        url,
        ca,
        _dir: dir,
    }
}

fn review(desired: &str, objects: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "0000-1111", "desiredAPIVersion": desired, "objects": objects}
    }))
    .unwrap()
}

fn crontab(version: &str, name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": format!("stable.example.com/{version}"), "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                     "resourceVersion": "12", "generation": 1},
        "spec": spec
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn converts_crontabs_over_https_with_the_written_ca() {
    let webhook = start();
    assert!(
        webhook.url.starts_with("https://127.0.0.1:"),
        "{}",
        webhook.url
    );
    assert!(webhook.url.ends_with("/convert"));

    let objects = vec![
        crontab(
            "v1",
            "a",
            json!({"cronSpec": "*/5 * * * *", "image": "img", "replicas": 2}),
        ),
        crontab("v2", "b", json!({"schedule": "0 1 * * *", "replicas": 1})),
    ];
    let (code, answer) = post(
        &webhook.url,
        &webhook.ca,
        review("stable.example.com/v2", objects),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    let response = &answer["response"];
    assert_eq!(answer["kind"], "ConversionReview");
    assert_eq!(response["uid"], "0000-1111");
    assert_eq!(response["result"]["status"], "Success");
    let converted = response["convertedObjects"].as_array().unwrap();
    assert_eq!(
        converted[0],
        crontab(
            "v2",
            "a",
            json!({"schedule": "*/5 * * * *", "image": "img", "replicas": 2})
        )
    );
    assert_eq!(
        converted[1],
        crontab("v2", "b", json!({"schedule": "0 1 * * *", "replicas": 1}))
    );

    let back = vec![converted[0].clone()];
    let (_, answer) = post(
        &webhook.url,
        &webhook.ca,
        review("stable.example.com/v1", back),
    )
    .await;
    assert_eq!(
        answer["response"]["convertedObjects"][0],
        crontab(
            "v1",
            "a",
            json!({"cronSpec": "*/5 * * * *", "image": "img", "replicas": 2})
        )
    );

    // Stored before `replicas` had a default: read with v2's defaults, as the API
    // server reads stored objects.
    let stored = vec![crontab("v2", "old", json!({"schedule": "0 3 * * *"}))];
    let (code, answer) = post(
        &webhook.url,
        &webhook.ca,
        review("stable.example.com/v1", stored),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        answer["response"]["result"]["status"], "Success",
        "{answer}"
    );
    assert_eq!(
        answer["response"]["convertedObjects"][0],
        crontab("v1", "old", json!({"cronSpec": "0 3 * * *", "replicas": 1}))
    );

    let objects = vec![crontab(
        "v1",
        "a",
        json!({"cronSpec": "* * * * *", "replicas": 1}),
    )];
    let (code, answer) = post(
        &webhook.url,
        &webhook.ca,
        review("stable.example.com/v3", objects),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert_eq!(
        answer["response"]["result"]["message"],
        "unsupported version \"stable.example.com/v3\" for kind CronTab (supported: stable.example.com/v1, stable.example.com/v2)"
    );

    let (code, answer) = post(&webhook.url, &webhook.ca, b"{\"kind\":\"Pod\"}".to_vec()).await;
    assert_eq!(code, 400);
    assert_eq!(
        (answer["kind"].as_str(), answer["code"].as_u64()),
        (Some("Status"), Some(400))
    );
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("ConversionReview"),
        "{answer}"
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--listen", "nowhere"][..],
        &["--listen", "127.0.0.1:0"],
        &["--bogus"],
    ] {
        let out = Command::new(example_binary("conversion-webhook"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("error: ") && stderr.contains("usage: conversion-webhook"),
            "{stderr}"
        );
    }
}

/// kubectl against crd-server with the webhook example running: the two-version
/// CronTab is stored as v1 and served as v1 and v2 through the webhook over HTTPS
/// (trusting the CA from `--self-signed-ca-out`), `storedVersions` is kept, a
/// deprecated version warns, and a webhook that is gone is the API server's error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crd_server_converts_through_the_webhook() {
    let webhook = start();
    let ca = std::fs::read_to_string(&webhook.ca).unwrap();
    let mut crd = crontab_v2::crd_with_webhook(&webhook.url, &ca);
    crd.spec.versions[0].deprecated = Some(true);
    crd.spec.versions[0].deprecation_warning =
        Some("stable.example.com/v1 CronTab is deprecated; use stable.example.com/v2".into());
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let crd_file = dir.path().join("crd.json");
    std::fs::write(&crd_file, serde_json::to_vec(&crd).unwrap()).unwrap();
    kubectl_ok(&url, &["apply", "-f", crd_file.to_str().unwrap()]);
    kubectl_ok(
        &url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/crontabs.stable.example.com",
        ],
    );

    // Written as v2: converted by the webhook and stored as v1.
    let v2_file = dir.path().join("v2.yaml");
    std::fs::write(
        &v2_file,
        "apiVersion: stable.example.com/v2\nkind: CronTab\nmetadata:\n  name: nightly\n  namespace: default\nspec:\n  schedule: \"0 2 * * *\"\n  image: backup:1\n  replicas: 2\n",
    )
    .unwrap();
    kubectl_ok(&url, &["create", "-f", v2_file.to_str().unwrap()]);
    let stored = server
        .server()
        .store()
        .get("/registry/stable.example.com/crontabs/default/nightly")
        .await
        .unwrap()
        .expect("stored");
    let stored: Value = serde_json::from_slice(&stored.value).unwrap();
    assert_eq!(stored["apiVersion"], "stable.example.com/v1");
    assert_eq!(stored["spec"]["cronSpec"], "0 2 * * *");

    let v2: Value = serde_json::from_str(&kubectl_ok(
        &url,
        &[
            "get",
            "crontabs.v2.stable.example.com",
            "nightly",
            "-n",
            "default",
            "-o",
            "json",
        ],
    ))
    .unwrap();
    assert_eq!(v2["apiVersion"], "stable.example.com/v2");
    assert_eq!(v2["spec"]["schedule"], "0 2 * * *");
    let list: Value = serde_json::from_str(&kubectl_ok(
        &url,
        &["get", "crontabs.v2.stable.example.com", "-A", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(list["items"][0]["spec"]["schedule"], "0 2 * * *");

    // The deprecated v1 answers with kubectl's Warning line.
    let out = kubectl(
        &url,
        &[
            "get",
            "crontabs.v1.stable.example.com",
            "nightly",
            "-n",
            "default",
            "-o",
            "json",
        ],
    );
    assert!(out.status.success());
    let v1: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v1["spec"]["cronSpec"], "0 2 * * *");
    assert_eq!(v1["metadata"]["uid"], v2["metadata"]["uid"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "Warning: stable.example.com/v1 CronTab is deprecated; use stable.example.com/v2"
        ),
        "{stderr}"
    );

    let status: Value = serde_json::from_str(&kubectl_ok(
        &url,
        &["get", "crd", "crontabs.stable.example.com", "-o", "json"],
    ))
    .unwrap();
    assert_eq!(status["status"]["storedVersions"], json!(["v1"]));

    // The webhook is gone: reads in v2 fail the way kube-apiserver fails them.
    drop(webhook);
    let err = kubectl_err(
        &url,
        &[
            "get",
            "crontabs.v2.stable.example.com",
            "nightly",
            "-n",
            "default",
        ],
    );
    assert!(
        err.contains("conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post \"https://127.0.0.1:"),
        "{err}"
    );
}
