//! Validation ratcheting with the real kubectl: after a CRD tightens its schema (a
//! `maximum`, a CEL rule), objects stored before keep being updatable as long as the
//! update leaves the offending values alone; changing them is checked. With
//! `--kube-version 1.32` and the gate off, nothing ratchets.

mod support;

use crd_runtime::KubeVersion;
use support::{kubectl, kubectl_ok, test_crd, write};

/// A pool whose `spec.size` has the schema fields `extra` (`, maximum: 10`).
fn crd(extra: &str) -> String {
    test_crd::crd_yaml(
        "data.example.com",
        "Pool",
        &format!(
            r#"
            type: object
            properties:
              spec:
                type: object
                properties:
                  size: {{type: integer{extra}}}
                  note: {{type: string}}
            "#
        ),
    )
}

const POOL: &str = "apiVersion: data.example.com/v1\nkind: Pool\nmetadata: {name: p, namespace: default}\nspec: {size: 50, note: a}\n";

fn patch(url: &str, spec: &str) -> std::process::Output {
    kubectl(
        url,
        &[
            "patch",
            "pool",
            "p",
            "-n",
            "default",
            "--type=merge",
            "-p",
            &format!("{{\"spec\":{spec}}}"),
        ],
    )
}

/// Creates the pool under a loose schema, then tightens it to `maximum: 10`.
fn store_then_tighten(url: &str, dir: &std::path::Path) {
    kubectl_ok(url, &["apply", "-f", &write(dir, "crd.yaml", &crd(""))]);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/pools.data.example.com",
        ],
    );
    kubectl_ok(url, &["apply", "-f", &write(dir, "pool.yaml", POOL)]);
    kubectl_ok(
        url,
        &[
            "apply",
            "-f",
            &write(dir, "crd2.yaml", &crd(", maximum: 10")),
        ],
    );
    // The registry follows the CRD change: a new object is held to the new maximum.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let out = kubectl(
            url,
            &[
                "apply",
                "-f",
                &write(dir, "q.yaml", &POOL.replace("name: p,", "name: q,")),
            ],
        );
        if !out.status.success() {
            break;
        }
        kubectl_ok(url, &["delete", "pool", "q", "-n", "default"]);
        assert!(
            std::time::Instant::now() < deadline,
            "the CRD update never took effect"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_ratchet_values_stored_before_a_schema_tightened() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        store_then_tighten(&url, dir.path());
        // Only `note` changes: `size: 50` is unchanged, so its error is dropped.
        let out = patch(&url, r#"{"note":"b"}"#);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Changing `size` is checked against the new maximum.
        let out = patch(&url, r#"{"size":51}"#);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(
                "spec.size: Invalid value: 51: spec.size in body should be less than or equal to 10"
            ),
            "{stderr}"
        );
    })
    .await
    .expect("walk");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratcheting_cannot_be_turned_off_from_1_33() {
    let err = crd_server::TestServer::builder()
        .ratcheting(false)
        .start()
        .await
        .err()
        .expect("refused");
    assert_eq!(
        err.to_string(),
        "CRDValidationRatcheting is GA and cannot be turned off in Kubernetes 1.37"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_ratcheting_stored_values_block_updates() {
    let v132 = KubeVersion::new(32).unwrap();
    let server = crd_server::TestServer::builder()
        .kube_version(v132)
        .ratcheting(false)
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        store_then_tighten(&url, dir.path());
        let out = patch(&url, r#"{"note":"b"}"#);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("spec.size: Invalid value: 50: "),
            "{stderr}"
        );
    })
    .await
    .expect("walk");
}
