//! The networking, policy, autoscaling, scheduling and storage kinds with the real
//! kubectl: applied with their defaults, `kubectl get` columns, refusals in
//! kube-apiserver's words.

mod support;

use serde_json::json;
use support::{header, json_of, kubectl_err, kubectl_ok, row, write};

const KINDS: &str = r#"
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  tls: [{hosts: [web.example.com]}]
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {matchLabels: {app: web}}
  egress: [{ports: [{port: 53}]}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 25%
  selector: {matchLabels: {app: web}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/fast
parameters: {tier: gold}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  storageClassName: fast
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  hostPath: {path: /tmp/pv1}
---
apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: {node-role.kubernetes.io/worker: ""}
spec: {unschedulable: true}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_other_kinds_with_kubectl() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    tokio::task::spawn_blocking(move || kinds_walk(&url))
        .await
        .expect("walk");
}

fn kinds_walk(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    kubectl_ok(url, &["apply", "-f", &write(dir, "kinds.yaml", KINDS)]);
    let cases: [(&str, &[&str], &str, &[&str]); 9] = [
        (
            "ingress",
            &["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            "web",
            &["nginx", "web.example.com", "80, 443"],
        ),
        (
            "ingressclass",
            &["NAME", "CONTROLLER", "PARAMETERS", "AGE"],
            "nginx",
            &["k8s.io/ingress-nginx", "<none>"],
        ),
        (
            "netpol",
            &["NAME", "POD-SELECTOR", "AGE"],
            "deny",
            &["app=web"],
        ),
        (
            "pdb",
            &[
                "NAME",
                "MIN AVAILABLE",
                "MAX UNAVAILABLE",
                "ALLOWED DISRUPTIONS",
                "AGE",
            ],
            "web",
            &["N/A", "25%", "0"],
        ),
        (
            "hpa",
            &[
                "NAME",
                "REFERENCE",
                "TARGETS",
                "MINPODS",
                "MAXPODS",
                "REPLICAS",
                "AGE",
            ],
            "web",
            &["Deployment/web", "cpu: <unknown>/80%", "1", "5", "0"],
        ),
        (
            "pc",
            &["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"],
            "high",
            &["1000", "false"],
        ),
        (
            "sc",
            &[
                "NAME",
                "PROVISIONER",
                "RECLAIMPOLICY",
                "VOLUMEBINDINGMODE",
                "ALLOWVOLUMEEXPANSION",
                "AGE",
            ],
            "fast",
            &["example.com/fast", "Delete", "Immediate", "false"],
        ),
        (
            "pv",
            &[
                "NAME",
                "CAPACITY",
                "ACCESS MODES",
                "RECLAIM POLICY",
                "STATUS",
                "CLAIM",
                "STORAGECLASS",
                "VOLUMEATTRIBUTESCLASS",
                "REASON",
                "AGE",
            ],
            "pv1",
            &["5Gi", "RWO,ROX", "Retain", "Pending"],
        ),
        (
            "no",
            &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            "node-1",
            &["Unknown,SchedulingDisabled", "worker"],
        ),
    ];
    for (kind, columns, name, cells) in cases {
        let out = kubectl_ok(url, &["get", kind]);
        assert_eq!(header(&out), columns, "{kind}:\n{out}");
        let r = row(&out, name);
        assert_eq!(r[1..=cells.len()], *cells, "{kind}:\n{out}");
    }
    let pvc = kubectl_ok(url, &["get", "pvc"]);
    assert_eq!(
        header(&pvc),
        [
            "NAME",
            "STATUS",
            "VOLUME",
            "CAPACITY",
            "ACCESS MODES",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "AGE"
        ]
    );
    assert_eq!(row(&pvc, "data")[1..4], ["Pending", "fast", "<unset>"]);
    let claim = json_of(url, &["get", "pvc", "data"]);
    assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
    assert_eq!(claim["status"]["phase"], "Pending");
    let pv = json_of(url, &["get", "pv", "pv1"]);
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    assert_eq!(pv["status"]["phase"], "Pending");
    let np = json_of(url, &["get", "netpol", "deny"]);
    assert_eq!(np["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
    assert_eq!(np["spec"]["egress"][0]["ports"][0]["protocol"], "TCP");
    let system = kubectl_ok(url, &["get", "pc", "system-node-critical", "-o", "name"]);
    assert_eq!(
        system.trim(),
        "priorityclass.scheduling.k8s.io/system-node-critical"
    );
    let cordoned = kubectl_ok(
        url,
        &[
            "get",
            "no",
            "--field-selector",
            "spec.unschedulable=false",
            "-o",
            "name",
        ],
    );
    assert_eq!(cordoned.trim(), "node/node-2");
    let all = kubectl_ok(url, &["get", "all"]);
    assert!(
        all.contains("horizontalpodautoscaler.autoscaling/web"),
        "{all}"
    );

    // Refusals.
    let err = kubectl_err(
        url,
        &[
            "patch",
            "sc",
            "fast",
            "--type=merge",
            "-p",
            r#"{"parameters":{"tier":"silver"}}"#,
        ],
    );
    assert!(err.contains("The StorageClass \"fast\" is invalid: parameters: Forbidden: updates to parameters are forbidden."), "{err}");
    let err = kubectl_err(
        url,
        &[
            "patch",
            "pc",
            "high",
            "--type=merge",
            "-p",
            r#"{"value":5}"#,
        ],
    );
    assert!(err.contains("The PriorityClass \"high\" is invalid: value: Forbidden: may not be changed in an update."), "{err}");
    let err = kubectl_err(
        url,
        &[
            "patch",
            "pvc",
            "data",
            "--type=merge",
            "-p",
            r#"{"spec":{"accessModes":["ReadWriteMany"]}}"#,
        ],
    );
    assert!(err.contains("spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"), "{err}");
    let both = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: both}\nspec: {minAvailable: 1, maxUnavailable: 1}\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "both.yaml", both)]);
    assert!(
        err.contains("minAvailable and maxUnavailable cannot be both set"),
        "{err}"
    );
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nspec:\n  scaleTargetRef: {kind: Deployment, name: web}\n  minReplicas: 3\n  maxReplicas: 2\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "hpa.yaml", hpa)]);
    assert!(
        err.contains(
            "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
        ),
        "{err}"
    );
    let ing = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: bad}\nspec: {}\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "ing.yaml", ing)]);
    assert!(err.contains("spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"), "{err}");
    let sc = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: none}\nprovisioner: \"\"\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "sc.yaml", sc)]);
    assert!(
        err.contains("The StorageClass \"none\" is invalid: provisioner: Required value"),
        "{err}"
    );
    let pvc = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: nope}\nspec: {}\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "pvc.yaml", pvc)]);
    assert!(
        err.contains("spec.accessModes: Required value: at least 1 access mode is required"),
        "{err}"
    );
    assert!(
        err.contains("spec.resources[storage]: Required value"),
        "{err}"
    );
}
