//! Workloads that run, driven by the real kubectl against the binary's defaults (every
//! controller, one simulated node): `kubectl create deployment` then `kubectl rollout
//! status` succeeds with Pods Running and Ready on the kwok node, with IPs from its
//! podCIDR; `kubectl scale`, `kubectl set image` (a rolling update to revision 2),
//! `kubectl rollout history`, `undo`, `pause`, `resume` and `restart`; the node and its
//! Lease; and a Pod no node can hold stays Pending with kube-scheduler's condition and
//! event.

mod support;

use std::time::Duration;

use crd_server::TestServer;
use serde_json::Value;
use support::{kubectl, kubectl_ok};

async fn server(nodes: u32) -> TestServer {
    TestServer::builder()
        .workloads()
        .nodes(nodes)
        .start()
        .await
        .expect("server")
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).expect("kubectl printed JSON")
}

/// Polls `kubectl get ... -o json` until `done` holds (bounded: 30 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", "json"]);
    for _ in 0..300 {
        let out = kubectl(url, &full);
        if out.status.success() {
            let v = json(&String::from_utf8_lossy(&out.stdout));
            if done(&v) {
                return v;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn create_deployment_rolls_out_and_rolls_back() {
    let server = server(2).await;
    let url = server.url();
    let url = url.as_str();

    // The simulated nodes are Ready, with their podCIDRs and Leases.
    let nodes = eventually(url, &["get", "nodes"], "two Ready nodes", |v| {
        let items = v["items"].as_array().unwrap();
        items.len() == 2
            && items.iter().all(|n| {
                n["spec"]["podCIDR"].is_string()
                    && n["status"]["conditions"].as_array().is_some_and(|c| {
                        c.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    })
            })
    })
    .await;
    assert_eq!(nodes["items"][0]["metadata"]["name"], "kwok-node-0");
    assert_eq!(nodes["items"][0]["spec"]["podCIDR"], "10.244.0.0/24");
    assert_eq!(nodes["items"][1]["spec"]["podCIDR"], "10.244.1.0/24");
    let ready = kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Ready",
            "node/kwok-node-0",
            "--timeout=20s",
        ],
    );
    assert!(ready.contains("node/kwok-node-0 condition met"), "{ready}");
    let lease = eventually(
        url,
        &["get", "lease", "-n", "kube-node-lease", "kwok-node-1"],
        "the node's Lease",
        |_| true,
    )
    .await;
    assert_eq!(lease["spec"]["holderIdentity"], "kwok-node-1");

    let out = kubectl_ok(
        url,
        &[
            "create",
            "deployment",
            "web",
            "--image=nginx:1.27",
            "--replicas=2",
        ],
    );
    assert_eq!(out.trim(), "deployment.apps/web created");
    let status = kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    assert!(
        status.contains("deployment \"web\" successfully rolled out"),
        "{status}"
    );
    let d = json(&kubectl_ok(
        url,
        &["get", "deployment", "web", "-o", "json"],
    ));
    assert_eq!(d["status"]["readyReplicas"], 2);
    assert_eq!(d["status"]["availableReplicas"], 2);
    assert_eq!(d["status"]["updatedReplicas"], 2);
    assert_eq!(
        d["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    let reasons: Vec<(&str, &str)> = d["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["type"].as_str().unwrap(), c["reason"].as_str().unwrap()))
        .collect();
    assert!(
        reasons.contains(&("Available", "MinimumReplicasAvailable")),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("Progressing", "NewReplicaSetAvailable")),
        "{reasons:?}"
    );

    // Its ReplicaSet carries the pod-template-hash; its Pods run with IPs of their node.
    let rs = json(&kubectl_ok(
        url,
        &["get", "rs", "-l", "app=web", "-o", "json"],
    ));
    assert_eq!(rs["items"].as_array().unwrap().len(), 1);
    let hash = rs["items"][0]["metadata"]["labels"]["pod-template-hash"]
        .as_str()
        .expect("pod-template-hash")
        .to_string();
    assert_eq!(rs["items"][0]["metadata"]["name"], format!("web-{hash}"));
    let pods = json(&kubectl_ok(
        url,
        &["get", "pods", "-l", "app=web", "-o", "json"],
    ));
    let pods = pods["items"].as_array().unwrap().clone();
    assert_eq!(pods.len(), 2);
    for p in &pods {
        assert_eq!(p["status"]["phase"], "Running");
        let ip = p["status"]["podIP"].as_str().unwrap();
        let node = p["spec"]["nodeName"].as_str().unwrap();
        let prefix = if node == "kwok-node-0" {
            "10.244.0."
        } else {
            "10.244.1."
        };
        assert!(ip.starts_with(prefix), "{ip} on {node}");
        assert_eq!(p["status"]["containerStatuses"][0]["ready"], true);
    }
    // Spread over both nodes (least allocated first).
    assert_ne!(pods[0]["spec"]["nodeName"], pods[1]["spec"]["nodeName"]);
    let table = kubectl_ok(url, &["get", "pods", "-l", "app=web"]);
    assert!(
        table.contains("Running") && table.contains("1/1"),
        "{table}"
    );

    // Scale.
    kubectl_ok(url, &["scale", "deployment/web", "--replicas=3"]);
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    eventually(url, &["get", "pods", "-l", "app=web"], "3 pods", |v| {
        v["items"].as_array().unwrap().len() == 3
    })
    .await;

    // A new image: a rolling update to revision 2.
    kubectl_ok(url, &["set", "image", "deployment/web", "nginx=nginx:1.28"]);
    let status = kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    assert!(status.contains("successfully rolled out"), "{status}");
    eventually(
        url,
        &["get", "pods", "-l", "app=web"],
        "the old pods gone",
        |v| {
            let items = v["items"].as_array().unwrap();
            items.len() == 3
                && items
                    .iter()
                    .all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.28")
        },
    )
    .await;
    let history = kubectl_ok(url, &["rollout", "history", "deployment/web"]);
    assert!(
        history.contains("REVISION") && history.contains("1 ") && history.contains("2 "),
        "{history}"
    );
    let rev2 = kubectl_ok(
        url,
        &["rollout", "history", "deployment/web", "--revision=2"],
    );
    assert!(rev2.contains("nginx:1.28"), "{rev2}");

    // Undo: back to the first template, as revision 3.
    let undo = kubectl_ok(url, &["rollout", "undo", "deployment/web"]);
    assert!(undo.contains("rolled back"), "{undo}");
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    let d = json(&kubectl_ok(
        url,
        &["get", "deployment", "web", "-o", "json"],
    ));
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.27"
    );
    assert_eq!(
        d["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "3"
    );

    // Pause: a change waits; resume: it rolls out.
    kubectl_ok(url, &["rollout", "pause", "deployment/web"]);
    eventually(
        url,
        &["get", "deployment", "web"],
        "Progressing=DeploymentPaused",
        |d| {
            d["status"]["conditions"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|c| c["type"] == "Progressing" && c["reason"] == "DeploymentPaused")
            })
        },
    )
    .await;
    kubectl_ok(url, &["set", "image", "deployment/web", "nginx=nginx:1.29"]);
    let paused = kubectl(
        url,
        &["rollout", "status", "deployment/web", "--timeout=2s"],
    );
    assert!(!paused.status.success());
    kubectl_ok(url, &["rollout", "resume", "deployment/web"]);
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    // Restart: a new template (the restartedAt annotation), a new ReplicaSet.
    kubectl_ok(url, &["rollout", "restart", "deployment/web"]);
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    let d = json(&kubectl_ok(
        url,
        &["get", "deployment", "web", "-o", "json"],
    ));
    assert_eq!(
        d["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "5"
    );

    // Deleting the Deployment takes its ReplicaSets and Pods (the Pods through the
    // kubelet's end of their graceful deletion).
    kubectl_ok(
        url,
        &[
            "delete",
            "deployment",
            "web",
            "--wait=true",
            "--timeout=30s",
        ],
    );
    eventually(url, &["get", "pods"], "no pods left", |v| {
        v["items"].as_array().unwrap().is_empty()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pod_no_node_can_hold_stays_pending_with_the_schedulers_reason() {
    let server = server(1).await;
    let url = server.url();
    let url = url.as_str();
    let manifest = r#"{"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "huge", "namespace": "default"},
        "spec": {"nodeSelector": {"disk": "ssd"},
                 "containers": [{"name": "c", "image": "busybox",
                                 "resources": {"requests": {"cpu": "2k"}}}]}}"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pod.json");
    std::fs::write(&file, manifest).unwrap();
    kubectl_ok(url, &["create", "-f", file.to_str().unwrap()]);
    let pod = eventually(url, &["get", "pod", "huge"], "PodScheduled=False", |p| {
        p["status"]["conditions"].as_array().is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "PodScheduled" && c["status"] == "False")
        })
    })
    .await;
    let cond = &pod["status"]["conditions"][0];
    assert_eq!(cond["reason"], "Unschedulable");
    assert_eq!(
        cond["message"],
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. \
         preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    );
    assert_eq!(pod["status"]["phase"], "Pending");
    let events = eventually(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "reason=FailedScheduling",
        ],
        "the FailedScheduling event",
        |v| !v["items"].as_array().unwrap().is_empty(),
    )
    .await;
    assert_eq!(events["items"][0]["type"], "Warning");
    assert_eq!(events["items"][0]["involvedObject"]["name"], "huge");

    // Labelled as asked, the node still has too little CPU for it.
    kubectl_ok(url, &["label", "node", "kwok-node-0", "disk=ssd"]);
    eventually(url, &["get", "pod", "huge"], "Insufficient cpu", |p| {
        p["status"]["conditions"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("0/1 nodes are available: 1 Insufficient cpu."))
    })
    .await;
    // A Pod bound to the node directly (no scheduler) runs too.
    let direct = r#"{"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "direct", "namespace": "default"},
        "spec": {"nodeName": "kwok-node-0", "containers": [{"name": "c", "image": "busybox"}]}}"#;
    std::fs::write(&file, direct).unwrap();
    kubectl_ok(url, &["create", "-f", file.to_str().unwrap()]);
    let out = kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Ready",
            "pod/direct",
            "--timeout=20s",
        ],
    );
    assert!(out.contains("condition met"), "{out}");
    // Graceful deletion: kubectl's default waits for the kubelet to finish it.
    let out = kubectl_ok(url, &["delete", "pod", "direct", "--timeout=20s"]);
    assert!(out.contains("pod \"direct\" deleted"), "{out}");
}
