//! The serviceaccount and root-ca-cert-publisher controllers, driven by the real
//! kubectl against an HTTPS server: a new namespace gets its `default` ServiceAccount
//! (`kubectl create token default` works) and its `kube-root-ca.crt` ConfigMap, whose
//! `ca.crt` verifies the server (kubectl trusts it as `--certificate-authority`); both
//! come back when deleted, and the ConfigMap's data when edited. A `--root-ca-file`
//! that holds no certificate stops the server from starting.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{kubectl, kubectl_ok, write};

/// The bearer token the HTTPS server asks for (kubectl prompts without one).
const TOKEN: &str = "s3cret";

const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

fn config(dir: &std::path::Path) -> crd_server::Config {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("certificate");
    let (cert_file, key_file) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&cert_file, cert.cert.pem()).expect("write cert");
    std::fs::write(&key_file, cert.signing_key.serialize_pem()).expect("write key");
    crd_server::Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        store: crd_server::StoreConfig::InMemory,
        tls: Some(crd_server::TlsFiles {
            cert: cert_file,
            key: key_file,
        }),
        token: Some(TOKEN.into()),
        ..crd_server::Config::default()
    }
}

/// `kubectl --insecure-skip-tls-verify ARGS -o json`, polled until `done` (bounded: 20 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full = vec!["--insecure-skip-tls-verify", "--token", TOKEN];
    full.extend(args);
    full.extend(["-o", "json"]);
    let mut last = String::new();
    for _ in 0..200 {
        let out = kubectl(url, &full);
        if out.status.success() {
            let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
            if done(&v) {
                return v;
            }
        }
        last = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}; last:\n{last}");
}

fn k(url: &str, args: &[&str]) -> String {
    let mut full = vec!["--insecure-skip-tls-verify", "--token", TOKEN];
    full.extend(args);
    kubectl_ok(url, &full)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn new_namespaces_get_a_default_service_account_and_the_root_ca() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let served_cert = std::fs::read_to_string(&config.tls.as_ref().unwrap().cert).unwrap();
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();
    let url = url.as_str();

    // The namespaces made at start have them too.
    eventually(
        url,
        &["get", "serviceaccount", "default", "-n", "default"],
        "default/default",
        |_| true,
    )
    .await;
    eventually(
        url,
        &["get", "configmap", "kube-root-ca.crt", "-n", "kube-system"],
        "kube-system's CA",
        |_| true,
    )
    .await;

    k(url, &["create", "namespace", "team"]);
    let sa = eventually(
        url,
        &["get", "serviceaccount", "default", "-n", "team"],
        "team/default",
        |_| true,
    )
    .await;
    let cm = eventually(
        url,
        &["get", "configmap", "kube-root-ca.crt", "-n", "team"],
        "team's CA",
        |_| true,
    )
    .await;
    assert_eq!(
        cm["metadata"]["annotations"]["kubernetes.io/description"],
        DESCRIPTION
    );
    let ca = cm["data"]["ca.crt"].as_str().unwrap();
    assert_eq!(ca.trim(), served_cert.trim());

    // The published CA verifies the server.
    let ca_file = write(dir.path(), "published-ca.crt", ca);
    let out = kubectl_ok(
        url,
        &[
            "--certificate-authority",
            &ca_file,
            "--token",
            TOKEN,
            "get",
            "ns",
            "team",
            "-o",
            "name",
        ],
    );
    assert_eq!(out.trim(), "namespace/team");

    // A token for the default ServiceAccount.
    let token = k(url, &["create", "token", "default", "-n", "team"]);
    assert_eq!(token.trim().split('.').count(), 3, "a JWT: {token}");

    // Deleted: created again (a new object).
    k(url, &["delete", "serviceaccount", "default", "-n", "team"]);
    let uid = sa["metadata"]["uid"].clone();
    eventually(
        url,
        &["get", "serviceaccount", "default", "-n", "team"],
        "a new team/default",
        |v| v["metadata"]["uid"] != uid,
    )
    .await;
    k(
        url,
        &["delete", "configmap", "kube-root-ca.crt", "-n", "team"],
    );
    let uid = cm["metadata"]["uid"].clone();
    eventually(
        url,
        &["get", "configmap", "kube-root-ca.crt", "-n", "team"],
        "a new CA map",
        |v| v["metadata"]["uid"] != uid && v["data"]["ca.crt"] == ca,
    )
    .await;

    // Edited: its data and description are put back, other annotations kept.
    k(
        url,
        &[
            "patch",
            "configmap",
            "kube-root-ca.crt",
            "-n",
            "team",
            "--type=merge",
            "-p",
            r#"{"data":{"ca.crt":"tampered","extra":"x"},"metadata":{"annotations":{"kubernetes.io/description":null,"mine":"kept"}}}"#,
        ],
    );
    let back = eventually(
        url,
        &["get", "configmap", "kube-root-ca.crt", "-n", "team"],
        "the CA back",
        |v| v["data"]["ca.crt"] == ca && v["data"].get("extra").is_none(),
    )
    .await;
    assert_eq!(
        back["metadata"]["annotations"]["kubernetes.io/description"],
        DESCRIPTION
    );
    assert_eq!(back["metadata"]["annotations"]["mine"], "kept");
    server.shutdown().await;

    // A --root-ca-file without a certificate: the server does not start.
    let mut bad = crate::config(dir.path());
    bad.workloads.root_ca_file = Some(dir.path().join("tls.key"));
    let e = crd_server::start(bad)
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("--root-ca-file") && e.contains("no PEM certificate in the file"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_root_ca_map_is_empty() {
    let server = crd_server::TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    kubectl_ok(url, &["create", "namespace", "plain"]);
    for _ in 0..200 {
        let out = kubectl(
            url,
            &[
                "get",
                "configmap",
                "kube-root-ca.crt",
                "-n",
                "plain",
                "-o",
                "json",
            ],
        );
        if out.status.success() {
            let cm: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
            assert_eq!(cm["data"]["ca.crt"], "");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no kube-root-ca.crt in plain");
}
