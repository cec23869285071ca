//! Namespace termination as a cluster does it, through the real kubectl: a deleted
//! namespace turns `Terminating` and stays while the namespace controller deletes its
//! content, with the controller's conditions; creates in it are refused as the
//! NamespaceLifecycle admission refuses them; it goes once the last finalizer of its
//! content is removed. Also the `finalize` subresource, `kubectl delete ns` waiting for
//! the namespace to go, the label and finalizer every namespace gets however it is
//! created, and a server without the namespace controller.

mod support;

use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use support::{kubectl, kubectl_err, kubectl_ok, write};

const WIDGETS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"#;

fn json_of(url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

/// Whether `kubectl get ARGS` finds nothing (NotFound).
fn gone(url: &str, args: &[&str]) -> bool {
    let out = kubectl(url, args);
    !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("NotFound")
}

/// Polls `check` every 20 ms for at most 10 s.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The namespace's conditions as (type, status, reason, message).
fn conditions(ns: &Value) -> Vec<(String, String, String, String)> {
    let field = |c: &Value, k: &str| c[k].as_str().unwrap_or_default().to_string();
    ns["status"]["conditions"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|c| {
                    (
                        field(c, "type"),
                        field(c, "status"),
                        field(c, "reason"),
                        field(c, "message"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn condition(t: &str, s: &str, r: &str, m: &str) -> (String, String, String, String) {
    (t.into(), s.into(), r.into(), m.into())
}

/// One request with a JSON body (a merge patch for PATCH); the status code and the
/// answer.
async fn call(base: &str, method: Method, path: &str, body: &Value) -> (StatusCode, Value) {
    let client = Client::builder(TokioExecutor::new()).build_http();
    let content_type = if method == Method::PATCH {
        "application/merge-patch+json"
    } else {
        "application/json"
    };
    let req = http::Request::builder()
        .method(method)
        .uri(format!("{base}{path}"))
        .header("content-type", content_type)
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("request");
    let resp = tokio::time::timeout(Duration::from_secs(10), client.request(req))
        .await
        .expect("an answer within 10 s")
        .expect("answered");
    let code = resp.status();
    let bytes = resp.into_body().collect().await.expect("body").to_bytes();
    (code, serde_json::from_slice(&bytes).expect("JSON answer"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_namespace_terminates_with_its_content() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let walk_url = url.clone();
    tokio::task::spawn_blocking(move || terminate(&walk_url))
        .await
        .expect("walk");

    // What a create in a terminating namespace answers, to the byte of its Status.
    let (code, status) = call(
        &url,
        Method::POST,
        "/api/v1/namespaces/doomed/configmaps",
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "late-"}}),
    )
    .await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    assert_eq!(
        status,
        json!({
            "apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
            "code": 403, "reason": "Forbidden",
            "message": "configmaps \"late-\" is forbidden: unable to create new content in namespace doomed because it is being terminated",
            "details": {"name": "late-", "group": "", "kind": "configmaps", "causes": [{
                "reason": "NamespaceTerminating",
                "message": "namespace doomed is being terminated",
                "field": "metadata.namespace"
            }]}
        })
    );

    let walk_url = url.clone();
    tokio::task::spawn_blocking(move || release(&walk_url))
        .await
        .expect("walk");
}

/// Deletes `doomed` (a ConfigMap, a Secret and a Widget held by a finalizer inside)
/// and checks what a cluster shows while it terminates.
fn terminate(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // `--validate=false` everywhere: kubectl's download of the schemas is not what is
    // tested here, and the server's answers are the same either way.
    kubectl_ok(
        url,
        &[
            "apply",
            "--validate=false",
            "-f",
            &write(dir, "crd.yaml", WIDGETS),
        ],
    );
    kubectl_ok(url, &["create", "namespace", "doomed"]);
    kubectl_ok(
        url,
        &[
            "create",
            "configmap",
            "c",
            "-n",
            "doomed",
            "--from-literal=a=b",
        ],
    );
    kubectl_ok(
        url,
        &[
            "create",
            "secret",
            "generic",
            "s",
            "-n",
            "doomed",
            "--from-literal=a=b",
        ],
    );
    let widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: held\n  namespace: doomed\n  finalizers: [example.com/hold]\n";
    kubectl_ok(
        url,
        &[
            "apply",
            "--validate=false",
            "-f",
            &write(dir, "widget.yaml", widget),
        ],
    );

    let out = kubectl_ok(url, &["delete", "namespace", "doomed", "--wait=false"]);
    assert_eq!(out.trim(), "namespace \"doomed\" deleted");

    // The controller deletes what it can and reports what waits.
    eventually("the namespace reports its remaining content", || {
        conditions(&json_of(url, &["get", "ns", "doomed"])).len() == 5
    });
    let ns = json_of(url, &["get", "ns", "doomed"]);
    assert_eq!(ns["status"]["phase"], "Terminating");
    assert!(ns["metadata"]["deletionTimestamp"].is_string(), "{ns}");
    assert!(
        ns["metadata"].get("deletionGracePeriodSeconds").is_none(),
        "{ns}"
    );
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(
        conditions(&ns),
        [
            condition(
                "NamespaceDeletionDiscoveryFailure",
                "False",
                "ResourcesDiscovered",
                "All resources successfully discovered"
            ),
            condition(
                "NamespaceDeletionGroupVersionParsingFailure",
                "False",
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed"
            ),
            condition(
                "NamespaceDeletionContentFailure",
                "False",
                "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization"
            ),
            condition(
                "NamespaceContentRemaining",
                "True",
                "SomeResourcesRemain",
                "Some resources are remaining: widgets.example.com has 1 resource instances"
            ),
            condition(
                "NamespaceFinalizersRemaining",
                "True",
                "SomeFinalizersRemain",
                "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
            ),
        ]
    );
    let table = kubectl_ok(url, &["get", "ns", "doomed", "--no-headers"]);
    assert!(table.contains("Terminating"), "{table}");
    assert!(gone(url, &["get", "configmap", "c", "-n", "doomed"]));
    assert!(gone(url, &["get", "secret", "s", "-n", "doomed"]));
    let held = json_of(url, &["get", "widget", "held", "-n", "doomed"]);
    assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");

    // A second delete answers the namespace as it is, whatever its propagation policy:
    // no `orphan` finalizer while `spec.finalizers` remain.
    let again = kubectl_ok(
        url,
        &[
            "delete",
            "namespace",
            "doomed",
            "--wait=false",
            "--cascade=orphan",
        ],
    );
    assert_eq!(again.trim(), "namespace \"doomed\" deleted");
    let ns = json_of(url, &["get", "namespace", "doomed"]);
    assert!(ns["metadata"].get("finalizers").is_none(), "{ns}");

    // Creates are refused as the NamespaceLifecycle admission refuses them.
    let why = "is forbidden: unable to create new content in namespace doomed because it is being terminated";
    let err = kubectl_err(url, &["create", "configmap", "late", "-n", "doomed"]);
    assert_eq!(
        err.trim(),
        format!("error: failed to create configmap: configmaps \"late\" {why}")
    );
    let late = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n  namespace: doomed\n";
    let path = write(dir, "late.yaml", late);
    let err = kubectl_err(url, &["create", "--validate=false", "-f", &path]);
    assert_eq!(
        err.trim(),
        format!(
            "Error from server (Forbidden): error when creating \"{path}\": configmaps \"late\" {why}"
        )
    );
    // Updates of what is there are still allowed.
    kubectl_ok(
        url,
        &["label", "widget", "held", "-n", "doomed", "stage=last"],
    );
}

/// Removes the last finalizer: the namespace goes.
fn release(url: &str) {
    kubectl_ok(
        url,
        &[
            "patch",
            "widget",
            "held",
            "-n",
            "doomed",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ],
    );
    eventually("the namespace goes", || gone(url, &["get", "ns", "doomed"]));
    assert!(gone(url, &["get", "widget", "held", "-n", "doomed"]));

    // `kubectl delete ns` waits until the namespace is gone, with `--wait` or without.
    for (name, extra) in [("quick", None), ("waited", Some("--wait"))] {
        kubectl_ok(url, &["create", "namespace", name]);
        kubectl_ok(url, &["create", "configmap", "x", "-n", name]);
        let mut args = vec!["delete", "namespace", name, "--timeout=10s"];
        args.extend(extra);
        let out = kubectl_ok(url, &args);
        assert_eq!(out.trim(), format!("namespace \"{name}\" deleted"));
        assert!(gone(url, &["get", "ns", name]), "{name} is gone");
        assert!(gone(url, &["get", "configmap", "x", "-n", name]));
    }
    // A namespace of the old name is a new one.
    kubectl_ok(url, &["create", "namespace", "quick"]);
    kubectl_ok(url, &["create", "configmap", "y", "-n", "quick"]);

    // The immortal namespaces stay.
    let err = kubectl_err(url, &["delete", "namespace", "default"]);
    assert!(
        err.contains("namespaces \"default\" is forbidden: this namespace may not be deleted"),
        "{err}"
    );
}

/// However a namespace is created — `kubectl create namespace` (protobuf), a YAML
/// apply, a JSON create asking for no finalizer — it gets its name label and the
/// `kubernetes` finalizer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_namespace_gets_its_label_and_finalizer() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let (code, _) = call(
        &url,
        Method::POST,
        "/api/v1/namespaces",
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "posted"},
                "spec": {"finalizers": []}}),
    )
    .await;
    assert_eq!(code, StatusCode::CREATED);
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        kubectl_ok(&url, &["create", "namespace", "typed"]);
        let yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: applied\n";
        let yaml = write(dir.path(), "ns.yaml", yaml);
        kubectl_ok(&url, &["apply", "--validate=false", "-f", &yaml]);
        let json = r#"{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "created"}}"#;
        let json = write(dir.path(), "ns.json", json);
        kubectl_ok(&url, &["create", "--validate=false", "-f", &json]);
        for name in ["typed", "applied", "created", "posted"] {
            let ns = json_of(&url, &["get", "namespace", name]);
            assert_eq!(
                ns["metadata"]["labels"]["kubernetes.io/metadata.name"], name,
                "{ns}"
            );
            assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]), "{ns}");
            assert_eq!(ns["status"], json!({"phase": "Active"}), "{ns}");
        }
        // A finalizer name without a domain must be a standard one.
        let bad = r#"{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bad"}, "spec": {"finalizers": ["mine"]}}"#;
        let bad = write(dir.path(), "bad.json", bad);
        let err = kubectl_err(&url, &["create", "--validate=false", "-f", &bad]);
        assert!(
            err.contains("The Namespace \"bad\" is invalid: spec.finalizers: Invalid value: \"mine\": name is neither a standard finalizer name nor is it fully qualified"),
            "{err}"
        );
    })
    .await
    .expect("walk");
}

/// Without the namespace controller a deleted namespace stays `Terminating` with its
/// content until someone finalizes it, as `kubectl replace --raw …/finalize` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_controller_the_finalize_subresource_releases() {
    let server = crd_server::TestServer::builder()
        .controllers("*,-namespace")
        .start()
        .await
        .expect("server");
    let url = server.url();
    let base = url.clone();
    tokio::task::spawn_blocking(move || {
        kubectl_ok(&url, &["create", "namespace", "kept"]);
        kubectl_ok(&url, &["create", "configmap", "c", "-n", "kept"]);
        kubectl_ok(&url, &["delete", "namespace", "kept", "--wait=false"]);
        // Long enough for a running controller to have emptied it many times over.
        std::thread::sleep(Duration::from_millis(300));
        let ns = json_of(&url, &["get", "ns", "kept"]);
        assert_eq!(ns["status"], json!({"phase": "Terminating"}), "{ns}");
        kubectl_ok(&url, &["get", "configmap", "c", "-n", "kept"]);
        let err = kubectl_err(&url, &["create", "configmap", "d", "-n", "kept"]);
        assert!(err.contains("because it is being terminated"), "{err}");
    })
    .await
    .expect("walk");

    // The status endpoint keeps the phase in line with the deletion.
    let (code, status) = call(
        &base,
        Method::PATCH,
        "/api/v1/namespaces/kept/status",
        &json!({"status": {"phase": "Active"}}),
    )
    .await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{status}");
    assert_eq!(
        status["message"],
        "Namespace \"kept\" is invalid: status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"
    );

    let url = base.clone();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let mut ns = json_of(&url, &["get", "ns", "kept"]);
        // Only spec.finalizers changes through finalize: the phase sent is ignored.
        ns["status"] = json!({"phase": "Active"});
        ns["spec"]["finalizers"] = json!(["bad"]);
        let path = write(dir.path(), "bad.json", &ns.to_string());
        let finalize = "/api/v1/namespaces/kept/finalize";
        let err = kubectl_err(&url, &["replace", "--raw", finalize, "-f", &path]);
        assert!(
            err.contains("spec.finalizers[0]: Invalid value: \"bad\": name is neither a standard finalizer name nor is it fully qualified"),
            "{err}"
        );
        ns["spec"]["finalizers"] = json!([]);
        let path = write(dir.path(), "finalize.json", &ns.to_string());
        let answer: Value =
            serde_json::from_str(&kubectl_ok(&url, &["replace", "--raw", finalize, "-f", &path]))
                .expect("the namespace");
        assert_eq!(answer["spec"]["finalizers"], json!([]));
        assert_eq!(answer["status"]["phase"], "Terminating");
        assert!(gone(&url, &["get", "ns", "kept"]));
        // Its content stays behind, as it would in a cluster.
        kubectl_ok(&url, &["get", "configmap", "c", "-n", "kept"]);
    })
    .await
    .expect("walk");
}
