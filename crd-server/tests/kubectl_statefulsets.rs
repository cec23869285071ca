//! StatefulSets that run, with the real kubectl and kube::Client: `kubectl apply` of a
//! set with a claim template gives Pods `web-0..2` with their identity labels and claims
//! `www-web-N`, and `kubectl rollout status statefulset/web` succeeds; `kubectl set
//! image` rolls every Pod to revision 2, `kubectl rollout history` lists both
//! ControllerRevisions and `kubectl rollout undo` brings revision 1's template back as
//! revision 3; a partition keeps the Pods below it at the old revision; `kubectl scale`
//! deletes the highest ordinals and keeps their claims, unless the retention policy says
//! `Delete` (then they go with the Pod scaled away and with the set). With the simulated
//! kubelet off the test plays it and sees OrderedReady wait for each Pod to be Ready
//! before the next, where Parallel creates them all.

mod support;

use std::time::Duration;

use crd_server::TestServer;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};
use support::{kubectl, kubectl_ok, write};

const WEB: &str = r#"
apiVersion: v1
kind: Service
metadata:
  name: nginx
spec:
  clusterIP: None
  selector:
    app: nginx
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: nginx
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.24
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 1Gi
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

fn names(list: &Value) -> Vec<String> {
    let mut out: Vec<String> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string())
        .collect();
    out.sort();
    out
}

fn rollout_status(url: &str) -> String {
    kubectl_ok(
        url,
        &["rollout", "status", "statefulset/web", "--timeout=60s"],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn statefulset_rolls_out_updates_and_rolls_back() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "web.yaml", WEB)]);
    let out = rollout_status(url);
    assert!(
        out.contains("partitioned roll out complete: 3 new pods have been updated..."),
        "{out}"
    );

    let pods = json_of(&kubectl_ok(
        url,
        &["get", "pods", "-l", "app=nginx", "-o", "json"],
    ));
    assert_eq!(names(&pods), ["web-0", "web-1", "web-2"]);
    let sts = json_of(&kubectl_ok(
        url,
        &["get", "statefulset", "web", "-o", "json"],
    ));
    let status = &sts["status"];
    assert_eq!(status["replicas"], 3);
    assert_eq!(status["readyReplicas"], 3);
    assert_eq!(status["currentReplicas"], 3);
    assert_eq!(status["updatedReplicas"], 3);
    assert_eq!(status["availableReplicas"], 3);
    assert_eq!(status["observedGeneration"], sts["metadata"]["generation"]);
    assert_eq!(status["currentRevision"], status["updateRevision"]);
    let rev1 = status["updateRevision"].as_str().unwrap().to_string();
    assert!(rev1.starts_with("web-"), "{rev1}");
    for (i, p) in pods["items"].as_array().unwrap().iter().enumerate() {
        let name = format!("web-{i}");
        let labels = &p["metadata"]["labels"];
        assert_eq!(labels["statefulset.kubernetes.io/pod-name"], name.as_str());
        assert_eq!(labels["apps.kubernetes.io/pod-index"], i.to_string());
        assert_eq!(labels["controller-revision-hash"], rev1.as_str());
        assert_eq!(p["spec"]["hostname"], name.as_str());
        assert_eq!(p["spec"]["subdomain"], "nginx");
        let vol = p["spec"]["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == "www")
            .expect("the claim's volume");
        assert_eq!(
            vol["persistentVolumeClaim"]["claimName"],
            format!("www-{name}")
        );
        assert_eq!(p["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    }
    let claims = json_of(&kubectl_ok(url, &["get", "pvc", "-o", "json"]));
    assert_eq!(names(&claims), ["www-web-0", "www-web-1", "www-web-2"]);
    assert_eq!(claims["items"][0]["metadata"]["labels"]["app"], "nginx");

    // A new template: revision 2, every Pod replaced.
    kubectl_ok(
        url,
        &["set", "image", "statefulset/web", "nginx=nginx:1.25"],
    );
    rollout_status(url);
    let sts = eventually(url, &["get", "statefulset", "web"], "revision 2", |v| {
        v["status"]["currentRevision"] == v["status"]["updateRevision"]
            && v["status"]["updateRevision"] != rev1.as_str()
            && v["status"]["updatedReplicas"] == 3
    })
    .await;
    let rev2 = sts["status"]["updateRevision"]
        .as_str()
        .unwrap()
        .to_string();
    let pods = eventually(
        url,
        &["get", "pods", "-l", "app=nginx"],
        "updated pods",
        |v| {
            let items = v["items"].as_array().unwrap();
            items.len() == 3
                && items.iter().all(|p| {
                    p["metadata"]["labels"]["controller-revision-hash"] == rev2.as_str()
                        && p["status"]["phase"] == "Running"
                })
        },
    )
    .await;
    assert!(
        pods["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.25")
    );
    let history = kubectl_ok(url, &["rollout", "history", "statefulset/web"]);
    let rows: Vec<&str> = history
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(rows.len(), 2, "{history}");
    assert!(
        rows[0].starts_with('1') && rows[1].starts_with('2'),
        "{history}"
    );
    let revs = json_of(&kubectl_ok(
        url,
        &["get", "controllerrevisions", "-o", "json"],
    ));
    assert_eq!(names(&revs), {
        let mut v = vec![rev1.clone(), rev2.clone()];
        v.sort();
        v
    });

    // Undo: revision 1's template comes back, renumbered 3.
    let out = kubectl_ok(url, &["rollout", "undo", "statefulset/web"]);
    assert_eq!(out.trim(), "statefulset.apps/web rolled back");
    rollout_status(url);
    eventually(
        url,
        &["get", "statefulset", "web"],
        "back at revision 1",
        |v| {
            v["status"]["currentRevision"] == rev1.as_str()
                && v["status"]["updateRevision"] == rev1.as_str()
                && v["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.24"
        },
    )
    .await;
    let history = kubectl_ok(url, &["rollout", "history", "statefulset/web"]);
    let rows: Vec<&str> = history
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(
        rows[0].starts_with('2') && rows[1].starts_with('3'),
        "{history}"
    );

    // A partition of 2 updates web-2 only.
    kubectl_ok(
        url,
        &[
            "patch",
            "statefulset",
            "web",
            "-p",
            r#"{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}}}"#,
        ],
    );
    let out = rollout_status(url);
    assert!(
        out.contains("partitioned roll out complete: 1 new pods have been updated..."),
        "{out}"
    );
    let pods = eventually(
        url,
        &["get", "pods", "-l", "app=nginx"],
        "web-2 updated",
        |v| {
            let items = v["items"].as_array().unwrap();
            items.len() == 3
                && items.iter().all(|p| p["status"]["phase"] == "Running")
                && items
                    .iter()
                    .any(|p| p["spec"]["containers"][0]["image"] == "nginx:1.26")
        },
    )
    .await;
    for p in pods["items"].as_array().unwrap() {
        let want = if p["metadata"]["name"] == "web-2" {
            "nginx:1.26"
        } else {
            "nginx:1.24"
        };
        assert_eq!(p["spec"]["containers"][0]["image"], want, "{p}");
    }

    // Scaling down deletes the highest ordinals; their claims stay (Retain).
    let out = kubectl_ok(url, &["scale", "statefulset/web", "--replicas=1"]);
    assert_eq!(out.trim(), "statefulset.apps/web scaled");
    eventually(url, &["get", "pods", "-l", "app=nginx"], "one pod", |v| {
        names(v) == ["web-0"]
    })
    .await;
    eventually(url, &["get", "statefulset", "web"], "one replica", |v| {
        v["status"]["replicas"] == 1 && v["status"]["readyReplicas"] == 1
    })
    .await;
    let claims = json_of(&kubectl_ok(url, &["get", "pvc", "-o", "json"]));
    assert_eq!(names(&claims), ["www-web-0", "www-web-1", "www-web-2"]);

    // persistentVolumeClaimRetentionPolicy Delete: the claims go with a scaled-down Pod
    // (owned by it) and with the set (owned by it).
    let owned = WEB
        .replace("name: web\n", "name: db\n")
        .replace("serviceName: nginx", "serviceName: db")
        .replace("replicas: 3", "replicas: 2\n  persistentVolumeClaimRetentionPolicy:\n    whenDeleted: Delete\n    whenScaled: Delete")
        .replace("app: nginx", "app: db");
    let owned = owned.split("---").nth(1).unwrap().to_string();
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "db.yaml", &owned)]);
    kubectl_ok(
        url,
        &["rollout", "status", "statefulset/db", "--timeout=60s"],
    );
    let claim = json_of(&kubectl_ok(url, &["get", "pvc", "www-db-1", "-o", "json"]));
    assert_eq!(
        claim["metadata"]["ownerReferences"][0]["kind"],
        "StatefulSet"
    );
    kubectl_ok(url, &["scale", "statefulset/db", "--replicas=1"]);
    let gone = |name: &'static str| {
        move |v: &Value| {
            !v["items"].as_array().unwrap().iter().any(|c| {
                c["metadata"]["name"] == name && c["metadata"]["deletionTimestamp"].is_null()
            })
        }
    };
    eventually(
        url,
        &["get", "pvc"],
        "www-db-1 deleted with db-1",
        gone("www-db-1"),
    )
    .await;
    kubectl_ok(url, &["delete", "statefulset", "db"]);
    eventually(
        url,
        &["get", "pvc"],
        "www-db-0 deleted with db",
        gone("www-db-0"),
    )
    .await;
    let claims = json_of(&kubectl_ok(url, &["get", "pvc", "-o", "json"]));
    assert!(names(&claims).contains(&"www-web-2".to_string()));
}

const ORDERED: &str = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ordered
spec:
  serviceName: ordered
  replicas: 3
  selector:
    matchLabels:
      app: ordered
  template:
    metadata:
      labels:
        app: ordered
    spec:
      containers:
      - name: c
        image: busybox
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: parallel
spec:
  serviceName: parallel
  podManagementPolicy: Parallel
  replicas: 3
  selector:
    matchLabels:
      app: parallel
  template:
    metadata:
      labels:
        app: parallel
    spec:
      containers:
      - name: c
        image: busybox
"#;

/// The test plays the kubelet: the Pod becomes Running and Ready.
async fn make_ready(pods: &Api<Pod>, name: &str) {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let status = json!({"status": {"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True", "lastTransitionTime": now}]}});
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("pod status");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ordered_ready_waits_for_each_pod_and_parallel_does_not() {
    let server = TestServer::builder()
        .controllers("*,-kwok,-scheduler")
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "sets.yaml", ORDERED)],
    );
    let uri: http::Uri = url.parse().unwrap();
    let client = kube::Client::try_from(kube::Config::new(uri)).expect("client");
    let pods: Api<Pod> = Api::namespaced(client, "default");

    // Parallel: all three at once, none ready.
    eventually(
        url,
        &["get", "pods", "-l", "app=parallel"],
        "three pods",
        |v| names(v) == ["parallel-0", "parallel-1", "parallel-2"],
    )
    .await;
    // OrderedReady: one at a time, each after the one before is Ready.
    for i in 0..3 {
        let want: Vec<String> = (0..=i).map(|n| format!("ordered-{n}")).collect();
        eventually(
            url,
            &["get", "pods", "-l", "app=ordered"],
            "the next pod",
            |v| names(v) == want,
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let still = json_of(&kubectl_ok(
            url,
            &["get", "pods", "-l", "app=ordered", "-o", "json"],
        ));
        assert_eq!(names(&still), want, "no pod before ordered-{i} is Ready");
        make_ready(&pods, &format!("ordered-{i}")).await;
    }
    let sts = eventually(
        url,
        &["get", "statefulset", "ordered"],
        "three ready",
        |v| v["status"]["readyReplicas"] == 3,
    )
    .await;
    assert_eq!(sts["status"]["replicas"], 3);
    let out = kubectl_ok(
        url,
        &["rollout", "status", "statefulset/ordered", "--timeout=5s"],
    );
    assert!(out.contains("partitioned roll out complete"), "{out}");
    let events = kubectl_ok(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=ordered",
        ],
    );
    assert!(
        events.contains("create Pod ordered-0 in StatefulSet ordered successful"),
        "{events}"
    );

    // A failed Pod is replaced.
    let failed = json!({"status": {"phase": "Failed"}});
    pods.patch_status("ordered-1", &PatchParams::default(), &Patch::Merge(&failed))
        .await
        .unwrap();
    let old_uid = sts["metadata"]["uid"].clone();
    eventually(url, &["get", "pod", "ordered-1"], "a new ordered-1", |v| {
        v["status"]["phase"] != "Failed" && v["metadata"]["ownerReferences"][0]["uid"] == old_uid
    })
    .await;
}
