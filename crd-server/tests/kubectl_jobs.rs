//! Jobs that run, with the real kubectl: `kubectl create job` and a Job of three
//! completions two at a time complete (`kubectl wait --for=condition=complete`), with
//! upstream's `SuccessCriteriaMet` / `Complete` conditions and counts; an Indexed Job
//! fills `completedIndexes` with index-named Pods. With the simulated kubelet off
//! (`*,-kwok,-scheduler`), the test plays it: a failed Pod past `backoffLimit` fails the Job
//! (`kubectl wait --for=condition=failed`, `BackoffLimitExceeded`), and a Job past its
//! `activeDeadlineSeconds` on the moved server clock fails with `DeadlineExceeded`.

mod support;

use std::time::Duration;

use crd_server::TestServer;
use serde_json::Value;
use support::{kubectl, kubectl_ok, write};

fn json(out: &str) -> Value {
    serde_json::from_str(out).expect("kubectl printed JSON")
}

fn conditions(job: &Value) -> Vec<(String, String, String)> {
    job["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["type"].as_str().unwrap_or("").to_string(),
                c["status"].as_str().unwrap_or("").to_string(),
                c["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

const JOBS: &str = r#"
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl:5.34
---
apiVersion: batch/v1
kind: Job
metadata:
  name: shards
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: shard
        image: busybox
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn jobs_complete() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "jobs.yaml", JOBS)]);
    let out = kubectl_ok(url, &["create", "job", "once", "--image=busybox"]);
    assert_eq!(out.trim(), "job.batch/once created");
    let done = kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=complete",
            "job/pi",
            "job/shards",
            "job/once",
            "--timeout=30s",
        ],
    );
    assert_eq!(done.matches("condition met").count(), 3, "{done}");

    let pi = json(&kubectl_ok(url, &["get", "job", "pi", "-o", "json"]));
    assert_eq!(pi["status"]["succeeded"], 3);
    assert!(pi["status"].get("active").is_none(), "{}", pi["status"]);
    assert_eq!(pi["status"]["ready"], 0);
    assert!(pi["status"]["startTime"].is_string() && pi["status"]["completionTime"].is_string());
    assert_eq!(
        conditions(&pi),
        [
            (
                "SuccessCriteriaMet".into(),
                "True".into(),
                "CompletionsReached".into()
            ),
            (
                "Complete".into(),
                "True".into(),
                "CompletionsReached".into()
            ),
        ]
    );
    assert_eq!(
        pi["status"]["conditions"][1]["message"],
        "Reached expected number of succeeded pods"
    );
    let table = kubectl_ok(url, &["get", "jobs"]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("pi ") && l.contains("Complete") && l.contains("3/3")),
        "{table}"
    );

    let shards = json(&kubectl_ok(url, &["get", "job", "shards", "-o", "json"]));
    assert_eq!(shards["status"]["completedIndexes"], "0-2");
    let pods = json(&kubectl_ok(
        url,
        &["get", "pods", "-l", "job-name=shards", "-o", "json"],
    ));
    let mut hosts: Vec<String> = pods["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let index = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
                .as_str()
                .unwrap();
            assert_eq!(
                p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"],
                index
            );
            assert_eq!(p["status"]["phase"], "Succeeded");
            p["spec"]["hostname"].as_str().unwrap().to_string()
        })
        .collect();
    hosts.sort();
    assert_eq!(hosts, ["shards-0", "shards-1", "shards-2"]);
    let events = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=pi",
        ],
    );
    assert!(
        events.contains("SuccessfulCreate") && events.contains("Completed"),
        "{events}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn jobs_fail_past_their_backoff_limit_or_deadline() {
    // The test plays the kubelet: nothing binds or runs the Pods.
    let server = TestServer::builder()
        .controllers("*,-kwok,-scheduler")
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    kubectl_ok(url, &["create", "job", "flaky", "--image=busybox"]);
    kubectl_ok(
        url,
        &[
            "patch",
            "job",
            "flaky",
            "--type=merge",
            "-p",
            r#"{"spec":{"backoffLimit":0}}"#,
        ],
    );
    let mut pod = String::new();
    for _ in 0..300 {
        let out = kubectl(url, &["get", "pods", "-l", "job-name=flaky", "-o", "name"]);
        pod = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !pod.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(pod.starts_with("pod/flaky-"), "{pod}");
    kubectl_ok(
        url,
        &[
            "patch",
            &pod,
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"phase":"Failed"}}"#,
        ],
    );
    let out = kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=failed",
            "job/flaky",
            "--timeout=30s",
        ],
    );
    assert!(out.contains("condition met"), "{out}");
    let job = json(&kubectl_ok(url, &["get", "job", "flaky", "-o", "json"]));
    assert_eq!(job["status"]["failed"], 1);
    assert_eq!(
        conditions(&job),
        [
            (
                "FailureTarget".into(),
                "True".into(),
                "BackoffLimitExceeded".into()
            ),
            (
                "Failed".into(),
                "True".into(),
                "BackoffLimitExceeded".into()
            ),
        ]
    );
    assert_eq!(
        job["status"]["conditions"][1]["message"],
        "Job has reached the specified backoff limit"
    );

    // A deadline passes on the server's clock; the running Pod is deleted.
    kubectl_ok(url, &["create", "job", "slow", "--image=busybox"]);
    kubectl_ok(
        url,
        &[
            "patch",
            "job",
            "slow",
            "--type=merge",
            "-p",
            r#"{"spec":{"activeDeadlineSeconds":60}}"#,
        ],
    );
    for _ in 0..300 {
        let job = json(&kubectl_ok(url, &["get", "job", "slow", "-o", "json"]));
        if job["status"]["active"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.clock().advance(Duration::from_secs(61));
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=failed",
            "job/slow",
            "--timeout=30s",
        ],
    );
    let job = json(&kubectl_ok(url, &["get", "job", "slow", "-o", "json"]));
    assert_eq!(job["status"]["conditions"][1]["reason"], "DeadlineExceeded");
    assert_eq!(
        job["status"]["conditions"][1]["message"],
        "Job was active longer than specified deadline"
    );
}
