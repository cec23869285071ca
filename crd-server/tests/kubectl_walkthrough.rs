//! The CRD task page's walkthrough, step by step, with the real kubectl against
//! crd-server (`shared/fixtures/crontab/crd-full.yaml`).

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crd_server::TestServer;
use support::{kubectl, kubectl_err, kubectl_ok, write};

fn fixture() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/crontab/crd-full.yaml");
    assert!(
        p.exists(),
        "{} is missing: ../shared must sit beside the checkout",
        p.display()
    );
    p.display().to_string()
}

const CRONTAB: &str = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\n  labels: {app: cron}\nspec:\n  cronSpec: '* * * * */5'\n  image: my-awesome-cron-image\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crd_walkthrough_with_kubectl() {
    let server = TestServer::builder().start().await.expect("server");
    let url = server.url();
    let crd = fixture();
    let dir = tempfile::tempdir().expect("temp dir");
    let url2 = url.clone();
    // kubectl blocks: run the whole walkthrough off the runtime's threads.
    tokio::task::spawn_blocking(move || walkthrough(&url2, &crd, dir.path()))
        .await
        .expect("walkthrough");
}

fn walkthrough(url: &str, crd: &str, dir: &Path) {
    let ct = &write(dir, "crontab.yaml", CRONTAB);
    // Create the CRD; it is established and discoverable with its short name.
    let out = kubectl_ok(url, &["apply", "-f", crd]);
    assert!(
        out.contains(
            "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created"
        ),
        "{out}"
    );
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            "crd/crontabs.stable.example.com",
            "--timeout=10s",
        ],
    );
    let resources = kubectl_ok(url, &["api-resources", "--api-group=stable.example.com"]);
    assert!(
        resources.contains("crontabs") && resources.contains("ct") && resources.contains("CronTab"),
        "{resources}"
    );
    let crds = kubectl_ok(url, &["get", "crd"]);
    assert!(
        crds.contains("crontabs.stable.example.com") && crds.contains("CREATED AT"),
        "{crds}"
    );

    // Create a CronTab; printer columns, short name, defaults.
    assert!(
        kubectl_ok(url, &["apply", "-f", ct])
            .contains("crontab.stable.example.com/my-new-cron-object created")
    );
    let table = kubectl_ok(url, &["get", "crontab"]);
    let header: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "SPEC", "REPLICAS", "AGE"], "{table}");
    assert!(
        table.contains("my-new-cron-object") && table.contains("* * * * */5"),
        "{table}"
    );
    assert!(kubectl_ok(url, &["get", "ct"]).contains("my-new-cron-object"));
    let yaml = kubectl_ok(url, &["get", "ct", "my-new-cron-object", "-o", "yaml"]);
    for want in [
        "replicas: 1",
        "generation: 1",
        "uid: ",
        "creationTimestamp: ",
        "resourceVersion: ",
        "namespace: default",
    ] {
        assert!(yaml.contains(want), "missing {want:?} in\n{yaml}");
    }
    // Applying again is an update that changes nothing.
    assert!(kubectl_ok(url, &["apply", "-f", ct]).contains("unchanged"));

    // Unknown fields: kubectl's default is Strict; without validation they are pruned.
    let unknown = write(
        dir,
        "unknown.yaml",
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: pruned}\nspec: {cronSpec: '* * * * */5', image: x, someRandomField: 42}\n",
    );
    let err = kubectl_err(url, &["create", "-f", &unknown]);
    assert!(
        err.contains("strict decoding error: unknown field \"spec.someRandomField\""),
        "{err}"
    );
    kubectl_ok(url, &["create", "-f", &unknown, "--validate=false"]);
    let spec = kubectl_ok(url, &["get", "ct", "pruned", "-o", "jsonpath={.spec}"]);
    assert!(!spec.contains("someRandomField"), "{spec}");

    // Invalid objects are refused with the server's messages.
    let bad = write(
        dir,
        "bad.yaml",
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: bad}\nspec: {cronSpec: '* * * *', image: x, replicas: 15}\n",
    );
    let err = kubectl_err(url, &["apply", "-f", &bad]);
    assert!(err.contains("The CronTab \"bad\" is invalid"), "{err}");
    assert!(err.contains("spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"), "{err}");
    assert!(
        err.contains(
            "spec.cronSpec: Invalid value: \"* * * *\": spec.cronSpec in body should match"
        ),
        "{err}"
    );

    // Scale subresource: spec changes, generation follows.
    assert!(
        kubectl_ok(url, &["scale", "ct", "my-new-cron-object", "--replicas=3"]).contains("scaled")
    );
    let got = kubectl_ok(
        url,
        &[
            "get",
            "ct",
            "my-new-cron-object",
            "-o",
            "jsonpath={.spec.replicas} {.metadata.generation}",
        ],
    );
    assert_eq!(got, "3 2");
    let err = kubectl_err(url, &["scale", "ct", "my-new-cron-object", "--replicas=30"]);
    assert!(
        err.contains("spec.replicas in body should be less than or equal to 10"),
        "{err}"
    );

    // Status subresource: /status changes status only, the main endpoint ignores status.
    kubectl_ok(
        url,
        &[
            "patch",
            "ct",
            "my-new-cron-object",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"replicas":3,"labelSelector":"app=cron"}}"#,
        ],
    );
    kubectl_ok(
        url,
        &[
            "patch",
            "ct",
            "my-new-cron-object",
            "--type=merge",
            "-p",
            r#"{"status":{"replicas":9}}"#,
        ],
    );
    let got = kubectl_ok(
        url,
        &[
            "get",
            "ct",
            "my-new-cron-object",
            "-o",
            "jsonpath={.status.replicas} {.metadata.generation}",
        ],
    );
    assert_eq!(got, "3 2");
    let scale = kubectl_ok(
        url,
        &[
            "get",
            "--raw",
            "/apis/stable.example.com/v1/namespaces/default/crontabs/my-new-cron-object/scale",
        ],
    );
    assert!(
        scale.contains("\"selector\":\"app=cron\"") && scale.contains("\"kind\":\"Scale\""),
        "{scale}"
    );

    // Selectors.
    assert!(
        kubectl_ok(url, &["get", "ct", "-l", "app=cron", "-o", "name"]).trim()
            == "crontab.stable.example.com/my-new-cron-object"
    );
    assert!(
        kubectl_ok(
            url,
            &[
                "get",
                "ct",
                "--field-selector",
                "metadata.name=pruned",
                "-o",
                "name"
            ]
        )
        .contains("pruned")
    );
    let err = kubectl_err(url, &["get", "ct", "-l", "app in (a"]);
    assert!(err.contains("unable to parse requirement"), "{err}");

    // kubectl explain reads the published OpenAPI.
    let explain = kubectl_ok(url, &["explain", "crontab.spec"]);
    assert!(
        explain.contains("cronSpec") && explain.contains("replicas"),
        "{explain}"
    );

    // Watch sees a create.
    let watcher = {
        let url = url.to_string();
        std::thread::spawn(move || {
            kubectl(
                &url,
                &[
                    "get",
                    "ct",
                    "--watch-only",
                    "-o",
                    "name",
                    "--request-timeout=6s",
                ],
            )
        })
    };
    std::thread::sleep(Duration::from_millis(1500));
    let w = write(
        dir,
        "watched.yaml",
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: watched}\nspec: {cronSpec: '* * * * */5', image: x}\n",
    );
    kubectl_ok(url, &["create", "-f", &w]);
    let seen = watcher.join().expect("watch thread");
    assert!(
        String::from_utf8_lossy(&seen.stdout).contains("crontab.stable.example.com/watched"),
        "{seen:?}"
    );

    // Finalizers: delete marks, removing the last finalizer removes.
    kubectl_ok(
        url,
        &[
            "patch",
            "ct",
            "my-new-cron-object",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/hold"]}}"#,
        ],
    );
    kubectl_ok(url, &["delete", "ct", "my-new-cron-object", "--wait=false"]);
    let ts = kubectl_ok(
        url,
        &[
            "get",
            "ct",
            "my-new-cron-object",
            "-o",
            "jsonpath={.metadata.deletionTimestamp}",
        ],
    );
    assert!(!ts.is_empty(), "deletionTimestamp is set");
    kubectl_ok(
        url,
        &[
            "patch",
            "ct",
            "my-new-cron-object",
            "--type=json",
            "-p",
            r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
        ],
    );
    let err = kubectl_err(url, &["get", "ct", "my-new-cron-object"]);
    assert!(
        err.contains("crontabs.stable.example.com \"my-new-cron-object\" not found"),
        "{err}"
    );

    // Namespaces: the usual three exist; a missing one is NotFound.
    let ns = kubectl_ok(url, &["get", "ns", "-o", "name"]);
    for n in [
        "namespace/default",
        "namespace/kube-system",
        "namespace/kube-public",
    ] {
        assert!(ns.contains(n), "{ns}");
    }
    let err = kubectl_err(url, &["create", "-f", &w, "-n", "nope"]);
    assert!(err.contains("namespaces \"nope\" not found"), "{err}");
    kubectl_ok(url, &["create", "namespace", "team-a"]);
    kubectl_ok(url, &["create", "-f", &w, "-n", "team-a"]);
    assert!(
        kubectl_ok(url, &["get", "ct", "-A", "-o", "name"])
            .matches("watched")
            .count()
            == 2
    );

    // Deleting the CRD: the CRD finalizer deletes its objects, then the CRD and its
    // resource go (kubectl waits for that).
    kubectl_ok(url, &["delete", "-f", crd]);
    let err = kubectl_err(url, &["get", "crontabs"]);
    // Fresh discovery says the type is gone; kubectl's cached discovery lists and gets 404.
    assert!(
        err.contains("the server doesn't have a resource type \"crontabs\"")
            || err.contains("the server could not find the requested resource"),
        "{err}"
    );
    kubectl_ok(url, &["apply", "-f", crd]);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            "crd/crontabs.stable.example.com",
            "--timeout=10s",
        ],
    );
    let left = kubectl_ok(url, &["get", "ct", "-A", "-o", "name"]);
    assert!(
        left.trim().is_empty(),
        "objects of the deleted CRD are gone: {left}"
    );
}
