//! The ttl-after-finished and podgc controllers, driven by the real kubectl with the
//! server's clock moved by the test: a finished Job with `ttlSecondsAfterFinished` stays
//! until its TTL passes, then goes with its Pods; past `--terminated-pod-gc-threshold`
//! the oldest finished Pods are deleted; a Pod bound to a node that does not exist is
//! marked Failed with `DisruptionTarget` (`DeletionByPodGC`) and deleted once the node
//! has been gone for 40 seconds.

mod support;

use std::time::Duration;

use crd_server::TestServer;
use serde_json::Value;
use support::{json_of, kubectl, kubectl_ok, write};

/// Polls `kubectl get ARGS -o json` until `done` holds (bounded: 30 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", "json"]);
    for _ in 0..300 {
        let out = kubectl(url, &full);
        if out.status.success() {
            let v: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
            if done(&v) {
                return v;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

fn items(v: &Value) -> Vec<Value> {
    v["items"].as_array().cloned().unwrap_or_default()
}

const JOB: &str = "\
apiVersion: batch/v1
kind: Job
metadata:
  name: short
spec:
  ttlSecondsAfterFinished: 100
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: busybox}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_finished_job_goes_when_its_ttl_passes_on_the_server_clock() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "job.yaml", JOB)]);
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=complete",
            "job/short",
            "--timeout=30s",
        ],
    );
    // Before the TTL: still there, with its Pod (a second look after a moment).
    server.clock().advance(Duration::from_secs(50));
    tokio::time::sleep(Duration::from_millis(300)).await;
    kubectl_ok(url, &["get", "job", "short"]);
    assert_eq!(
        items(&json_of(url, &["get", "pods", "-l", "job-name=short"])).len(),
        1
    );

    server.clock().advance(Duration::from_secs(51));
    eventually(url, &["get", "jobs"], "the job gone", |v| {
        items(v).is_empty()
    })
    .await;
    eventually(
        url,
        &["get", "pods", "-l", "job-name=short"],
        "its pod gone",
        |v| items(v).is_empty(),
    )
    .await;
}

const GHOST: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: lost
  finalizers: [example.com/hold]
spec:
  nodeName: ghost
  containers:
  - {name: main, image: nginx}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn podgc_keeps_the_threshold_and_removes_pods_of_missing_nodes() {
    let clock = crd_server::Clock::new();
    let config = crd_server::Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        store: crd_server::StoreConfig::InMemory,
        workloads: crd_server::Workloads {
            terminated_pod_gc_threshold: 2,
            clock: clock.clone(),
            ..crd_server::Workloads::default()
        },
        ..crd_server::Config::default()
    };
    let server = crd_server::start(config).await.expect("server");
    let url = server.url();
    let url = url.as_str();

    // Four Jobs of one Pod each, one after another: only the newest two Pods stay.
    for name in ["j1", "j2", "j3", "j4"] {
        kubectl_ok(url, &["create", "job", name, "--image=busybox"]);
        kubectl_ok(
            url,
            &[
                "wait",
                "--for=condition=complete",
                &format!("job/{name}"),
                "--timeout=30s",
            ],
        );
    }
    let pods = eventually(url, &["get", "pods"], "two finished pods", |v| {
        items(v).len() == 2
    })
    .await;
    let mut owners: Vec<String> = items(&pods)
        .iter()
        .map(|p| {
            p["metadata"]["labels"]["job-name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    owners.sort();
    assert_eq!(owners, ["j3", "j4"]);
    // The Jobs stay complete.
    let jobs = json_of(url, &["get", "jobs"]);
    assert!(
        items(&jobs).iter().all(|j| j["status"]["succeeded"] == 1),
        "{jobs}"
    );

    // A Pod bound to a node that does not exist: after 40 s on the clock, Failed with
    // DisruptionTarget and deleted (held here by its finalizer to be read).
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "lost.yaml", GHOST)],
    );
    let mut lost = Value::Null;
    for _ in 0..100 {
        clock.advance(Duration::from_secs(41));
        tokio::time::sleep(Duration::from_millis(100)).await;
        lost = json_of(url, &["get", "pod", "lost"]);
        if lost["metadata"]["deletionTimestamp"].is_string() {
            break;
        }
    }
    assert!(lost["metadata"]["deletionTimestamp"].is_string(), "{lost}");
    assert_eq!(lost["status"]["phase"], "Failed");
    let cond = lost["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "DisruptionTarget")
        .cloned()
        .expect("DisruptionTarget");
    assert_eq!(cond["status"], "True");
    assert_eq!(cond["reason"], "DeletionByPodGC");
    assert_eq!(cond["message"], "PodGC: node no longer exists");
    kubectl_ok(
        url,
        &[
            "patch",
            "pod",
            "lost",
            "--type=json",
            "-p",
            r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
        ],
    );
    eventually(
        url,
        &["get", "pods", "--field-selector=metadata.name=lost"],
        "lost gone",
        |v| items(v).is_empty(),
    )
    .await;
    // The failed Pod counted as finished too while it was held: three over a threshold
    // of two, so j3's Pod (the oldest) went as well.
    let left = items(&json_of(url, &["get", "pods"]));
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["metadata"]["labels"]["job-name"], "j4");
}
