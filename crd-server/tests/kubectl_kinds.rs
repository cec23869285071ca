//! The built-in kinds with the real kubectl: a CRD installed and changed by
//! `kubectl apply --server-side`, namespaces created as kubectl sends them (protobuf)
//! and by server-side apply, both with the server's label and finalizer, the status and
//! scale subresources through `kubectl patch --subresource` and `kubectl scale`, and
//! deletes answered as kube-apiserver answers them.

mod support;

use serde_json::Value;
use support::{kubectl_err, kubectl_ok, write};

fn fixture() -> String {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/crontab/crd-full.yaml");
    assert!(
        p.exists(),
        "{} is missing: ../shared must sit beside the checkout",
        p.display()
    );
    std::fs::read_to_string(p).expect("fixture")
}

fn json(url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_kinds_with_kubectl() {
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
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let crd = fixture();
    let out = kubectl_ok(
        url,
        &[
            "apply",
            "--server-side",
            "-f",
            &write(dir, "crd.yaml", &crd),
        ],
    );
    assert_eq!(
        out.trim(),
        "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com serverside-applied"
    );
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/crontabs.stable.example.com",
        ],
    );
    let changed = crd.replacen("shortNames:", "shortNames:\n    - cts", 1);
    assert_ne!(changed, crd, "the fixture lists short names");
    kubectl_ok(
        url,
        &[
            "apply",
            "--server-side",
            "-f",
            &write(dir, "crd2.yaml", &changed),
        ],
    );
    let got = json(
        url,
        &[
            "get",
            "crd",
            "crontabs.stable.example.com",
            "--show-managed-fields",
        ],
    );
    assert_eq!(got["metadata"]["generation"], 2);
    assert_eq!(got["metadata"]["managedFields"][0]["manager"], "kubectl");
    assert_eq!(got["metadata"]["managedFields"][0]["operation"], "Apply");
    // The new short name is served at once.
    let out = support::kubectl(url, &["get", "cts"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("No resources found"));

    // `kubectl create namespace` sends protobuf; apply sends YAML: the same namespace.
    kubectl_ok(url, &["create", "namespace", "made"]);
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: applied\n  labels: {team: a}\n";
    kubectl_ok(
        url,
        &["apply", "--server-side", "-f", &write(dir, "ns.yaml", ns)],
    );
    for (name, extra) in [("made", None), ("applied", Some(("team", "a")))] {
        let got = json(url, &["get", "namespace", name]);
        assert_eq!(
            got["metadata"]["labels"]["kubernetes.io/metadata.name"],
            name
        );
        if let Some((k, v)) = extra {
            assert_eq!(got["metadata"]["labels"][k], v);
        }
        assert_eq!(got["spec"]["finalizers"], serde_json::json!(["kubernetes"]));
        assert_eq!(got["status"]["phase"], "Active");
    }
    assert_eq!(
        kubectl_ok(
            url,
            &[
                "get",
                "namespaces",
                "--field-selector",
                "name=made",
                "-o",
                "name"
            ]
        )
        .trim(),
        "namespace/made"
    );

    // Status and scale subresources.
    let ct = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: nightly, namespace: made}\nspec: {cronSpec: '* * * * */5', image: img, replicas: 1}\n";
    kubectl_ok(url, &["apply", "-f", &write(dir, "ct.yaml", ct)]);
    kubectl_ok(
        url,
        &[
            "patch",
            "crontab",
            "nightly",
            "-n",
            "made",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status": {"replicas": 1, "labelSelector": "app=nightly"}, "spec": {"replicas": 9}}"#,
        ],
    );
    let got = json(url, &["get", "crontab", "nightly", "-n", "made"]);
    assert_eq!(got["status"]["replicas"], 1);
    assert_eq!(
        got["spec"]["replicas"], 1,
        "/status changes nothing but status"
    );
    kubectl_ok(
        url,
        &["scale", "crontab", "nightly", "-n", "made", "--replicas=3"],
    );
    let got = json(url, &["get", "crontab", "nightly", "-n", "made"]);
    assert_eq!(
        (
            got["spec"]["replicas"].clone(),
            got["metadata"]["generation"].clone()
        ),
        (3.into(), 2.into())
    );

    let out = kubectl_ok(url, &["delete", "crontab", "nightly", "-n", "made"]);
    assert_eq!(out.trim(), "crontab.stable.example.com \"nightly\" deleted");
    let err = kubectl_err(url, &["delete", "namespace", "kube-system"]);
    assert!(
        err.contains("namespaces \"kube-system\" is forbidden: this namespace may not be deleted"),
        "{err}"
    );
    let out = kubectl_ok(url, &["delete", "namespace", "made"]);
    assert_eq!(out.trim(), "namespace \"made\" deleted");
}
