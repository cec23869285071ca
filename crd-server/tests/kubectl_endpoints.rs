//! The endpoint and endpointslice controllers, driven by the real kubectl and
//! kube::Client against a server running the workloads: `kubectl expose deployment`
//! publishes the ready Pod IPs in `Endpoints` and in an `EndpointSlice` labelled with
//! the Service's name; both follow a scale up and down, a Pod turning unready
//! (`notReadyAddresses`, `ready: false`), named target ports, and the Service's
//! deletion. A Service without a selector is left to its user.

mod support;

use std::collections::BTreeSet;
use std::time::Duration;

use crd_server::TestServer;
use k8s_openapi::api::core::v1::Endpoints;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{Api, ListParams};
use serde_json::Value;
use support::{json_of, kubectl, kubectl_ok, write};

/// Polls `kubectl get ARGS -o json` until `done` holds (bounded: 30 s).
async fn eventually(url: &str, args: &[&str], what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["-o", "json"]);
    let mut last = String::new();
    for _ in 0..300 {
        let out = kubectl(url, &full);
        last = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            let v: Value = serde_json::from_str(&last).expect("kubectl printed JSON");
            if done(&v) {
                return v;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}; last:\n{last}");
}

/// The ready pod IPs of `app=LABEL`.
fn pod_ips(url: &str, app: &str) -> BTreeSet<String> {
    let pods = json_of(url, &["get", "pods", "-l", &format!("app={app}")]);
    pods["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["status"]["podIP"].as_str().map(str::to_string))
        .collect()
}

fn addresses(ep: &Value, field: &str) -> BTreeSet<String> {
    ep["subsets"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s[field].as_array().cloned().unwrap_or_default())
        .filter_map(|a| a["ip"].as_str().map(str::to_string))
        .collect()
}

fn slice_ips(slices: &Value, ready: bool) -> BTreeSet<String> {
    slices["items"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["endpoints"].as_array().cloned().unwrap_or_default())
        .filter(|e| e["conditions"]["ready"] == ready)
        .filter_map(|e| e["addresses"][0].as_str().map(str::to_string))
        .collect()
}

const SLICES: [&str; 4] = [
    "get",
    "endpointslices",
    "-l",
    "kubernetes.io/service-name=web",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn expose_publishes_ready_pods_in_endpoints_and_slices() {
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
            "--port=8080",
        ],
    );
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    let out = kubectl_ok(
        url,
        &[
            "expose",
            "deployment",
            "web",
            "--port=80",
            "--target-port=8080",
        ],
    );
    assert_eq!(out.trim(), "service/web exposed");

    let ips = pod_ips(url, "web");
    assert_eq!(ips.len(), 2);
    let ep = eventually(url, &["get", "endpoints", "web"], "2 addresses", |v| {
        addresses(v, "addresses") == ips
    })
    .await;
    let subset = &ep["subsets"][0];
    assert_eq!(
        subset["ports"],
        serde_json::json!([{"name": "", "port": 8080, "protocol": "TCP"}])
    );
    let address = &subset["addresses"][0];
    assert_eq!(address["targetRef"]["kind"], "Pod");
    assert!(
        address["nodeName"]
            .as_str()
            .unwrap()
            .starts_with("kwok-node-")
    );
    assert!(
        ep["metadata"]["annotations"]["endpoints.kubernetes.io/last-change-trigger-time"]
            .is_string(),
        "{ep}"
    );
    assert_eq!(ep["metadata"]["labels"]["app"], "web");
    // kubectl's table lists them.
    let table = kubectl_ok(url, &["get", "endpoints", "web"]);
    for ip in &ips {
        assert!(table.contains(&format!("{ip}:8080")), "{table}");
    }

    let slices = eventually(url, &SLICES, "a slice of 2", |v| slice_ips(v, true) == ips).await;
    let items = slices["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{slices}");
    let slice = &items[0];
    assert_eq!(slice["addressType"], "IPv4");
    assert!(
        slice["metadata"]["name"]
            .as_str()
            .unwrap()
            .starts_with("web-")
    );
    assert_eq!(
        slice["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"],
        "endpointslice-controller.k8s.io"
    );
    assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Service");
    assert_eq!(slice["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(slice["ports"][0]["port"], 8080);
    for e in slice["endpoints"].as_array().unwrap() {
        assert_eq!(
            e["conditions"],
            serde_json::json!({"ready": true, "serving": true, "terminating": false})
        );
        assert_eq!(e["targetRef"]["kind"], "Pod");
        assert!(e["nodeName"].is_string());
    }

    // Scale up: the third Pod is published.
    kubectl_ok(url, &["scale", "deployment/web", "--replicas=3"]);
    kubectl_ok(
        url,
        &["rollout", "status", "deployment/web", "--timeout=30s"],
    );
    let ips = pod_ips(url, "web");
    assert_eq!(ips.len(), 3);
    eventually(url, &["get", "endpoints", "web"], "3 addresses", |v| {
        addresses(v, "addresses") == ips
    })
    .await;
    eventually(url, &SLICES, "3 endpoints", |v| slice_ips(v, true) == ips).await;

    // A Pod that turns unready moves to notReadyAddresses and `ready: false`.
    let pods = json_of(url, &["get", "pods", "-l", "app=web"]);
    let pod = &pods["items"][0];
    let (name, ip) = (
        pod["metadata"]["name"].as_str().unwrap(),
        pod["status"]["podIP"].as_str().unwrap().to_string(),
    );
    let uri: http::Uri = server.url().parse().unwrap();
    let client = kube::Client::try_from(kube::Config::new(uri)).expect("client");
    let mut status = pod["status"].clone();
    for c in status["conditions"].as_array_mut().unwrap() {
        if c["type"] == "Ready" {
            c["status"] = "False".into();
            c["lastTransitionTime"] = "2030-01-01T00:00:00Z".into();
        }
    }
    let pods_api: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.clone(), "default");
    pods_api
        .patch_status(
            name,
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(
                serde_json::json!({"status": {"conditions": status["conditions"]}}),
            ),
        )
        .await
        .expect("pod status patched");
    let ep = eventually(url, &["get", "endpoints", "web"], "one not ready", |v| {
        addresses(v, "notReadyAddresses") == BTreeSet::from([ip.clone()])
    })
    .await;
    assert_eq!(addresses(&ep, "addresses").len(), 2);
    assert_eq!(
        ep["metadata"]["annotations"]["endpoints.kubernetes.io/last-change-trigger-time"],
        "2030-01-01T00:00:00Z"
    );
    let slices = eventually(url, &SLICES, "an unready endpoint", |v| {
        slice_ips(v, false) == BTreeSet::from([ip.clone()])
    })
    .await;
    let unready = slices["items"][0]["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["addresses"][0] == ip.as_str())
        .unwrap()
        .clone();
    assert_eq!(unready["conditions"]["serving"], false);

    // kube::Client reads the same objects.
    let eps: Api<Endpoints> = Api::namespaced(client.clone(), "default");
    let typed = eps.get("web").await.expect("endpoints");
    let subsets = typed.subsets.expect("subsets");
    assert_eq!(
        subsets
            .iter()
            .map(|s| s.addresses.as_ref().map_or(0, Vec::len))
            .sum::<usize>(),
        2
    );
    let es: Api<EndpointSlice> = Api::namespaced(client.clone(), "default");
    let listed = es
        .list(&ListParams::default().labels("kubernetes.io/service-name=web"))
        .await
        .expect("slices");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].endpoints.as_ref().map_or(0, Vec::len), 3);

    // Scale down to one: one endpoint left (whichever pod stays).
    kubectl_ok(url, &["scale", "deployment/web", "--replicas=1"]);
    eventually(url, &["get", "endpoints", "web"], "one address", |v| {
        addresses(v, "addresses").len() + addresses(v, "notReadyAddresses").len() == 1
    })
    .await;
    eventually(url, &SLICES, "one endpoint", |v| {
        v["items"][0]["endpoints"].as_array().map_or(0, Vec::len) == 1
    })
    .await;

    // The Service goes: its Endpoints object is deleted, its slices collected.
    kubectl_ok(url, &["delete", "service", "web"]);
    eventually(url, &["get", "endpoints"], "no endpoints web", |v| {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["metadata"]["name"] != "web")
    })
    .await;
    eventually(url, &SLICES, "no slices", |v| {
        v["items"].as_array().unwrap().is_empty()
    })
    .await;
}

const NAMED: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: named
  labels: {app: named}
spec:
  containers:
  - name: app
    image: nginx
    ports:
    - {name: http, containerPort: 8080}
---
apiVersion: v1
kind: Service
metadata:
  name: named
spec:
  selector: {app: named}
  ports:
  - {name: web, port: 80, targetPort: http}
  - {name: other, port: 81, targetPort: missing}
---
apiVersion: v1
kind: Service
metadata:
  name: manual
spec:
  ports:
  - {port: 80}
---
apiVersion: v1
kind: Endpoints
metadata:
  name: manual
subsets:
- addresses: [{ip: 192.0.2.7}]
  ports: [{port: 9000}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn named_target_ports_resolve_and_services_without_selector_are_left_alone() {
    let server = TestServer::builder()
        .workloads()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let url = url.as_str();
    let dir = tempfile::tempdir().unwrap();
    kubectl_ok(
        url,
        &["apply", "-f", &write(dir.path(), "named.yaml", NAMED)],
    );

    // `http` resolves to 8080; `missing` names no port of the pod, so it is not listed.
    let ep = eventually(url, &["get", "endpoints", "named"], "the named port", |v| {
        addresses(v, "addresses").len() == 1
    })
    .await;
    assert_eq!(
        ep["subsets"][0]["ports"],
        serde_json::json!([{"name": "web", "port": 8080, "protocol": "TCP"}])
    );
    let slices = eventually(
        url,
        &[
            "get",
            "endpointslices",
            "-l",
            "kubernetes.io/service-name=named",
        ],
        "the named slice",
        |v| {
            v["items"][0]["endpoints"]
                .as_array()
                .is_some_and(|e| e.len() == 1)
        },
    )
    .await;
    assert_eq!(
        slices["items"][0]["ports"],
        serde_json::json!([{"name": "web", "port": 8080, "protocol": "TCP"}])
    );

    // The selector-less Service keeps its own Endpoints and gets no slice.
    let manual = json_of(url, &["get", "endpoints", "manual"]);
    assert_eq!(manual["subsets"][0]["addresses"][0]["ip"], "192.0.2.7");
    let none = json_of(
        url,
        &[
            "get",
            "endpointslices",
            "-l",
            "kubernetes.io/service-name=manual",
        ],
    );
    assert_eq!(none["items"], serde_json::json!([]), "{none}");

    // A Service whose pods are all gone keeps an empty placeholder slice.
    kubectl_ok(
        url,
        &["delete", "pod", "named", "--wait=true", "--timeout=30s"],
    );
    let ep = eventually(url, &["get", "endpoints", "named"], "no subsets", |v| {
        v.get("subsets").is_none()
    })
    .await;
    assert_eq!(ep["metadata"]["name"], "named");
    eventually(
        url,
        &[
            "get",
            "endpointslices",
            "-l",
            "kubernetes.io/service-name=named",
        ],
        "a placeholder",
        |v| {
            let items = v["items"].as_array().unwrap();
            items.len() == 1 && items[0]["endpoints"].as_array().is_none_or(Vec::is_empty)
        },
    )
    .await;
}
