//! kubectl's typed commands send protobuf bodies: `kubectl create namespace`,
//! `create secret generic`, `create configmap` and `create serviceaccount` against
//! the server, each checked to have gone as protobuf (kubectl's request log) and
//! stored as the JSON kube-apiserver stores.

mod support;

use serde_json::{Value, json};
use support::{kubectl, kubectl_ok};

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// Runs a `kubectl create …` that must send its body as protobuf.
fn create_as_protobuf(url: &str, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.push("-v=8");
    let out = kubectl(url, &all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kubectl {args:?} failed: {stderr}");
    let sent = stderr
        .lines()
        .any(|l| l.contains("Content-Type") && l.contains(PROTOBUF) && !l.contains("Accept"));
    assert!(sent, "kubectl {args:?} sent no protobuf body:\n{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An object as stored, without what the server sets on every object.
fn stored(url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let mut v: Value = serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json");
    let meta = v["metadata"].as_object_mut().expect("metadata");
    for server_set in ["uid", "resourceVersion", "creationTimestamp"] {
        assert!(meta.remove(server_set).is_some(), "no {server_set}: {v}");
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_creates_send_protobuf() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || walk(&url))
        .await
        .expect("walk");
}

fn walk(url: &str) {
    let out = create_as_protobuf(url, &["create", "namespace", "pb"]);
    assert_eq!(out.trim(), "namespace/pb created");
    assert_eq!(
        stored(url, &["get", "namespace", "pb"]),
        json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "pb", "labels": {"kubernetes.io/metadata.name": "pb"}},
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"}
        })
    );

    let out = create_as_protobuf(
        url,
        &[
            "create",
            "secret",
            "generic",
            "creds",
            "-n",
            "pb",
            "--from-literal=user=admin",
            "--from-literal=pass=s3cr3t",
        ],
    );
    assert_eq!(out.trim(), "secret/creds created");
    assert_eq!(
        stored(url, &["get", "secret", "creds", "-n", "pb"]),
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "creds", "namespace": "pb"},
            "data": {"pass": "czNjcjN0", "user": "YWRtaW4="},
            "type": "Opaque"
        })
    );

    // A file that is not UTF-8 goes into binaryData.
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("blob.bin");
    std::fs::write(&blob, [0u8, 0xff, 0xfe]).unwrap();
    let from_file = format!("--from-file=blob={}", blob.display());
    let out = create_as_protobuf(
        url,
        &[
            "create",
            "configmap",
            "settings",
            "-n",
            "pb",
            "--from-literal=color=blue",
            "--from-literal=size=L",
            &from_file,
        ],
    );
    assert_eq!(out.trim(), "configmap/settings created");
    assert_eq!(
        stored(url, &["get", "configmap", "settings", "-n", "pb"]),
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": "pb"},
            "data": {"color": "blue", "size": "L"},
            "binaryData": {"blob": "AP/+"}
        })
    );

    let out = create_as_protobuf(url, &["create", "serviceaccount", "robot", "-n", "pb"]);
    assert_eq!(out.trim(), "serviceaccount/robot created");
    assert_eq!(
        stored(url, &["get", "serviceaccount", "robot", "-n", "pb"]),
        json!({
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "robot", "namespace": "pb"}
        })
    );

    // A second protobuf create of the same name: refused as kube-apiserver refuses it.
    let out = kubectl(
        url,
        &[
            "create",
            "configmap",
            "settings",
            "-n",
            "pb",
            "--from-literal=a=b",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("configmaps \"settings\" already exists"),
        "{stderr}"
    );
}
