//! Storage that binds, with the real kubectl: the default StorageClass `standard` and
//! its simulated provisioner give a claim without a class a volume of its size
//! (`kubectl wait --for=jsonpath={.status.phase}=Bound`); a static volume goes to the
//! claim it fits best; a claim of a missing class gets `ProvisioningFailed`; a Pod of a
//! missing or unbound claim waits with kube-scheduler's message; a
//! `WaitForFirstConsumer` claim binds once a Pod using it is scheduled; a released
//! volume is deleted or kept by its reclaim policy.

mod support;

use crd_server::TestServer;
use serde_json::Value;
use support::{json_of, kubectl_ok, write};

const CLAIMS: &str = r#"
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual-big
  labels:
    kind: manual
spec:
  storageClassName: manual
  capacity:
    storage: 10Gi
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /srv/big
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual-small
spec:
  storageClassName: manual
  capacity:
    storage: 2Gi
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  hostPath:
    path: /srv/small
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: nowhere
spec:
  storageClassName: none-such
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
"#;

/// Applied once both manual volumes are Available: the binder matches a claim against
/// the volumes it has seen, here as on a cluster.
const STATIC: &str = r#"
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: static
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1500Mi
"#;

const LATE: &str = r#"
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: late
provisioner: simulated.crd-server.io
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: late-data
spec:
  storageClassName: late
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 3Gi
"#;

fn pod(name: &str, claim: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: app
    image: nginx
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: {claim}
"#
    )
}

fn wait(url: &str, what: &str, condition: &str) {
    kubectl_ok(
        url,
        &["wait", what, &format!("--for={condition}"), "--timeout=30s"],
    );
}

fn events_of(url: &str, name: &str) -> Vec<(String, String)> {
    let events = json_of(
        url,
        &[
            "get",
            "events",
            "--field-selector",
            &format!("involvedObject.name={name}"),
            "-o",
            "json",
        ],
    );
    events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (text("reason"), text("message"))
        })
        .collect()
}

/// Polls `check` (bounded) until it holds.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..150 {
        if check() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn claims_bind_provision_and_release() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();

    // The default class, as `kubectl get storageclass` shows it.
    eventually("the default StorageClass", || {
        support::kubectl(url, &["get", "storageclass", "standard"])
            .status
            .success()
    });
    let classes = kubectl_ok(url, &["get", "storageclass"]);
    assert!(
        classes.lines().any(|l| l.starts_with("standard (default)")
            && l.contains("simulated.crd-server.io")
            && l.contains("Delete")
            && l.contains("Immediate")),
        "{classes}"
    );

    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "claims.yaml", CLAIMS)],
    );
    wait(url, "pvc/data", "jsonpath={.status.phase}=Bound");
    let data = json_of(url, &["get", "pvc", "data", "-o", "json"]);
    let uid = data["metadata"]["uid"].as_str().unwrap().to_string();
    assert_eq!(data["spec"]["storageClassName"], "standard");
    assert_eq!(data["spec"]["volumeName"], format!("pvc-{uid}"));
    assert_eq!(data["status"]["capacity"]["storage"], "1Gi");
    assert_eq!(
        data["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"],
        "yes"
    );
    assert_eq!(
        data["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"],
        "simulated.crd-server.io"
    );
    let pv = json_of(url, &["get", "pv", &format!("pvc-{uid}"), "-o", "json"]);
    assert_eq!(pv["status"]["phase"], "Bound");
    assert_eq!(pv["spec"]["claimRef"]["name"], "data");
    assert_eq!(pv["spec"]["claimRef"]["uid"], uid.as_str());
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Delete");
    let reasons: Vec<String> = events_of(url, "data").into_iter().map(|e| e.0).collect();
    assert!(
        reasons.contains(&"ExternalProvisioning".to_string()),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"ProvisioningSucceeded".to_string()),
        "{reasons:?}"
    );

    // The static claim gets the smallest volume that fits, with that volume's size.
    for pv in ["pv/manual-big", "pv/manual-small"] {
        wait(url, pv, "jsonpath={.status.phase}=Available");
    }
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "static.yaml", STATIC)],
    );
    wait(url, "pvc/static", "jsonpath={.status.phase}=Bound");
    let table = kubectl_ok(url, &["get", "pvc", "static"]);
    let row = support::row(&table, "static");
    assert_eq!(
        row[1..5],
        ["Bound", "manual-small", "2Gi", "RWO,ROX"],
        "{table}"
    );
    let big = json_of(url, &["get", "pv", "manual-big", "-o", "json"]);
    assert_eq!(big["status"]["phase"], "Available");

    // A class that does not exist.
    eventually("ProvisioningFailed", || {
        events_of(url, "nowhere").iter().any(|(r, m)| {
            r == "ProvisioningFailed" && m == "storageclass.storage.k8s.io \"none-such\" not found"
        })
    });
    assert_eq!(
        json_of(url, &["get", "pvc", "nowhere", "-o", "json"])["status"]["phase"],
        "Pending"
    );

    // Pods: a missing claim and an unbound one wait; a bound one runs.
    for (name, claim) in [("lost", "missing"), ("stuck", "nowhere"), ("app", "data")] {
        kubectl_ok(
            url,
            &[
                "apply",
                "-f",
                &write(dir.path(), &format!("{name}.yaml"), &pod(name, claim)),
            ],
        );
    }
    wait(url, "pod/app", "condition=Ready");
    for (name, reason) in [
        ("lost", "persistentvolumeclaim \"missing\" not found"),
        ("stuck", "pod has unbound immediate PersistentVolumeClaims"),
    ] {
        wait(
            url,
            &format!("pod/{name}"),
            "jsonpath={.status.conditions[0].reason}=Unschedulable",
        );
        let p = json_of(url, &["get", "pod", name, "-o", "json"]);
        assert_eq!(
            p["status"]["conditions"][0]["message"],
            format!(
                "0/1 nodes are available: {reason}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            )
        );
    }
    // The claim appears: the pod that waited for it is scheduled once it binds.
    let missing = CLAIMS
        .split("---")
        .next()
        .unwrap()
        .replace("name: data", "name: missing");
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "missing.yaml", &missing)],
    );
    wait(url, "pod/lost", "condition=Ready");

    // WaitForFirstConsumer: pending until a pod uses it, then bound on that pod's node.
    kubectl_ok(url, &["apply", "-f", &write(dir.path(), "late.yaml", LATE)]);
    eventually("WaitForFirstConsumer", || {
        events_of(url, "late-data").iter().any(|(r, m)| {
            r == "WaitForFirstConsumer"
                && m == "waiting for first consumer to be created before binding"
        })
    });
    kubectl_ok(
        url,
        &[
            "apply",
            "-f",
            &write(dir.path(), "late-pod.yaml", &pod("late-app", "late-data")),
        ],
    );
    wait(url, "pod/late-app", "condition=Ready");
    let late = json_of(url, &["get", "pvc", "late-data", "-o", "json"]);
    assert_eq!(late["status"]["phase"], "Bound");
    let node = json_of(url, &["get", "pod", "late-app", "-o", "json"])["spec"]["nodeName"].clone();
    assert_eq!(
        late["metadata"]["annotations"]["volume.kubernetes.io/selected-node"],
        node
    );

    // Released: the provisioned volume (Delete) goes, the static one (Retain) stays.
    kubectl_ok(
        url,
        &["delete", "pod", "app", "--wait=true", "--timeout=30s"],
    );
    kubectl_ok(
        url,
        &[
            "delete",
            "pvc",
            "data",
            "static",
            "--wait=true",
            "--timeout=30s",
        ],
    );
    eventually("the provisioned volume deleted", || {
        !support::kubectl(url, &["get", "pv", &format!("pvc-{uid}")])
            .status
            .success()
    });
    eventually("the static volume released", || {
        json_of(url, &["get", "pv", "manual-small", "-o", "json"])["status"]["phase"] == "Released"
    });
    let kept: Value = json_of(url, &["get", "pv", "manual-small", "-o", "json"]);
    assert_eq!(kept["spec"]["persistentVolumeReclaimPolicy"], "Retain");
}
