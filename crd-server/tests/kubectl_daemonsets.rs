//! DaemonSets that run, with the real kubectl over simulated nodes: `kubectl apply` of a
//! DaemonSet puts one Pod on each of the two `--nodes` (bound by the scheduler through
//! the node affinity the controller sets, with the daemon tolerations) and `kubectl
//! rollout status daemonset/agent` succeeds; a node created later with kwok's
//! annotation gets its Pod; `kubectl set image` rolls every node to revision 2,
//! `kubectl rollout history` lists both revisions and `kubectl rollout undo` goes back;
//! a `nodeSelector` set runs only where the label is, and its Pod goes when the label
//! does. kube::Client reads the DaemonSet's status.

mod support;

use std::time::Duration;

use crd_server::TestServer;
use k8s_openapi::api::apps::v1::DaemonSet;
use kube::api::Api;
use serde_json::Value;
use support::{kubectl, kubectl_ok, write};

const AGENT: &str = r#"
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: fluentd:v1
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ssd-only
spec:
  selector:
    matchLabels:
      app: ssd-only
  template:
    metadata:
      labels:
        app: ssd-only
    spec:
      nodeSelector:
        disk: ssd
      containers:
      - name: c
        image: busybox
"#;

const NODE: &str = r#"
apiVersion: v1
kind: Node
metadata:
  name: late-node
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    disk: ssd
    kubernetes.io/hostname: late-node
"#;

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).expect("kubectl printed JSON")
}

/// Polls `kubectl get ... -o json` until `done` holds (bounded: 30 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", "json"]);
    for _ in 0..300 {
        let out = kubectl(url, &full);
        if out.status.success() {
            let v = json_of(&String::from_utf8_lossy(&out.stdout));
            if done(&v) {
                return v;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

/// `node name -> image` of the running Pods of `app`.
fn placement(list: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
        .map(|p| {
            (
                p["spec"]["nodeName"].as_str().unwrap_or("").to_string(),
                p["spec"]["containers"][0]["image"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn rollout_status(url: &str) -> String {
    kubectl_ok(
        url,
        &["rollout", "status", "daemonset/agent", "--timeout=60s"],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn daemonset_runs_everywhere_rolls_and_follows_nodes() {
    let server = TestServer::builder()
        .workloads()
        .nodes(2)
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "ds.yaml", AGENT)]);
    let out = rollout_status(url);
    assert!(
        out.contains("daemon set \"agent\" successfully rolled out"),
        "{out}"
    );
    let pods = json_of(&kubectl_ok(
        url,
        &["get", "pods", "-l", "app=agent", "-o", "json"],
    ));
    assert_eq!(
        placement(&pods),
        [
            ("kwok-node-0".to_string(), "fluentd:v1".to_string()),
            ("kwok-node-1".to_string(), "fluentd:v1".to_string())
        ]
    );
    let p = &pods["items"][0];
    assert_eq!(p["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
    let field = &p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        ["nodeSelectorTerms"][0]["matchFields"][0];
    assert_eq!(field["key"], "metadata.name");
    assert_eq!(field["values"][0], p["spec"]["nodeName"]);
    let tolerations = p["spec"]["tolerations"].to_string();
    assert!(
        tolerations.contains("node.kubernetes.io/unreachable"),
        "{tolerations}"
    );
    // Nothing carries the ssd label yet.
    let none = json_of(&kubectl_ok(
        url,
        &["get", "pods", "-l", "app=ssd-only", "-o", "json"],
    ));
    assert_eq!(placement(&none), []);

    // kube::Client reads the status the controller wrote.
    let uri: http::Uri = url.parse().unwrap();
    let client = kube::Client::try_from(kube::Config::new(uri)).expect("client");
    let sets: Api<DaemonSet> = Api::namespaced(client, "default");
    let status = sets.get("agent").await.unwrap().status.unwrap();
    assert_eq!(status.desired_number_scheduled, 2);
    assert_eq!(status.current_number_scheduled, 2);
    assert_eq!(status.number_ready, 2);
    assert_eq!(status.updated_number_scheduled, Some(2));
    assert_eq!(status.number_available, Some(2));
    assert_eq!(status.number_misscheduled, 0);
    assert_eq!(status.observed_generation, Some(1));

    // A node created later gets its Pods (both sets: it has the label).
    kubectl_ok(
        url,
        &["create", "-f", &write(dir.path(), "node.yaml", NODE)],
    );
    eventually(
        url,
        &["get", "pods", "-l", "app=agent"],
        "a pod on late-node",
        |v| {
            placement(v).len() == 3
                && v["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|p| p["status"]["phase"] == "Running")
        },
    )
    .await;
    let ssd = eventually(
        url,
        &["get", "pods", "-l", "app=ssd-only"],
        "ssd pod",
        |v| placement(v).len() == 1,
    )
    .await;
    assert_eq!(placement(&ssd)[0].0, "late-node");
    rollout_status(url);

    // A new template rolls node by node.
    kubectl_ok(
        url,
        &["set", "image", "daemonset/agent", "agent=fluentd:v2"],
    );
    let out = rollout_status(url);
    assert!(out.contains("successfully rolled out"), "{out}");
    let pods = eventually(
        url,
        &["get", "pods", "-l", "app=agent"],
        "v2 everywhere",
        |v| {
            let p = placement(v);
            p.len() == 3 && p.iter().all(|(_, image)| image == "fluentd:v2")
        },
    )
    .await;
    assert_eq!(placement(&pods).len(), 3);
    let history = kubectl_ok(url, &["rollout", "history", "daemonset/agent"]);
    let rows: Vec<&str> = history
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(rows.len(), 2, "{history}");
    let out = kubectl_ok(url, &["rollout", "undo", "daemonset/agent"]);
    assert_eq!(out.trim(), "daemonset.apps/agent rolled back");
    rollout_status(url);
    eventually(url, &["get", "pods", "-l", "app=agent"], "v1 again", |v| {
        let p = placement(v);
        p.len() == 3 && p.iter().all(|(_, image)| image == "fluentd:v1")
    })
    .await;
    let history = kubectl_ok(url, &["rollout", "history", "daemonset/agent"]);
    let rows: Vec<&str> = history
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(
        rows[0].starts_with('2') && rows[1].starts_with('3'),
        "{history}"
    );

    let shown = kubectl_ok(
        url,
        &["rollout", "history", "daemonset/agent", "--revision=2"],
    );
    assert!(shown.contains("fluentd:v2"), "{shown}");
    // A restart is a new template: every Pod replaced.
    let out = kubectl_ok(url, &["rollout", "restart", "daemonset/agent"]);
    assert_eq!(out.trim(), "daemonset.apps/agent restarted");
    rollout_status(url);
    eventually(
        url,
        &["get", "pods", "-l", "app=agent"],
        "restarted pods",
        |v| {
            let items = v["items"].as_array().unwrap();
            items.len() == 3
                && items.iter().all(|p| {
                    p["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"].is_string()
                })
        },
    )
    .await;

    // The label goes: so does the ssd-only Pod.
    kubectl_ok(url, &["label", "node", "late-node", "disk-"]);
    eventually(
        url,
        &["get", "pods", "-l", "app=ssd-only"],
        "ssd pod gone",
        |v| placement(v).is_empty(),
    )
    .await;
    let ds = eventually(url, &["get", "daemonset", "ssd-only"], "no desired", |v| {
        v["status"]["desiredNumberScheduled"] == 0
    })
    .await;
    assert_eq!(ds["status"]["numberMisscheduled"], 0);
}
