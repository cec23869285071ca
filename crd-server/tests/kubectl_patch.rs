//! Strategic merge patch with the real kubectl: `kubectl patch` (strategic by default
//! for built-in kinds), `kubectl apply` without `--server-side` (a three-way patch kept
//! in the last-applied annotation, computed from the OpenAPI patch extensions),
//! `kubectl edit`, `kubectl label`/`annotate`, list directives on ConfigMaps, Secrets,
//! Leases and Namespaces (and a namespace's status), the server's errors, and custom
//! resources refusing the media type as kube-apiserver does.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::{kubectl_err, kubectl_ok, write};

fn get(url: &str, args: &[&str]) -> Value {
    let mut all = vec!["get"];
    all.extend(args);
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strategic_merge_patch_with_kubectl() {
    // The patched Secret names owners that never existed: a garbage collector would
    // (rightly) collect it under the test.
    let server = crd_server::TestServer::builder()
        .controllers("*,-garbagecollector")
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        patch_and_label(&url);
        client_side_apply(&url, dir.path());
        list_directives(&url, dir.path());
        namespaces(&url);
        edit(&url, dir.path());
        errors(&url);
        custom_resources_refuse_it(&url, dir.path());
    })
    .await
    .expect("kubectl");
}

fn patch_and_label(url: &str) {
    kubectl_ok(
        url,
        &[
            "create",
            "configmap",
            "c1",
            "--from-literal=a=1",
            "--from-literal=b=2",
        ],
    );
    let out = kubectl_ok(
        url,
        &["patch", "cm", "c1", "-p", r#"{"data":{"b":null,"c":"3"}}"#],
    );
    assert_eq!(out.trim(), "configmap/c1 patched");
    assert_eq!(get(url, &["cm", "c1"])["data"], json!({"a": "1", "c": "3"}));

    assert_eq!(
        kubectl_ok(url, &["label", "cm", "c1", "env=prod", "tier=web"]).trim(),
        "configmap/c1 labeled"
    );
    assert_eq!(
        kubectl_ok(url, &["annotate", "cm", "c1", "note=hi"]).trim(),
        "configmap/c1 annotated"
    );
    let meta = &get(url, &["cm", "c1"])["metadata"];
    assert_eq!(meta["labels"], json!({"env": "prod", "tier": "web"}));
    assert_eq!(meta["annotations"], json!({"note": "hi"}));
    kubectl_ok(url, &["label", "cm", "c1", "env-"]);
    kubectl_ok(url, &["annotate", "cm", "c1", "note-"]);
    let meta = &get(url, &["cm", "c1"])["metadata"];
    assert_eq!(meta["labels"], json!({"tier": "web"}));
    assert!(
        meta["annotations"].as_object().is_none_or(|a| a.is_empty()),
        "{meta}"
    );
}

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

fn client_side_apply(url: &str, dir: &Path) {
    let first = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels: {app: one, tier: a}\ndata:\n  a: \"1\"\n  b: \"2\"\n";
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "cm1.yaml", first)]);
    assert_eq!(out.trim(), "configmap/applied created");
    // Another writer's key survives the apply: the patch removes only what the file did.
    kubectl_ok(
        url,
        &["patch", "cm", "applied", "-p", r#"{"data":{"other":"o"}}"#],
    );
    let second = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels: {app: two}\ndata:\n  a: \"1\"\n  d: \"4\"\n";
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "cm2.yaml", second)]);
    assert_eq!(out.trim(), "configmap/applied configured");
    let cm = get(url, &["cm", "applied"]);
    assert_eq!(cm["data"], json!({"a": "1", "d": "4", "other": "o"}));
    assert_eq!(cm["metadata"]["labels"], json!({"app": "two"}));
    let last: Value = serde_json::from_str(
        cm["metadata"]["annotations"][LAST_APPLIED]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["data"], json!({"a": "1", "d": "4"}));
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "cm3.yaml", second)]);
    assert_eq!(out.trim(), "configmap/applied unchanged");
    // kubectl apply asks for strict field validation: an unknown field fails the patch.
    let bogus = format!("{second}bogus: 1\n");
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "cm4.yaml", &bogus)]);
    assert!(
        err.starts_with(
            "The request is invalid: patch: Invalid value: \"map[bogus:1 metadata:map[annotations:map[kubectl.kubernetes.io/last-applied-configuration:"
        ) && err.trim_end().ends_with("]]]\": strict decoding error: unknown field \"bogus\""),
        "{err}"
    );

    // A Lease, applied twice: its spec merges, a removed field goes.
    let lease = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l1\nspec:\n  holderIdentity: a\n  leaseDurationSeconds: 10\n";
    kubectl_ok(url, &["apply", "-f", &write(dir, "lease1.yaml", lease)]);
    let lease2 = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l1\nspec:\n  holderIdentity: b\n";
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "lease2.yaml", lease2)]);
    assert_eq!(out.trim(), "lease.coordination.k8s.io/l1 configured");
    assert_eq!(
        get(url, &["lease", "l1"])["spec"],
        json!({"holderIdentity": "b"})
    );
    kubectl_ok(
        url,
        &[
            "patch",
            "lease",
            "l1",
            "--type",
            "strategic",
            "-p",
            r#"{"spec":{"leaseTransitions":2}}"#,
        ],
    );
    assert_eq!(
        get(url, &["lease", "l1"])["spec"],
        json!({"holderIdentity": "b", "leaseTransitions": 2})
    );
}

fn list_directives(url: &str, dir: &Path) {
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s1\n  annotations: {a: b}\n  finalizers: [example.com/one, example.com/two]\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: c1, uid: u1}\n  - {apiVersion: v1, kind: ConfigMap, name: c2, uid: u2}\nstringData: {k: v}\n";
    kubectl_ok(url, &["create", "-f", &write(dir, "secret.yaml", secret)]);
    // `$patch: delete` in a list merged by key, and in a map.
    kubectl_ok(
        url,
        &[
            "patch",
            "secret",
            "s1",
            "--type",
            "strategic",
            "-p",
            r#"{"metadata":{"ownerReferences":[{"uid":"u1","$patch":"delete"},{"uid":"u2","blockOwnerDeletion":true}],"annotations":{"$patch":"delete"}}}"#,
        ],
    );
    let meta = get(url, &["secret", "s1"])["metadata"].clone();
    assert_eq!(
        meta["ownerReferences"],
        json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "c2", "uid": "u2", "blockOwnerDeletion": true}])
    );
    assert!(
        meta["annotations"].as_object().is_none_or(|a| a.is_empty()),
        "{meta}"
    );
    // Finalizers merge as a set; `$deleteFromPrimitiveList` removes one.
    kubectl_ok(
        url,
        &[
            "patch",
            "secret",
            "s1",
            "-p",
            r#"{"metadata":{"finalizers":["example.com/three"],"$deleteFromPrimitiveList/finalizers":["example.com/one"]}}"#,
        ],
    );
    assert_eq!(
        get(url, &["secret", "s1"])["metadata"]["finalizers"],
        json!(["example.com/three", "example.com/two"])
    );
    // `$patch: replace` makes the list exactly the patch's.
    kubectl_ok(
        url,
        &[
            "patch",
            "secret",
            "s1",
            "-p",
            r#"{"metadata":{"finalizers":null,"ownerReferences":[{"$patch":"replace"}]}}"#,
        ],
    );
    let meta = get(url, &["secret", "s1"])["metadata"].clone();
    assert!(meta.get("finalizers").is_none(), "{meta}");
    assert!(
        meta["ownerReferences"]
            .as_array()
            .is_none_or(|o| o.is_empty()),
        "{meta}"
    );
}

fn namespaces(url: &str) {
    kubectl_ok(url, &["create", "namespace", "n1"]);
    let out = kubectl_ok(
        url,
        &[
            "patch",
            "ns",
            "n1",
            "-p",
            r#"{"metadata":{"labels":{"team":"a"}}}"#,
        ],
    );
    assert_eq!(out.trim(), "namespace/n1 patched");
    let labels = get(url, &["ns", "n1"])["metadata"]["labels"].clone();
    assert_eq!(
        labels,
        json!({"kubernetes.io/metadata.name": "n1", "team": "a"})
    );
    // The status subresource: conditions merge by type.
    for (t, s) in [("A", "True"), ("B", "False"), ("A", "False")] {
        let patch = json!({"status": {"conditions": [{"type": t, "status": s}]}}).to_string();
        kubectl_ok(
            url,
            &["patch", "ns", "n1", "--subresource=status", "-p", &patch],
        );
    }
    let status = get(url, &["ns", "n1"])["status"].clone();
    assert_eq!(
        status,
        json!({"phase": "Active", "conditions": [{"type": "B", "status": "False"}, {"type": "A", "status": "False"}]})
    );
}

/// `kubectl edit` with an editor that changes one value in place.
fn edit(url: &str, dir: &Path) {
    let editor = write(
        dir,
        "editor.sh",
        "#!/bin/sh\nsed -i 's/^  d: \"4\"$/  d: \"5\"/' \"$1\"\n",
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("kubectl")
        .args(["-s", url, "edit", "cm", "applied"])
        .env("KUBECONFIG", home.path().join("config"))
        .env("HOME", home.path())
        .env("KUBE_EDITOR", &editor)
        .stdin(Stdio::null())
        .output()
        .expect("kubectl edit");
    assert!(
        out.status.success(),
        "kubectl edit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "configmap/applied edited"
    );
    assert_eq!(get(url, &["cm", "applied"])["data"]["d"], "5");
}

fn errors(url: &str) {
    let err = kubectl_err(
        url,
        &[
            "patch",
            "cm",
            "c1",
            "--type",
            "strategic",
            "-p",
            r#"{"data":{"$patch":"bogus"}}"#,
        ],
    );
    assert_eq!(
        err.trim(),
        "Error from server: unknown patch type: bogus in map: map[$patch:bogus]"
    );
    let err = kubectl_err(
        url,
        &[
            "patch",
            "secret",
            "s1",
            "-p",
            r#"{"metadata":{"$setElementOrder":[]}}"#,
        ],
    );
    assert_eq!(
        err.trim(),
        "Error from server (BadRequest): invalid patch format of setElementOrder list"
    );
    kubectl_ok(
        url,
        &[
            "patch",
            "secret",
            "s1",
            "-p",
            r#"{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"c3","uid":"u3"}]}}"#,
        ],
    );
    let err = kubectl_err(
        url,
        &[
            "patch",
            "secret",
            "s1",
            "-p",
            r#"{"metadata":{"ownerReferences":[{"name":"x"}]}}"#,
        ],
    );
    assert_eq!(
        err.trim(),
        "Error from server: map: map[name:x] does not contain declared merge key: uid"
    );
    let err = kubectl_err(
        url,
        &[
            "patch",
            "cm",
            "c1",
            "-p",
            r#"{"metadata":{"resourceVersion":"1"},"data":{"x":"y"}}"#,
        ],
    );
    assert!(
        err.contains(
            "Error from server (Conflict): Operation cannot be fulfilled on configmaps \"c1\""
        ),
        "{err}"
    );
    // Unknown fields: a warning by default, an error about the patch when strict.
    let out = support::kubectl(url, &["patch", "cm", "c1", "-p", r#"{"bogus":1}"#]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Warning: unknown field \"bogus\""));
}

fn custom_resources_refuse_it(url: &str, dir: &Path) {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, singular: widget, kind: Widget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size: {type: integer}\n";
    kubectl_ok(url, &["apply", "-f", &write(dir, "crd.yaml", crd)]);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/widgets.example.com",
        ],
    );
    let widget =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 1}\n";
    kubectl_ok(url, &["apply", "-f", &write(dir, "w.yaml", widget)]);
    let err = kubectl_err(
        url,
        &["patch", "widget", "w1", "-p", r#"{"spec":{"size":2}}"#],
    );
    assert_eq!(
        err.trim(),
        "error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: \
         the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
    // Client-side apply of a custom resource uses a merge patch, which works.
    let changed = widget.replace("size: 1", "size: 3");
    kubectl_ok(url, &["apply", "-f", &write(dir, "w2.yaml", &changed)]);
    assert_eq!(get(url, &["widget", "w1"])["spec"]["size"], 3);
}
