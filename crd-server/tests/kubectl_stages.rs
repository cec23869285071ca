//! kwok's Stage API with the real kubectl: a Stage applied with `kubectl apply` makes
//! the Pods it selects crash-loop (`kubectl get pods` shows `CrashLoopBackOff` and the
//! restarts), another fails a Job's Pod so the Job controller fails the Job
//! (`kubectl wait --for=condition=failed`, `BackoffLimitExceeded`), a delayed Stage
//! waits on the server's clock, an invalid Stage is refused with 422 naming the field,
//! and the binary's `--stages` replaces the default stages (a bad file exits with 2).

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crd_server::{StageSet, TestServer};
use serde_json::Value;
use support::{free_port, json_of, kubectl, kubectl_err, kubectl_ok, row, write};

/// Polls `check` every 100 ms, at most `tries` times.
async fn eventually(tries: u32, mut check: impl FnMut() -> bool) -> bool {
    for _ in 0..tries {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Waits until the kwok controller serves the Stage kind.
async fn stages_served(url: &str) {
    let served = eventually(100, || kubectl(url, &["get", "stages"]).status.success()).await;
    assert!(served, "kubectl get stages never worked");
}

const CRASH: &str = r#"
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-crash-loop
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchLabels:
      app: crash
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Running]
    - key: .status.containerStatuses.[].state.waiting.reason
      operator: DoesNotExist
  weight: 1
  next:
    event:
      type: Warning
      reason: BackOff
      message: 'Back-off restarting failed container {{ (index .spec.containers 0).name }} in pod {{ .metadata.name }}'
    statusTemplate: |
      {{- $now := Now }}
      conditions:
      - type: Ready
        status: "False"
        reason: ContainersNotReady
        message: {{ printf "containers with unready status: [%s]" (index .spec.containers 0).name | Quote }}
        lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
      - type: ContainersReady
        status: "False"
        reason: ContainersNotReady
        lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{- range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: ""
        ready: false
        started: false
        restartCount: 5
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
        state:
          waiting:
            reason: CrashLoopBackOff
            message: {{ printf "back-off 2m40s restarting failed container=%s pod=%s" .name $.metadata.name | Quote }}
      {{- end }}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stage_makes_pods_crash_loop() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    stages_served(url).await;
    let dir = tempfile::tempdir().unwrap();
    let out = kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "crash.yaml", CRASH)],
    );
    assert_eq!(out.trim(), "stage.kwok.x-k8s.io/pod-crash-loop created");
    let listed = kubectl_ok(url, &["get", "stages"]);
    assert!(row(&listed, "pod-crash-loop").len() >= 2, "{listed}");
    kubectl_ok(
        url,
        &["run", "crash", "--image=busybox", "--labels=app=crash"],
    );
    kubectl_ok(url, &["run", "fine", "--image=nginx"]);
    let crashed = eventually(100, || {
        let out = kubectl_ok(url, &["get", "pods"]);
        row(&out, "crash").get(2).map(String::as_str) == Some("CrashLoopBackOff")
            && row(&out, "fine").get(2).map(String::as_str) == Some("Running")
    })
    .await;
    let out = kubectl_ok(url, &["get", "pods"]);
    assert!(crashed, "{out}");
    let crash = row(&out, "crash");
    assert_eq!(crash[1], "0/1", "{out}");
    assert!(crash[3].starts_with('5'), "restarts: {out}");
    let pod = json_of(url, &["get", "pod", "crash"]);
    let status = &pod["status"]["containerStatuses"][0];
    assert_eq!(status["state"]["waiting"]["reason"], "CrashLoopBackOff");
    assert_eq!(
        status["state"]["waiting"]["message"],
        "back-off 2m40s restarting failed container=crash pod=crash"
    );
    assert_eq!(status["restartCount"], 5);
    assert_eq!(pod["status"]["phase"], "Running");
    // The Pod IP the default pod-ready stage gave it is kept.
    assert!(
        pod["status"]["podIP"]
            .as_str()
            .is_some_and(|ip| ip.starts_with("10.244."))
    );
    let events = kubectl_ok(
        url,
        &["get", "events", "--field-selector", "reason=BackOff"],
    );
    assert!(
        events.contains("Back-off restarting failed container crash in pod crash"),
        "{events}"
    );
    // Deleting the Stage stops it: a new labelled Pod runs.
    kubectl_ok(url, &["delete", "stage", "pod-crash-loop"]);
    kubectl_ok(
        url,
        &["run", "later", "--image=busybox", "--labels=app=crash"],
    );
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=Ready",
            "pod/later",
            "--timeout=20s",
        ],
    );
}

const FAILING_JOB: &str = r#"
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-fail
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchLabels:
      outcome: fail
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Running]
  weight: 1
  delay:
    durationMilliseconds: 10
  next:
    statusTemplate: |
      {{- $now := Now }}
      conditions:
      - type: Ready
        status: "False"
        reason: PodFailed
        lastProbeTime: null
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{- range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: ""
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: 1
            reason: Error
            startedAt: {{ StartTime | Quote }}
            finishedAt: {{ $now | Quote }}
      {{- end }}
      phase: Failed
---
apiVersion: batch/v1
kind: Job
metadata:
  name: doomed
spec:
  backoffLimit: 1
  template:
    metadata:
      labels:
        outcome: fail
      annotations:
        # kwok's switch: this Pod never takes the default pod-complete stage.
        pod-complete.stage.kwok.x-k8s.io/weight: "0"
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stage_fails_a_jobs_pods_and_the_job_fails() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    stages_served(url).await;
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "fail.yaml", FAILING_JOB)],
    );
    let out = kubectl_ok(
        url,
        &[
            "wait",
            "--for=condition=failed",
            "job/doomed",
            "--timeout=30s",
        ],
    );
    assert!(out.contains("condition met"), "{out}");
    let job = json_of(url, &["get", "job", "doomed"]);
    let failed: Vec<&Value> = job["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "Failed")
        .collect();
    assert_eq!(failed[0]["reason"], "BackoffLimitExceeded", "{job}");
    assert_eq!(job["status"]["failed"], 2, "{job}");
    let pods = json_of(url, &["get", "pods", "-l", "job-name=doomed"]);
    for pod in pods["items"].as_array().unwrap() {
        assert_eq!(pod["status"]["phase"], "Failed");
        let state = &pod["status"]["containerStatuses"][0]["state"]["terminated"];
        assert_eq!(state["exitCode"], 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_stages_are_refused_naming_the_field() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    stages_served(url).await;
    let dir = tempfile::tempdir().unwrap();
    let bad = r#"
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: bad
spec:
  resourceRef:
    kind: Pod
  selector:
    matchExpressions:
    - key: .status.phase
      operator: Equals
      values: [Running]
  next:
    statusTemplate: 'phase: {{ Env "HOME" }}'
"#;
    let err = kubectl_err(url, &["apply", "-f", &write(dir.path(), "bad.yaml", bad)]);
    assert!(err.contains(r#"The Stage "bad" is invalid: "#), "{err}");
    assert!(
        err.contains(r#"spec.selector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist""#),
        "{err}"
    );
    assert!(
        err.contains(r#"spec.next.statusTemplate: Invalid value: "phase: {{ Env \"HOME\" }}": template: function "Env" not defined"#),
        "{err}"
    );
    let delay = "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: slow\nspec:\n  resourceRef:\n    kind: Pod\n  delay:\n    durationMilliseconds: -1\n";
    let err = kubectl_err(
        url,
        &["apply", "-f", &write(dir.path(), "slow.yaml", delay)],
    );
    assert!(
        err.contains(
            "spec.delay.durationMilliseconds: Invalid value: -1: must be greater than or equal to 0"
        ),
        "{err}"
    );
    let listed = kubectl_ok(url, &["get", "stages"]);
    assert!(!listed.contains("bad"), "{listed}");
}

const SLOW_START: &str = r#"
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-slow-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: NotIn
      values: [Running, Succeeded, Failed]
  delay:
    durationMilliseconds: 600000
  next:
    statusTemplate: |
      phase: Running
      podIP: {{ PodIP }}
      hostIP: {{ NodeIP }}
      conditions:
      - type: Ready
        status: "True"
        lastProbeTime: null
        lastTransitionTime: {{ Now | Quote }}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delayed_stage_waits_on_the_server_clock() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    stages_served(url).await;
    let dir = tempfile::tempdir().unwrap();
    // A server Stage named as a default one replaces it: Pods start ten minutes late.
    let slow = SLOW_START.replace("name: pod-slow-ready", "name: pod-ready");
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "slow.yaml", &slow)],
    );
    kubectl_ok(url, &["run", "slow", "--image=busybox"]);
    let scheduled = eventually(100, || {
        let pod = json_of(url, &["get", "pod", "slow"]);
        !pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty()
    })
    .await;
    assert!(scheduled);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        json_of(url, &["get", "pod", "slow"])["status"]["phase"],
        "Pending"
    );
    server.clock().advance(Duration::from_secs(601));
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=jsonpath={.status.phase}=Running",
            "pod/slow",
            "--timeout=20s",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_server_takes_stages_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "slow.yaml", SLOW_START);
    let stages = StageSet::load(&[file.into()]).expect("stages");
    let server = TestServer::builder()
        .workloads()
        .stages(stages)
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    kubectl_ok(url, &["run", "slow", "--image=busybox"]);
    let scheduled = eventually(100, || {
        let pod = json_of(url, &["get", "pod", "slow"]);
        !pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty()
    })
    .await;
    assert!(scheduled);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        json_of(url, &["get", "pod", "slow"])["status"]["phase"],
        "Pending"
    );
    server.clock().advance(Duration::from_secs(601));
    kubectl_ok(
        url,
        &[
            "wait",
            "--for=jsonpath={.status.phase}=Running",
            "pod/slow",
            "--timeout=20s",
        ],
    );
    let pod = json_of(url, &["get", "pod", "slow"]);
    assert!(
        pod["status"]["podIP"]
            .as_str()
            .is_some_and(|ip| ip.starts_with("10.244.0."))
    );
}

/// Starts the binary; returns it and its start-up line (or its exit and stderr).
fn binary(args: &[&str]) -> Result<(Proc, String), (Option<i32>, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-server"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run crd-server");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    let _ = BufReader::new(stdout).read_line(&mut line);
    if line.is_empty() {
        let out = child.wait_with_output().expect("wait");
        return Err((
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    Ok((Proc(child), line))
}

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_reads_stages_files() {
    let dir = tempfile::tempdir().unwrap();
    let stages = write(dir.path(), "slow.yaml", SLOW_START);
    let listen = format!("127.0.0.1:{}", free_port());
    let url = format!("http://{listen}");
    let (_server, line) = binary(&["--listen", &listen, "--in-memory", "--stages", &stages])
        .unwrap_or_else(|(code, err)| panic!("crd-server exited {code:?}: {err}"));
    assert!(line.starts_with("crd-server listening on"), "{line}");
    // The file replaced the default stages: the Pod waits ten minutes to start.
    kubectl_ok(&url, &["run", "slow", "--image=busybox"]);
    let scheduled = eventually(100, || {
        let pod = json_of(&url, &["get", "pod", "slow"]);
        !pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty()
    })
    .await;
    assert!(scheduled);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pod = json_of(&url, &["get", "pod", "slow"]);
    assert_eq!(pod["status"]["phase"], "Pending", "{pod}");

    // A bad file: exit 2, naming the file, the Stage and the field.
    let bad = write(
        dir.path(),
        "bad.yaml",
        "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: broken\nspec:\n  resourceRef:\n    kind: Pod\n  delay:\n    durationMilliseconds: soon\n",
    );
    let listen = format!("127.0.0.1:{}", free_port());
    let Err((code, err)) = binary(&["--listen", &listen, "--in-memory", "--stages", &bad]) else {
        panic!("a bad --stages file was accepted");
    };
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "error: --stages: {bad}: Stage \"broken\": spec.delay.durationMilliseconds: Invalid value: \"soon\": must be an integer (milliseconds)"
        )
    );
}
