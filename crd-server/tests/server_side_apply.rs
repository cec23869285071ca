//! Server-side apply with the real kubectl: `kubectl apply --server-side` creates and
//! merges by the schema (a list-map of ports keyed by name, a set of tags), two
//! managers own different fields, a third write conflicts (409 naming the manager and
//! the field) until `--force-conflicts`, fields a manager stops applying go, and
//! updates by other managers are tracked in `managedFields`.

mod support;

use serde_json::Value;
use support::{kubectl, kubectl_ok, test_crd, write};

/// Gateways with a list-map of ports keyed by name and a set of tags.
fn crd() -> String {
    test_crd::crd_yaml(
        "net.example.com",
        "Gateway",
        r#"
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              image: {type: string}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
        "#,
    )
}

fn gateway(spec: &str) -> String {
    format!(
        "apiVersion: net.example.com/v1\nkind: Gateway\nmetadata:\n  name: edge\n  namespace: default\nspec:\n{spec}"
    )
}

fn get(url: &str) -> Value {
    serde_json::from_str(&kubectl_ok(
        url,
        &[
            "get",
            "gateway",
            "edge",
            "-n",
            "default",
            "-o",
            "json",
            "--show-managed-fields",
        ],
    ))
    .unwrap()
}

fn managers(obj: &Value) -> Vec<(String, String)> {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["manager"].as_str().unwrap().to_string(),
                e["operation"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_server_side_apply() {
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
    kubectl_ok(url, &["apply", "-f", &write(dir, "crd.yaml", &crd())]);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=20s",
            "crd/gateways.net.example.com",
        ],
    );

    // Created by apply; the manager is kubectl's default for --server-side.
    let mine = gateway("  replicas: 2\n  tags: [a, b]\n  ports:\n  - {name: http, port: 80}\n");
    let out = kubectl_ok(
        url,
        &[
            "apply",
            "--server-side",
            "-f",
            &write(dir, "mine.yaml", &mine),
        ],
    );
    assert!(
        out.contains("gateway.net.example.com/edge serverside-applied"),
        "{out}"
    );
    let obj = get(url);
    assert_eq!(
        managers(&obj),
        [("kubectl".to_string(), "Apply".to_string())]
    );
    let fields = &obj["metadata"]["managedFields"][0]["fieldsV1"];
    assert_eq!(
        fields["f:spec"]["f:ports"]["k:{\"name\":\"http\"}"]["f:port"],
        serde_json::json!({})
    );

    // A second manager adds its own port and tag and the image: merged, not replaced.
    let theirs =
        gateway("  image: envoy:1\n  tags: [c]\n  ports:\n  - {name: metrics, port: 9090}\n");
    kubectl_ok(
        url,
        &[
            "apply",
            "--server-side",
            "--field-manager=ops",
            "-f",
            &write(dir, "theirs.yaml", &theirs),
        ],
    );
    let obj = get(url);
    assert_eq!(obj["spec"]["replicas"], 2);
    assert_eq!(obj["spec"]["image"], "envoy:1");
    assert_eq!(obj["spec"]["tags"], serde_json::json!(["a", "b", "c"]));
    let ports: Vec<&str> = obj["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(ports, ["http", "metrics"]);

    // ops setting replicas conflicts with kubectl's value...
    let grab = gateway(
        "  image: envoy:1\n  replicas: 5\n  tags: [c]\n  ports:\n  - {name: metrics, port: 9090}\n",
    );
    let grab_file = write(dir, "grab.yaml", &grab);
    let out = kubectl(
        url,
        &[
            "apply",
            "--server-side",
            "--field-manager=ops",
            "-f",
            &grab_file,
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas"),
        "{stderr}"
    );
    assert_eq!(get(url)["spec"]["replicas"], 2);
    // ...until it forces: then replicas is ops's alone.
    kubectl_ok(
        url,
        &[
            "apply",
            "--server-side",
            "--field-manager=ops",
            "--force-conflicts",
            "-f",
            &grab_file,
        ],
    );
    let obj = get(url);
    assert_eq!(obj["spec"]["replicas"], 5);
    let kubectl_fields = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "kubectl")
        .unwrap()["fieldsV1"]
        .clone();
    assert!(
        kubectl_fields["f:spec"].get("f:replicas").is_none(),
        "{kubectl_fields}"
    );

    // kubectl stops applying tag b and its port: both go; ops's stay.
    let fewer = gateway("  tags: [a]\n");
    kubectl_ok(
        url,
        &[
            "apply",
            "--server-side",
            "-f",
            &write(dir, "fewer.yaml", &fewer),
        ],
    );
    let obj = get(url);
    assert_eq!(obj["spec"]["tags"], serde_json::json!(["a", "c"]));
    let ports: Vec<&str> = obj["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(ports, ["metrics"]);

    // A merge patch is tracked as an Update by kubectl-patch, and then conflicts.
    kubectl_ok(
        url,
        &[
            "patch",
            "gateway",
            "edge",
            "-n",
            "default",
            "--type=merge",
            "-p",
            "{\"spec\":{\"image\":\"envoy:2\"}}",
        ],
    );
    let obj = get(url);
    assert!(
        managers(&obj).contains(&("kubectl-patch".to_string(), "Update".to_string())),
        "{:?}",
        managers(&obj)
    );
    let out = kubectl(
        url,
        &[
            "apply",
            "--server-side",
            "--field-manager=ops",
            "-f",
            &grab_file,
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("conflict with \"kubectl-patch\" using net.example.com/v1 at "),
        "{stderr}"
    );
    assert!(stderr.contains(".spec.image"), "{stderr}");
}
