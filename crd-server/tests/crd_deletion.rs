//! Deleting a CRD as a real cluster does, driven with kubectl: the DELETE leaves the CRD
//! `Terminating` behind the `customresourcecleanup.apiextensions.k8s.io` finalizer, the
//! CRD finalizer deletes its objects (each honouring its own finalizers), the kind
//! stays served for everything but creates until the last object is gone, then the CRD
//! and its kind go. Without the controller the CRD stays `Terminating`.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use crd_server::TestServer;
use serde_json::Value;
use support::test_crd::TestCrd;
use support::{kubectl, kubectl_err, kubectl_ok, write};

const GROUP: &str = "deletion.example.com";
const CRD: &str = "widgets.deletion.example.com";
const SCHEMA: &str = "{type: object, x-kubernetes-preserve-unknown-fields: true}";

fn widget(name: &str, ns: &str, finalizers: &[&str]) -> String {
    format!(
        "apiVersion: {GROUP}/v1\nkind: Widget\nmetadata: {{name: {name}, namespace: {ns}, finalizers: {finalizers:?}}}\nspec: {{size: 1}}\n"
    )
}

/// Waits (10 s at most) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not within 10 s: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

/// A POST of `body` (as JSON) to `path`: the status code and the answer.
fn post(url: &str, path: &str, body: &str) -> (u16, Value) {
    use http_body_util::{BodyExt, Full};
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let client = Client::builder(TokioExecutor::new()).build_http();
        let req = http::Request::builder()
            .method(http::Method::POST)
            .uri(format!("{url}{path}"))
            .header("content-type", "application/json")
            .body(Full::new(bytes::Bytes::from(body.to_string())))
            .expect("request");
        let resp = client.request(req).await.expect("answered");
        let code = resp.status().as_u16();
        let bytes = resp.into_body().collect().await.expect("body").to_bytes();
        (code, serde_json::from_slice(&bytes).expect("JSON answer"))
    })
}

fn crd_json(url: &str) -> Value {
    serde_json::from_str(&kubectl_ok(url, &["get", "crd", CRD, "-o", "json"])).expect("json")
}

fn condition(crd: &Value, type_: &str) -> Value {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
        .cloned()
        .unwrap_or(Value::Null)
}

fn names(url: &str) -> Vec<String> {
    let out = kubectl_ok(url, &["get", "widgets", "-A", "-o", "name"]);
    let mut names: Vec<String> = out.lines().map(str::to_string).collect();
    names.sort();
    names
}

/// The CRD and its objects: `a`, `b` and the finalized `held` in `default`, `c` in
/// `team`.
fn install(url: &str, dir: &Path) {
    let crd = write(dir, "crd.yaml", &TestCrd::new(GROUP, "Widget").yaml(SCHEMA));
    kubectl_ok(url, &["apply", "--validate=false", "-f", &crd]);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            &format!("crd/{CRD}"),
            "--timeout=10s",
        ],
    );
    kubectl_ok(url, &["create", "namespace", "team"]);
    let objects = [
        widget("a", "default", &[]),
        widget("b", "default", &[]),
        widget("held", "default", &["example.com/hold"]),
        widget("c", "team", &[]),
    ]
    .join("---\n");
    kubectl_ok(
        url,
        &[
            "create",
            "--validate=false",
            "-f",
            &write(dir, "objects.yaml", &objects),
        ],
    );
}

async fn on_kubectl(server: &TestServer, scenario: fn(&str, &Path)) {
    let url = server.url();
    let dir = tempfile::tempdir().expect("temp dir");
    // kubectl blocks: run it off the runtime's threads.
    tokio::task::spawn_blocking(move || scenario(&url, dir.path()))
        .await
        .expect("scenario");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_crd_terminates_until_its_last_object_is_gone() {
    let server = TestServer::builder().start().await.expect("server");
    on_kubectl(&server, terminates).await;
}

fn terminates(url: &str, dir: &Path) {
    install(url, dir);
    let out = kubectl_ok(url, &["delete", "crd", CRD, "--wait=false"]);
    assert!(
        out.contains(&format!(
            "customresourcedefinition.apiextensions.k8s.io \"{CRD}\" deleted"
        )),
        "{out}"
    );
    // The objects without finalizers go; the held one waits, marked.
    wait_until("only the held object is left", || {
        names(url) == [format!("widget.{GROUP}/held")]
    });
    let held = kubectl_ok(
        url,
        &[
            "get",
            "widget",
            "held",
            "-o",
            "jsonpath={.metadata.deletionTimestamp}",
        ],
    );
    assert!(!held.is_empty(), "the held object is being deleted");

    let crd = crd_json(url);
    assert!(
        crd.pointer("/metadata/deletionTimestamp").is_some(),
        "{crd}"
    );
    assert_eq!(
        crd["metadata"]["finalizers"],
        serde_json::json!(["customresourcecleanup.apiextensions.k8s.io"])
    );
    let terminating = condition(&crd, "Terminating");
    assert_eq!(terminating["status"], "True", "{crd}");
    assert_eq!(terminating["reason"], "InstanceDeletionInProgress");
    assert_eq!(
        terminating["message"],
        "CustomResource deletion is in progress"
    );
    assert_eq!(
        condition(&crd, "Established")["status"],
        "True",
        "a terminating CRD stays established: {crd}"
    );

    // No new object while terminating. A POST is refused by apiextensions-apiserver's
    // handler with 405 MethodNotAllowed, before its body is read...
    let fresh = write(dir, "fresh.yaml", &widget("fresh", "default", &[]));
    let err = kubectl_err(url, &["create", "-f", &fresh]);
    assert!(
        err.contains(&format!(
            "Error from server (MethodNotAllowed): error when creating \"{fresh}\": create not allowed while custom resource definition is terminating"
        )),
        "{err}"
    );
    let (code, status) = post(
        url,
        &format!("/apis/{GROUP}/v1/namespaces/default/widgets"),
        "not even JSON",
    );
    assert_eq!(code, 405);
    assert_eq!(
        status,
        serde_json::json!({
            "apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
            "code": 405, "reason": "MethodNotAllowed",
            "message": "create not allowed while custom resource definition is terminating",
            "details": {"group": GROUP, "kind": "widgets"}
        })
    );
    // ... while a server-side apply that would create is refused by its
    // forbidCreateAdmission, 403 Forbidden (kubernetes PR #132467).
    let err = kubectl_err(
        url,
        &["apply", "--server-side", "--validate=false", "-f", &fresh],
    );
    assert!(
        err.contains(&format!(
            "Error from server (Forbidden): widgets.{GROUP} \"fresh\" is forbidden: create not allowed while custom resource definition is terminating"
        )),
        "{err}"
    );
    // Discovery lists only the verbs that read or delete.
    let wide = kubectl_ok(
        url,
        &[
            "api-resources",
            &format!("--api-group={GROUP}"),
            "-o",
            "wide",
        ],
    );
    assert!(
        wide.contains("delete,deletecollection,get,list,watch") && !wide.contains("create"),
        "{wide}"
    );

    // Releasing the last object lets the CRD go, and its kind with it.
    kubectl_ok(
        url,
        &[
            "patch",
            "widget",
            "held",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ],
    );
    let took = wait_until("the CRD is gone", || {
        let out = kubectl(url, &["get", "crd", CRD]);
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains(&format!(
                "customresourcedefinitions.apiextensions.k8s.io \"{CRD}\" not found"
            ))
    });
    eprintln!("the CRD went {took:?} after its last object was released");
    let resources = kubectl_ok(url, &["api-resources"]);
    assert!(!resources.contains(GROUP), "{resources}");
    let err = kubectl_err(url, &["get", "widgets", "-A"]);
    assert!(
        err.contains("the server doesn't have a resource type \"widgets\""),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_controller_a_deleted_crd_stays_terminating() {
    let server = TestServer::builder()
        .controllers("*,-customresourcecleanup")
        .start()
        .await
        .expect("server");
    on_kubectl(&server, stays).await;
}

fn stays(url: &str, dir: &Path) {
    install(url, dir);
    // The first DELETE only begins the cleanup: no `foregroundDeletion` finalizer.
    kubectl_ok(
        url,
        &["delete", "crd", CRD, "--wait=false", "--cascade=foreground"],
    );
    let crd = crd_json(url);
    assert!(
        crd.pointer("/metadata/deletionTimestamp").is_some(),
        "{crd}"
    );
    assert_eq!(
        crd["metadata"]["finalizers"],
        serde_json::json!(["customresourcecleanup.apiextensions.k8s.io"])
    );
    // As the DELETE left it: nobody works on it.
    let terminating = condition(&crd, "Terminating");
    assert_eq!(terminating["status"], "True", "{crd}");
    assert_eq!(terminating["reason"], "InstanceDeletionPending");
    assert_eq!(
        terminating["message"],
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        names(url),
        [
            format!("widget.{GROUP}/a"),
            format!("widget.{GROUP}/b"),
            format!("widget.{GROUP}/c"),
            format!("widget.{GROUP}/held"),
        ]
    );
    let deleting = kubectl_ok(
        url,
        &[
            "get",
            "widgets",
            "-A",
            "-o",
            "jsonpath={.items[*].metadata.deletionTimestamp}",
        ],
    );
    assert!(
        deleting.trim().is_empty(),
        "no object is marked: {deleting}"
    );
    assert_eq!(
        condition(&crd_json(url), "Terminating")["reason"],
        "InstanceDeletionPending"
    );
    // A second DELETE changes nothing.
    kubectl_ok(url, &["delete", "crd", CRD, "--wait=false"]);
    assert_eq!(
        crd_json(url)["metadata"]["finalizers"],
        serde_json::json!(["customresourcecleanup.apiextensions.k8s.io"])
    );
}

/// Objects stored in a version no longer served are read and deleted through the
/// served one.
const TWO_VERSIONS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.deletion.example.com}
spec:
  group: deletion.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: STORAGE_V1
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v2
    served: SERVED_V2
    storage: STORAGE_V2
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
";

fn two_versions(storage_v2: bool, served_v2: bool) -> String {
    TWO_VERSIONS
        .replace("STORAGE_V1", &(!storage_v2).to_string())
        .replace("STORAGE_V2", &storage_v2.to_string())
        .replace("SERVED_V2", &served_v2.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_stored_in_other_versions_are_deleted() {
    let server = TestServer::builder().start().await.expect("server");
    on_kubectl(&server, other_versions).await;
}

fn other_versions(url: &str, dir: &Path) {
    let crd = write(dir, "gadgets.yaml", &two_versions(false, true));
    kubectl_ok(url, &["apply", "--validate=false", "-f", &crd]);
    let established = [
        "wait",
        "--for=condition=Established",
        "crd/gadgets.deletion.example.com",
        "--timeout=10s",
    ];
    kubectl_ok(url, &established);
    let gadget = |name: &str, version: &str| {
        format!(
            "apiVersion: {GROUP}/{version}\nkind: Gadget\nmetadata: {{name: {name}}}\nspec: {{size: 1}}\n"
        )
    };
    kubectl_ok(
        url,
        &[
            "create",
            "--validate=false",
            "-f",
            &write(dir, "g1.yaml", &gadget("in-v1", "v1")),
        ],
    );
    // Storage moves to v2, then v2 stops being served: `in-v1` stays stored in v1,
    // `in-v2` is stored in v2, and only v1 is served.
    kubectl_ok(
        url,
        &[
            "apply",
            "--validate=false",
            "-f",
            &write(dir, "g-v2.yaml", &two_versions(true, true)),
        ],
    );
    kubectl_ok(
        url,
        &[
            "create",
            "--validate=false",
            "-f",
            &write(dir, "g2.yaml", &gadget("in-v2", "v2")),
        ],
    );
    kubectl_ok(
        url,
        &[
            "apply",
            "--validate=false",
            "-f",
            &write(dir, "g-v2-hidden.yaml", &two_versions(true, false)),
        ],
    );
    let stored = kubectl_ok(
        url,
        &[
            "get",
            "crd",
            "gadgets.deletion.example.com",
            "-o",
            "jsonpath={.status.storedVersions}",
        ],
    );
    assert_eq!(stored, r#"["v1","v2"]"#);
    assert_eq!(
        kubectl_ok(url, &["get", "gadgets", "-o", "name"])
            .lines()
            .count(),
        2
    );
    // `kubectl delete` waits until the CRD is gone.
    kubectl_ok(
        url,
        &[
            "delete",
            "crd",
            "gadgets.deletion.example.com",
            "--timeout=10s",
        ],
    );
    let err = kubectl_err(url, &["get", "crd", "gadgets.deletion.example.com"]);
    assert!(err.contains("not found"), "{err}");
    // Installed again, it starts empty.
    kubectl_ok(url, &["apply", "--validate=false", "-f", &crd]);
    kubectl_ok(url, &established);
    let left = kubectl_ok(url, &["get", "gadgets", "-A", "-o", "name"]);
    assert!(left.trim().is_empty(), "{left}");
}

/// A CRD deleted through a replica that runs no CRD finalizer is finished by one that
/// starts later on the same etcd: the controller keeps nothing the store does not hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_replica_finishes_a_deletion() {
    let etcd = support::Etcd::start().await;
    let replica = |controllers: &str| crd_server::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        store: crd_server::StoreConfig::Etcd(vec![etcd.url.clone()]),
        controllers: controllers.parse().expect("controllers"),
        // Both replicas run their own controllers: no Lease decides between them.
        leader_election: crd_server::LeaderElection::disabled(),
        ..crd_server::Config::default()
    };
    let a = crd_server::start(replica("*,-customresourcecleanup"))
        .await
        .expect("replica a");
    let url_a = a.url();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        install(&url_a, &path);
        kubectl_ok(&url_a, &["delete", "crd", CRD, "--wait=false"]);
        let reason = condition(&crd_json(&url_a), "Terminating")["reason"].clone();
        assert_eq!(reason, "InstanceDeletionPending");
    })
    .await
    .expect("replica a deletes");
    let b = crd_server::start(replica("*")).await.expect("replica b");
    let (url_a, url_b) = (a.url(), b.url());
    tokio::task::spawn_blocking(move || {
        wait_until("replica b deletes the objects", || {
            names(&url_a) == [format!("widget.{GROUP}/held")]
        });
        kubectl_ok(
            &url_a,
            &[
                "patch",
                "widget",
                "held",
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ],
        );
        for url in [&url_a, &url_b] {
            wait_until("the CRD is gone on both replicas", || {
                !kubectl(url, &["get", "crd", CRD]).status.success()
            });
        }
    })
    .await
    .expect("replica b finishes");
}

const WEBHOOK: &str = "  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {url: 'https://127.0.0.1:9/convert'}
";

/// Objects that cannot be read (their conversion webhook is down) hold the CRD with
/// `InstanceDeletionFailed`; once the CRD converts again, the retry finishes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_cleanup_is_recorded_and_retried() {
    let server = TestServer::builder().start().await.expect("server");
    on_kubectl(&server, failed_then_retried).await;
}

fn failed_then_retried(url: &str, dir: &Path) {
    let name = "gadgets.deletion.example.com";
    kubectl_ok(
        url,
        &[
            "apply",
            "--validate=false",
            "-f",
            &write(dir, "v1.yaml", &two_versions(false, true)),
        ],
    );
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            &format!("crd/{name}"),
            "--timeout=10s",
        ],
    );
    let gadget = format!("apiVersion: {GROUP}/v1\nkind: Gadget\nmetadata: {{name: old}}\n");
    kubectl_ok(
        url,
        &[
            "create",
            "--validate=false",
            "-f",
            &write(dir, "old.yaml", &gadget),
        ],
    );
    // Storage moves to v2, converted by a webhook nobody serves: `old` (stored in v1)
    // can no longer be read in v2.
    let broken = two_versions(true, true) + WEBHOOK;
    kubectl_ok(
        url,
        &[
            "apply",
            "--validate=false",
            "-f",
            &write(dir, "broken.yaml", &broken),
        ],
    );
    kubectl_ok(url, &["delete", "crd", name, "--wait=false"]);
    let get_crd = || -> Value {
        serde_json::from_str(&kubectl_ok(url, &["get", "crd", name, "-o", "json"])).expect("json")
    };
    // The controller retries with backoff and writes InstanceDeletionInProgress again,
    // so reason and message are read from one and the same answer.
    let mut message = Value::Null;
    wait_until("the failure is recorded", || {
        let terminating = condition(&get_crd(), "Terminating");
        let failed = terminating["reason"] == "InstanceDeletionFailed";
        if failed {
            message = terminating["message"].clone();
        }
        failed
    });
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.starts_with("could not list instances: ")),
        "{message}"
    );
    // Converting again (no webhook): the change wakes the controller, which finishes.
    kubectl_ok(
        url,
        &[
            "patch",
            "crd",
            name,
            "--type=merge",
            "-p",
            r#"{"spec":{"conversion":{"strategy":"None","webhook":null}}}"#,
        ],
    );
    wait_until("the CRD is gone", || {
        !kubectl(url, &["get", "crd", name]).status.success()
    });
}
