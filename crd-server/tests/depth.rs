//! Objects nested as deep as kube-apiserver reads them (10,000 levels of JSON): created
//! and read back with the real kubectl, and one level more refused with the server's
//! decode error. The test thread keeps its 2 MiB stack: the server's workers size
//! their own, and the test walks deep values only through `crd_runtime::depth`.

mod support;

use crd_runtime::depth::{MAX_DEPTH, depth_of, drop_value, from_json_slice};
use serde_json::Value;
use support::{kubectl_ok, test_crd, write};

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
        .thread_stack_size(crd_runtime::depth::stack_bytes(MAX_DEPTH))
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
