//! The disruption controller and the eviction subresource, driven by the real kubectl
//! and its raw requests: a PodDisruptionBudget's status follows its Pods
//! (`kubectl create pdb`, then scale), an eviction it does not allow is refused with
//! 429 and upstream's Status, and `kubectl drain` cordons the node and evicts its Pods
//! once the budget allows it.

mod support;

use std::time::Duration;

use crd_server::TestServer;
use serde_json::Value;
use support::{json_of, kubectl, kubectl_ok};

/// Polls `kubectl get ARGS -o json` until `done` holds (bounded: 30 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", "json"]);
    let mut last = String::new();
    for _ in 0..300 {
        let out = kubectl(url, &full);
        last = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.status.success() {
            let v: Value = serde_json::from_str(&last).unwrap();
            if done(&v) {
                return v;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}; last:\n{last}");
}

fn pods_on(url: &str, node: &str) -> Vec<Value> {
    json_of(
        url,
        &[
            "get",
            "pods",
            "-l",
            "app=web",
            "--field-selector",
            &format!("spec.nodeName={node}"),
        ],
    )["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn drain_waits_for_the_disruption_budget() {
    let server = TestServer::builder()
        .workloads()
        .nodes(2)
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    kubectl_ok(
        url,
        &[
            "create",
            "deployment",
            "web",
            "--image=nginx",
            "--replicas=2",
        ],
    );
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    let out = kubectl_ok(
        url,
        &[
            "create",
            "pdb",
            "web",
            "--selector=app=web",
            "--min-available=2",
        ],
    );
    assert_eq!(out.trim(), "poddisruptionbudget.policy/web created");

    let pdb = eventually(url, &["get", "pdb", "web"], "the budget's status", |v| {
        v["status"]["observedGeneration"] == v["metadata"]["generation"]
            && v["status"]["currentHealthy"] == 2
    })
    .await;
    let status = &pdb["status"];
    assert_eq!(status["desiredHealthy"], 2);
    assert_eq!(status["expectedPods"], 2);
    assert_eq!(status["disruptionsAllowed"], 0);
    let cond = &status["conditions"][0];
    assert_eq!(cond["type"], "DisruptionAllowed");
    assert_eq!(cond["status"], "False");
    assert_eq!(cond["reason"], "InsufficientPods");
    let table = kubectl_ok(url, &["get", "pdb", "web"]);
    assert!(
        table
            .lines()
            .nth(1)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()[..4]
            == ["web", "2", "N/A", "0"],
        "{table}"
    );

    // An eviction the budget does not allow (`kubectl create --raw` of an Eviction):
    // 429 with upstream's message.
    let victim = pods_on(url, "kwok-node-0");
    assert_eq!(victim.len(), 1);
    let victim = victim[0]["metadata"]["name"].as_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let eviction = format!(
        r#"{{"apiVersion":"policy/v1","kind":"Eviction","metadata":{{"name":"{victim}","namespace":"default"}}}}"#
    );
    let file = support::write(dir.path(), "eviction.json", &eviction);
    let path = format!("/api/v1/namespaces/default/pods/{victim}/eviction");
    let out = kubectl(
        url,
        &[
            "create",
            "--raw",
            &path,
            "-f",
            &file,
            "--request-timeout=10s",
            "-v=6",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("429"), "{stderr}");
    assert!(
        stderr.contains("Cannot evict pod as it would violate the pod's disruption budget."),
        "{stderr}"
    );

    // kubectl drain cordons the node, then keeps retrying the refused eviction.
    let out = kubectl(
        url,
        &[
            "drain",
            "kwok-node-0",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--timeout=3s",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Cannot evict pod as it would violate the pod's disruption budget."),
        "{stderr}"
    );
    let node = json_of(url, &["get", "node", "kwok-node-0"]);
    assert_eq!(node["spec"]["unschedulable"], true);
    assert_eq!(pods_on(url, "kwok-node-0").len(), 1, "nothing evicted yet");

    // A third replica (on the other node): one disruption allowed, the drain succeeds.
    kubectl_ok(url, &["scale", "deployment/web", "--replicas=3"]);
    eventually(url, &["get", "pdb", "web"], "one disruption allowed", |v| {
        v["status"]["disruptionsAllowed"] == 1
            && v["status"]["conditions"][0]["reason"] == "SufficientPods"
    })
    .await;
    let out = kubectl_ok(
        url,
        &[
            "drain",
            "kwok-node-0",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--timeout=60s",
        ],
    );
    assert!(out.contains(&format!("pod/{victim} evicted")), "{out}");
    assert!(out.contains("node/kwok-node-0 drained"), "{out}");
    assert!(pods_on(url, "kwok-node-0").is_empty());
    // The ReplicaSet replaced it on the node left; the budget is whole again.
    eventually(url, &["get", "pdb", "web"], "three healthy again", |v| {
        v["status"]["currentHealthy"] == 3 && v["status"]["disruptionsAllowed"] == 1
    })
    .await;
    assert_eq!(pods_on(url, "kwok-node-1").len(), 3);
}
