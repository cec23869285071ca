//! Objects nested as deep as kube-apiserver reads them (10,000 levels of JSON): created
//! and read back with the real kubectl, and one level more refused with the server's
//! decode error. The test thread keeps its 2 MiB stack: the server's workers size
//! their own, and the test walks deep values only through `crd_runtime::__private::depth`.

mod support;

use crd_runtime::__private::depth::{MAX_DEPTH, depth_of, drop_value, from_json_slice};
use serde_json::Value;
use support::{kubectl_err, kubectl_ok, test_crd, write};

/// A `Box` whose spec holds `levels` nested arrays around a string.
fn deep_box(name: &str, levels: usize) -> String {
    format!(
        "{{\"apiVersion\":\"data.example.com/v1\",\"kind\":\"Box\",\"metadata\":{{\"name\":\"{name}\",\
         \"namespace\":\"default\"}},\"spec\":{{\"deep\":{}\"x\"{}}}}}",
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

#[test]
fn objects_nest_to_the_servers_limit_and_no_further() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(crd_runtime::__private::depth::stack_bytes(MAX_DEPTH))
        .enable_all()
        .build()
        .unwrap();
    let server = runtime
        .block_on(crd_server::TestServer::builder().start())
        .expect("server");
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let crd = test_crd::crd_yaml(
        "data.example.com",
        "Box",
        "
            type: object
            properties:
              spec:
                type: object
                x-kubernetes-preserve-unknown-fields: true
        ",
    );
    kubectl_ok(&url, &["apply", "-f", &write(dir.path(), "crd.yaml", &crd)]);
    kubectl_ok(
        &url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/boxs.data.example.com",
        ],
    );
    // The object and `spec` take two levels, the arrays the rest.
    let levels = MAX_DEPTH - 2;
    let file = write(dir.path(), "deep.json", &deep_box("deep", levels));
    kubectl_ok(&url, &["create", "-f", &file]);
    let got = kubectl_ok(&url, &["get", "box", "deep", "-n", "default", "-o", "json"]);
    let got: Value = from_json_slice(got.as_bytes()).expect("kubectl's JSON");
    assert_eq!(depth_of(&got, usize::MAX), MAX_DEPTH);
    drop_value(got);

    // One level more: refused by the server (kubectl would refuse it itself first).
    let body = deep_box("deeper", levels + 1);
    let out = std::process::Command::new("curl")
        .args([
            "-sS",
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            "@-",
        ])
        .arg(format!(
            "{url}/apis/data.example.com/v1/namespaces/default/boxs"
        ))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(body.as_bytes())?;
            child.wait_with_output()
        })
        .expect("curl");
    let status: Value = serde_json::from_slice(&out.stdout).expect("a Status");
    assert_eq!(status["code"], 400, "{status}");
    assert_eq!(status["reason"], "BadRequest");
    assert_eq!(
        status["message"],
        "the object provided is unrecognized (must be of type Box): invalid character '[' \
         exceeded max depth ({\"apiVersion\":\"data.example.co ...)"
    );
    drop(server);
    runtime.shutdown_background();
}

/// A CRD `deeps.data.example.com` whose schema nests `levels` objects: the root,
/// `spec`, then `a` fields around a string of at most 3 bytes.
fn deep_crd(levels: usize) -> String {
    let chain = levels - 2;
    format!(
        "{{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\
         \"metadata\":{{\"name\":\"deeps.data.example.com\"}},\"spec\":{{\"group\":\"data.example.com\",\
         \"scope\":\"Namespaced\",\"names\":{{\"plural\":\"deeps\",\"singular\":\"deep\",\
         \"kind\":\"Deep\",\"listKind\":\"DeepList\"}},\"versions\":[{{\"name\":\"v1\",\"served\":true,\
         \"storage\":true,\"schema\":{{\"openAPIV3Schema\":{{\"type\":\"object\",\"properties\":{{\
         \"spec\":{}{{\"type\":\"string\",\"maxLength\":3}}{}}}}}}}}}]}}}}",
        "{\"type\":\"object\",\"properties\":{\"a\":".repeat(chain),
        "}}".repeat(chain)
    )
}

/// A `Deep` whose spec nests `chain` `a` fields around `leaf`.
fn deep_object(name: &str, chain: usize, leaf: &str) -> String {
    format!(
        "{{\"apiVersion\":\"data.example.com/v1\",\"kind\":\"Deep\",\"metadata\":{{\"name\":\"{name}\",\
         \"namespace\":\"default\"}},\"spec\":{}\"{leaf}\"{}}}",
        "{\"a\":".repeat(chain),
        "}".repeat(chain)
    )
}

#[test]
fn schemas_nest_as_deep_as_a_crd_body_carries_them() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(crd_runtime::__private::depth::stack_bytes(MAX_DEPTH))
        .enable_all()
        .build()
        .unwrap();
    let server = runtime
        .block_on(crd_server::TestServer::builder().start())
        .expect("server");
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    // 4,990 schema levels: ~9,985 JSON levels of the CRD body, within its 10,000.
    let levels = 4_990;
    let crd = deep_crd(levels);
    let depth = crd_runtime::__private::depth::json_text_depth(crd.as_bytes()).unwrap();
    assert!((9_900..=MAX_DEPTH).contains(&depth), "{depth}");
    kubectl_ok(
        &url,
        &["create", "-f", &write(dir.path(), "crd.json", &crd)],
    );
    kubectl_ok(
        &url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/deeps.data.example.com",
        ],
    );
    let chain = levels - 2;
    let ok = write(dir.path(), "ok.json", &deep_object("ok", chain, "abc"));
    kubectl_ok(&url, &["create", "-f", &ok]);
    // The deepest field is validated: too long at the bottom, reported with its path.
    let bad = write(dir.path(), "bad.json", &deep_object("bad", chain, "abcd"));
    let err = kubectl_err(&url, &["create", "-f", &bad]);
    let path = format!("spec{}", ".a".repeat(chain));
    assert!(
        err.contains(&format!("{path}: Too long: may not be more than 3 bytes")),
        "{}",
        &err[err.len().saturating_sub(300)..]
    );
    // Everything that reads the stored CRD again copes with its depth: a patch, the
    // list, and the deletion, which waits for the cleanup controller to delete the
    // objects and release its finalizer (it once could not decode the CRD and never
    // did, issue 49).
    kubectl_ok(
        &url,
        &["label", "crd", "deeps.data.example.com", "tier=deep"],
    );
    let listed = kubectl_ok(&url, &["get", "crds", "-l", "tier=deep", "-o", "name"]);
    assert_eq!(
        listed.trim(),
        "customresourcedefinition.apiextensions.k8s.io/deeps.data.example.com"
    );
    kubectl_ok(
        &url,
        &["delete", "crd", "deeps.data.example.com", "--timeout=60s"],
    );
    let left = kubectl_ok(&url, &["get", "crds", "-o", "name"]);
    assert!(!left.contains("deeps.data.example.com"), "{left}");
    drop(server);
    runtime.shutdown_background();
}

/// A CRD `items.data.example.com` whose `spec` is `levels` arrays of arrays.
fn items_crd(levels: usize) -> String {
    format!(
        "{{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\
         \"metadata\":{{\"name\":\"items.data.example.com\"}},\"spec\":{{\"group\":\"data.example.com\",\
         \"scope\":\"Namespaced\",\"names\":{{\"plural\":\"items\",\"singular\":\"item\",\
         \"kind\":\"Item\",\"listKind\":\"ItemList\"}},\"versions\":[{{\"name\":\"v1\",\"served\":true,\
         \"storage\":true,\"schema\":{{\"openAPIV3Schema\":{{\"type\":\"object\",\"properties\":{{\
         \"spec\":{}{{\"type\":\"string\"}}{}}}}}}}}}]}}}}",
        "{\"type\":\"array\",\"items\":".repeat(levels),
        "}".repeat(levels)
    )
}

#[test]
fn the_deepest_schema_a_crd_body_carries_is_served_read_and_deleted() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(crd_runtime::__private::depth::stack_bytes(MAX_DEPTH))
        .enable_all()
        .build()
        .unwrap();
    let server = runtime
        .block_on(crd_server::TestServer::builder().start())
        .expect("server");
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    // 9,990 `items` levels: one JSON level each, the deepest schema a body holds.
    let crd = items_crd(9_990);
    assert!(crd_runtime::__private::depth::json_text_depth(crd.as_bytes()).unwrap() <= MAX_DEPTH);
    kubectl_ok(
        &url,
        &["create", "-f", &write(dir.path(), "crd.json", &crd)],
    );
    kubectl_ok(
        &url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/items.data.example.com",
        ],
    );
    // Read back as stored, byte for byte the schema that was sent.
    let out = std::process::Command::new("curl")
        .args(["-sS", "--fail"])
        .arg(format!(
            "{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/items.data.example.com"
        ))
        .output()
        .expect("curl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = from_json_slice(&out.stdout).expect("the server's JSON");
    let sent: Value = from_json_slice(crd.as_bytes()).unwrap();
    // Compared on a stack sized for the depth (Value's `==` recurses).
    let same = crd_runtime::__private::depth::with_stack_for(MAX_DEPTH, || {
        got["spec"]["versions"][0]["schema"] == sent["spec"]["versions"][0]["schema"]
    });
    assert!(same);
    drop_value(got);
    drop_value(sent);
    let bad = "{\"apiVersion\":\"data.example.com/v1\",\"kind\":\"Item\",\
               \"metadata\":{\"name\":\"x\",\"namespace\":\"default\"},\"spec\":{}}";
    let err = kubectl_err(&url, &["create", "-f", &write(dir.path(), "x.json", bad)]);
    assert!(
        err.contains("spec: Invalid value: \"object\": spec in body must be of type array"),
        "{err}"
    );
    kubectl_ok(
        &url,
        &["delete", "crd", "items.data.example.com", "--timeout=60s"],
    );
    drop(server);
    runtime.shutdown_background();
}
