//! The workload kinds with the real kubectl (JSON bodies through `kubectl apply`): a
//! Deployment with the apps/v1 defaults and generation 1, scaled by `kubectl scale`
//! (generation 2) and listed with its printer columns, a Deployment whose selector
//! does not match refused in the server's words, a Pod found by its phase, a Job and a
//! CronJob, and `kubectl logs` answered as kube-apiserver answers without a kubelet.

mod support;

use serde_json::Value;
use support::{kubectl, kubectl_err, kubectl_ok, write};

const DEPLOYMENT: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
"#;

const POD: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: pod-1
  labels:
    app: pod
spec:
  containers:
  - name: main
    image: busybox
    resources:
      limits:
        cpu: "0.5"
        memory: 128Mi
"#;

const JOB: &str = r#"
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl:5.34
        command: ["perl", "-e", "print 1"]
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: tick
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: tick
            image: busybox:1.36
"#;

/// A list that finds nothing: kubectl says so on stderr and succeeds.
fn nothing(url: &str, args: &[&str]) {
    let out = kubectl(url, args);
    assert!(out.status.success(), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("No resources found"), "{args:?}: {err}");
}

fn json(url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(url, &all)).expect("kubectl -o json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workloads_with_kubectl() {
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
    deployments(url, dir);
    pods(url, dir);
    jobs(url, dir);
}

fn deployments(url: &str, dir: &std::path::Path) {
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "d.yaml", DEPLOYMENT)]);
    assert_eq!(out.trim(), "deployment.apps/web created");
    let d = json(url, &["get", "deploy", "web"]);
    assert_eq!(d["metadata"]["generation"], 1);
    let spec = &d["spec"];
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["revisionHistoryLimit"], 10);
    assert_eq!(spec["progressDeadlineSeconds"], 600);
    assert_eq!(
        spec["strategy"],
        serde_json::json!({"type": "RollingUpdate",
                           "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
    );
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Always");
    assert_eq!(pod["dnsPolicy"], "ClusterFirst");
    assert_eq!(pod["terminationGracePeriodSeconds"], 30);
    assert_eq!(pod["schedulerName"], "default-scheduler");
    assert_eq!(pod["securityContext"], serde_json::json!({}));
    let c = &pod["containers"][0];
    assert_eq!(c["imagePullPolicy"], "IfNotPresent");
    assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(c["terminationMessagePolicy"], "File");
    assert_eq!(c["ports"][0]["protocol"], "TCP");
    assert_eq!(d["status"], serde_json::json!({}));

    let out = kubectl_ok(url, &["scale", "deploy", "web", "--replicas=3"]);
    assert_eq!(out.trim(), "deployment.apps/web scaled");
    let d = json(url, &["get", "deploy", "web"]);
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(d["metadata"]["generation"], 2);

    let table = kubectl_ok(url, &["get", "deploy"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row[..4], ["web", "0/3", "0", "0"]);
    let wide = kubectl_ok(url, &["get", "deploy", "-o", "wide"]);
    assert!(
        wide.contains("nginx:1.27") && wide.contains("app=web"),
        "{wide}"
    );

    let bad =
        DEPLOYMENT
            .replace("name: web\n", "name: bad\n")
            .replacen("app: web", "app: other", 1);
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "bad.yaml", &bad)]);
    assert!(
        err.contains(
            "The Deployment \"bad\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"
        ),
        "{err}"
    );
    let moved = DEPLOYMENT.replace("app: web", "app: moved");
    // An update as a PUT (client-side apply patches with a strategic merge patch).
    let err = kubectl_err(url, &["replace", "-f", &write(dir, "moved.yaml", &moved)]);
    assert!(
        err.contains("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"moved\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"),
        "{err}"
    );
}

fn pods(url: &str, dir: &std::path::Path) {
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "pod.yaml", POD)]);
    assert_eq!(out.trim(), "pod/pod-1 created");
    let p = json(url, &["get", "pod", "pod-1"]);
    assert_eq!(p["status"]["phase"], "Pending");
    assert_eq!(p["status"]["qosClass"], "Guaranteed");
    assert_eq!(p["spec"]["enableServiceLinks"], true);
    let c = &p["spec"]["containers"][0];
    assert_eq!(c["imagePullPolicy"], "Always");
    assert_eq!(c["resources"]["limits"]["cpu"], "500m");
    assert_eq!(c["resources"]["requests"]["memory"], "128Mi");

    let pending = kubectl_ok(
        url,
        &["get", "pods", "--field-selector", "status.phase=Pending"],
    );
    let header: Vec<&str> = pending.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]);
    let row: Vec<&str> = pending.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row[..4], ["pod-1", "0/1", "Pending", "0"]);
    nothing(
        url,
        &["get", "pods", "--field-selector", "status.phase=Running"],
    );

    // No node: the log is empty, exec has no host; a container the pod lacks is a
    // 400 (kubectl finds that out itself, the server says the same).
    assert_eq!(kubectl_ok(url, &["logs", "pod-1"]), "");
    let base = "/api/v1/namespaces/default/pods/pod-1";
    let err = kubectl_err(
        url,
        &["get", "--raw", &format!("{base}/log?container=nope")],
    );
    assert!(
        err.contains("Error from server (BadRequest): container nope is not valid for pod pod-1"),
        "{err}"
    );
    let err = kubectl_err(url, &["get", "--raw", &format!("{base}/exec?command=ls")]);
    assert!(
        err.contains("Error from server (BadRequest): pod pod-1 does not have a host assigned"),
        "{err}"
    );
    // Bound to a node that does not exist: the server cannot find its kubelet.
    let binding = r#"{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "pod-1"},
                      "target": {"kind": "Node", "name": "node-1"}}"#;
    let file = write(dir, "binding.json", binding);
    kubectl_ok(
        url,
        &["create", "--raw", &format!("{base}/binding"), "-f", &file],
    );
    let bound = kubectl_ok(
        url,
        &[
            "get",
            "pods",
            "--field-selector",
            "spec.nodeName=node-1",
            "-o",
            "name",
        ],
    );
    assert_eq!(bound.trim(), "pod/pod-1");
    let err = kubectl_err(url, &["logs", "pod-1"]);
    assert!(
        err.contains("Error from server (NotFound): nodes \"node-1\" not found"),
        "{err}"
    );
    let err = kubectl_err(
        url,
        &["create", "--raw", &format!("{base}/binding"), "-f", &file],
    );
    assert!(
        err.contains("pod pod-1 is already assigned to node \"node-1\""),
        "{err}"
    );
    // Evicting a pending pod deletes it (no disruption budget is consulted).
    let copy = POD.replace("name: pod-1", "name: pod-2");
    kubectl_ok(url, &["apply", "-f", &write(dir, "pod-2.yaml", &copy)]);
    let eviction =
        r#"{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "pod-2"}}"#;
    let file = write(dir, "eviction.json", eviction);
    let path = "/api/v1/namespaces/default/pods/pod-2/eviction";
    let evicted = kubectl_ok(url, &["create", "--raw", path, "-f", &file]);
    assert!(evicted.contains("\"status\":\"Success\""), "{evicted}");
    let gone = kubectl_err(url, &["get", "pod", "pod-2"]);
    assert!(gone.contains("pods \"pod-2\" not found"), "{gone}");
    let changed = POD.replace("image: busybox", "image: busybox\n    workingDir: /tmp");
    let err = kubectl_err(url, &["replace", "-f", &write(dir, "pod2.yaml", &changed)]);
    assert!(
        err.contains("The Pod \"pod-1\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"),
        "{err}"
    );
}

fn jobs(url: &str, dir: &std::path::Path) {
    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "jobs.yaml", JOB)]);
    assert_eq!(
        out.trim(),
        "job.batch/pi created\ncronjob.batch/tick created"
    );
    let job = json(url, &["get", "job", "pi"]);
    let uid = job["metadata"]["uid"].as_str().unwrap();
    assert_eq!(
        job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
        uid
    );
    assert_eq!(
        job["spec"]["template"]["metadata"]["labels"]["job-name"],
        "pi"
    );
    assert_eq!(job["spec"]["backoffLimit"], 6);
    assert_eq!(job["spec"]["completionMode"], "NonIndexed");
    assert_eq!(job["spec"]["manualSelector"], false);
    let jobs = kubectl_ok(url, &["get", "jobs"]);
    let header: Vec<&str> = jobs.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    assert!(
        jobs.lines().nth(1).unwrap().contains("Running   0/1"),
        "{jobs}"
    );
    nothing(
        url,
        &["get", "jobs", "--field-selector", "status.successful=1"],
    );
    assert!(
        kubectl_ok(
            url,
            &["get", "jobs", "--field-selector", "status.successful=0"]
        )
        .contains("pi")
    );

    let cj = json(url, &["get", "cj", "tick"]);
    assert_eq!(cj["spec"]["concurrencyPolicy"], "Allow");
    assert_eq!(cj["spec"]["suspend"], false);
    assert_eq!(cj["spec"]["failedJobsHistoryLimit"], 1);
    let table = kubectl_ok(url, &["get", "cronjobs"]);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"
        ]
    );
    let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        row[..8],
        ["tick", "*/5", "*", "*", "*", "*", "<none>", "False"]
    );
    let bad = JOB
        .split("---")
        .nth(1)
        .unwrap()
        .replace("*/5 * * * *", "* * *")
        .replace("name: tick\n", "name: tock\n");
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "cj.yaml", &bad)]);
    assert!(
        err.contains(
            "spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields, found 3: [* * *]"
        ),
        "{err}"
    );
    let all = kubectl_ok(url, &["get", "all"]);
    for name in [
        "pod/pod-1",
        "deployment.apps/web",
        "job.batch/pi",
        "cronjob.batch/tick",
    ] {
        assert!(all.contains(name), "{name} in {all}");
    }
}
