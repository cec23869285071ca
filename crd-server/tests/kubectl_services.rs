//! Services with the real kubectl (the other kinds are in `kubectl_kinds.rs`): every
//! Service type applied (cluster IPs and node ports in their
//! ranges, headless `None`), `kubectl get` columns, the `kubernetes` Service, refusals
//! in kube-apiserver's words; concurrent creates (one server, and two servers on one
//! etcd) never share an address; allocations survive a restart.

mod support;

use std::collections::HashSet;
use std::net::Ipv4Addr;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use support::{header, json_of, kubectl_err, kubectl_ok, row, write};

/// Whether `ip` is a usable address of `cidr` (neither its network nor its broadcast).
fn in_range(ip: &str, cidr: &str) -> bool {
    let ip = u32::from(ip.parse::<Ipv4Addr>().expect("an IPv4 cluster IP"));
    let (net, bits) = cidr.split_once('/').expect("a CIDR");
    let net = u32::from(net.parse::<Ipv4Addr>().expect("an IPv4 network"));
    let mask = u32::MAX << (32 - bits.parse::<u32>().expect("a prefix length"));
    ip & mask == net && ip != net && ip != net | !mask
}

const SERVICES: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: np}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{name: http, port: 80}, {name: https, port: 443, nodePort: 30443}]
---
apiVersion: v1
kind: Service
metadata: {name: headless}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec:
  type: LoadBalancer
  ports: [{port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec:
  type: ExternalName
  externalName: db.example.com
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_with_kubectl() {
    let server = crd_server::TestServer::builder()
        .start()
        .await
        .expect("server");
    let url = server.url();
    let port = server.addr().port();
    tokio::task::spawn_blocking(move || services_walk(&url, port))
        .await
        .expect("walk");
}

fn services_walk(url: &str, port: u16) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();

    // The apiserver's own Service, first address of 10.96.0.0/12, onto the server's port.
    let k = json_of(url, &["get", "svc", "kubernetes"]);
    assert_eq!(k["spec"]["clusterIP"], "10.96.0.1");
    assert_eq!(
        k["spec"]["ports"],
        json!([{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}])
    );
    let ep = json_of(url, &["get", "endpoints", "kubernetes"]);
    assert_eq!(ep["subsets"][0]["ports"][0]["port"], port);

    let out = kubectl_ok(url, &["apply", "-f", &write(dir, "svc.yaml", SERVICES)]);
    assert_eq!(
        out.trim(),
        "service/web created\nservice/np created\nservice/headless created\nservice/lb created\nservice/ext created"
    );
    let web = json_of(url, &["get", "svc", "web"]);
    let ip = web["spec"]["clusterIP"].as_str().unwrap().to_string();
    assert!(in_range(&ip, "10.96.0.0/12"), "{ip}");
    assert_ne!(ip, "10.96.0.1");
    assert_eq!(web["spec"]["clusterIPs"], json!([ip]));
    assert_eq!(web["spec"]["type"], "ClusterIP");
    assert_eq!(web["spec"]["sessionAffinity"], "None");
    assert_eq!(web["spec"]["ipFamilies"], json!(["IPv4"]));
    assert_eq!(web["spec"]["ipFamilyPolicy"], "SingleStack");
    assert_eq!(web["spec"]["internalTrafficPolicy"], "Cluster");
    assert_eq!(
        web["spec"]["ports"],
        json!([{"port": 80, "protocol": "TCP", "targetPort": 8080}])
    );
    assert_eq!(web["status"], json!({"loadBalancer": {}}));

    let np = json_of(url, &["get", "svc", "np"]);
    let node_port = np["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&node_port), "{node_port}");
    assert_eq!(np["spec"]["ports"][1]["nodePort"], 30443);
    assert_eq!(np["spec"]["externalTrafficPolicy"], "Cluster");
    let headless = json_of(url, &["get", "svc", "headless"]);
    assert_eq!(headless["spec"]["clusterIP"], "None");
    assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
    let lb = json_of(url, &["get", "svc", "lb"]);
    assert_eq!(lb["spec"]["allocateLoadBalancerNodePorts"], true);
    assert!(lb["spec"]["ports"][0]["nodePort"].as_i64().is_some());
    let ext = json_of(url, &["get", "svc", "ext"]);
    assert!(ext["spec"].get("clusterIP").is_none(), "{ext}");

    let out = kubectl_ok(url, &["get", "svc"]);
    assert_eq!(
        header(&out),
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    let r = row(&out, "web");
    assert_eq!(r[1..5], ["ClusterIP", &ip, "<none>", "80/TCP"]);
    let r = row(&out, "np");
    assert_eq!(r[4], format!("80:{node_port}/TCP,443:30443/TCP"), "{out}");
    assert_eq!(row(&out, "headless")[2], "None");
    assert_eq!(row(&out, "lb")[3], "<pending>");
    assert_eq!(row(&out, "ext")[2..4], ["<none>", "db.example.com"]);
    let wide = kubectl_ok(url, &["get", "svc", "-o", "wide"]);
    assert_eq!(header(&wide).last().unwrap(), "SELECTOR");
    assert_eq!(row(&wide, "web").last().unwrap(), "app=web");
    let by_type = kubectl_ok(
        url,
        &[
            "get",
            "svc",
            "--field-selector",
            "spec.type=NodePort",
            "-o",
            "name",
        ],
    );
    assert_eq!(by_type.trim(), "service/np");

    // Refusals, as kube-apiserver words them.
    let bad = "apiVersion: v1\nkind: Service\nmetadata: {name: bad}\nspec:\n  ports: [{port: 80, name: a}, {port: 70000, name: a}]\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "bad.yaml", bad)]);
    assert!(
        err.contains("The Service \"bad\" is invalid: \n* spec.ports[1].name: Duplicate value: \"a\"\n* spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive"),
        "{err}"
    );
    let no_ports =
        "apiVersion: v1\nkind: Service\nmetadata: {name: empty}\nspec: {selector: {a: b}}\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "np.yaml", no_ports)]);
    assert!(
        err.contains("The Service \"empty\" is invalid: spec.ports: Required value"),
        "{err}"
    );
    let taken = format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: taken}}\nspec:\n  clusterIP: {ip}\n  ports: [{{port: 80}}]\n"
    );
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "taken.yaml", &taken)]);
    assert!(
        err.contains(&format!("The Service \"taken\" is invalid: spec.clusterIPs: Invalid value: []string{{\"{ip}\"}}: failed to allocate IP {ip}: provided IP is already allocated")),
        "{err}"
    );
    let port_taken = "apiVersion: v1\nkind: Service\nmetadata: {name: np2}\nspec:\n  type: NodePort\n  ports: [{port: 80, nodePort: 30443}]\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "np2.yaml", port_taken)]);
    assert!(
        err.contains("The Service \"np2\" is invalid: spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated"),
        "{err}"
    );
    let port_out = "apiVersion: v1\nkind: Service\nmetadata: {name: np3}\nspec:\n  type: NodePort\n  ports: [{port: 80, nodePort: 8080}]\n";
    let err = kubectl_err(url, &["apply", "-f", &write(dir, "np3.yaml", port_out)]);
    assert!(
        err.contains("spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767"),
        "{err}"
    );
    let err = kubectl_err(
        url,
        &[
            "patch",
            "svc",
            "web",
            "--type=merge",
            "-p",
            r#"{"spec":{"clusterIP":"10.96.0.200"}}"#,
        ],
    );
    assert!(
        err.contains("The Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.200\"}: field is immutable"),
        "{err}"
    );

    // NodePort → ClusterIP frees the node ports; delete frees the address: both can be
    // taken again at once.
    kubectl_ok(
        url,
        &[
            "patch",
            "svc",
            "np",
            "--type=merge",
            "-p",
            r#"{"spec":{"type":"ClusterIP"}}"#,
        ],
    );
    let np = json_of(url, &["get", "svc", "np"]);
    assert!(np["spec"]["ports"][1].get("nodePort").is_none(), "{np}");
    kubectl_ok(url, &["apply", "-f", &write(dir, "np2.yaml", port_taken)]);
    kubectl_ok(url, &["delete", "svc", "web"]);
    kubectl_ok(url, &["apply", "-f", &write(dir, "taken.yaml", &taken)]);
    assert_eq!(
        json_of(url, &["get", "svc", "taken"])["spec"]["clusterIP"],
        ip.as_str()
    );
}

/// POSTs `n` Services at once to each base URL; their cluster IPs.
async fn concurrent_creates(bases: &[String], n: usize) -> Vec<String> {
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut tasks = Vec::new();
    for (b, base) in bases.iter().enumerate() {
        for i in 0..n {
            let client = client.clone();
            let uri = format!("{base}/api/v1/namespaces/default/services");
            let body = json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": format!("c{b}-{i}")},
                "spec": {"ports": [{"port": 80}], "type": "NodePort"}});
            tasks.push(tokio::spawn(async move {
                let req = http::Request::builder()
                    .method(Method::POST)
                    .uri(uri)
                    .header("content-type", "application/json")
                    .body(Full::new(Bytes::from(body.to_string())))
                    .unwrap();
                let resp = tokio::time::timeout(Duration::from_secs(20), client.request(req))
                    .await
                    .expect("an answer within 20 s")
                    .expect("answered");
                let status = resp.status();
                let bytes = resp.into_body().collect().await.unwrap().to_bytes();
                let v: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(status, StatusCode::CREATED, "{v}");
                (
                    v["spec"]["clusterIP"].as_str().unwrap().to_string(),
                    v["spec"]["ports"][0]["nodePort"].as_i64().unwrap(),
                )
            }));
        }
    }
    let mut ips = Vec::new();
    let mut ports = HashSet::new();
    for t in tasks {
        let (ip, port) = t.await.unwrap();
        assert!(ports.insert(port), "node port {port} given twice");
        ips.push(ip);
    }
    ips
}

fn assert_distinct(ips: &[String], cidr: &str) {
    let set: HashSet<&String> = ips.iter().collect();
    assert_eq!(set.len(), ips.len(), "an address given twice: {ips:?}");
    for ip in ips {
        assert!(in_range(ip, cidr), "{ip}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creates_get_distinct_addresses() {
    // A /26: 62 addresses, the kubernetes Service holds one; 40 creates at once.
    let server = crd_server::TestServer::builder()
        .service_cluster_ip_range("10.96.0.0/26")
        .service_node_port_range("31000-31099")
        .start()
        .await
        .expect("server");
    let ips = concurrent_creates(&[server.url()], 40).await;
    assert_distinct(&ips, "10.96.0.0/26");
    assert!(!ips.contains(&"10.96.0.1".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_etcd_never_share_an_address() {
    let etcd = support::Etcd::start().await;
    let start = || {
        crd_server::start(crd_server::Config {
            listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            store: crd_server::StoreConfig::Etcd(vec![etcd.url.clone()]),
            service_cluster_ip_range: "10.97.0.0/26".into(),
            ..crd_server::Config::default()
        })
    };
    let a = start().await.expect("first server");
    let b = start().await.expect("second server");
    let ips = concurrent_creates(&[a.url(), b.url()], 20).await;
    assert_distinct(&ips, "10.97.0.0/26");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allocations_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = || crd_server::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        store: crd_server::StoreConfig::DataDir(dir.path().to_path_buf()),
        ..crd_server::Config::default()
    };
    let first = crd_server::start(config()).await.expect("server");
    let url = first.url();
    // kubectl's connections close with it: nothing keeps the first server's store open.
    let taken = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let svc =
            "apiVersion: v1\nkind: Service\nmetadata: {name: kept}\nspec:\n  ports: [{port: 80}]\n";
        kubectl_ok(&url, &["apply", "-f", &write(dir.path(), "kept.yaml", svc)]);
        json_of(&url, &["get", "svc", "kept"])["spec"]["clusterIP"]
            .as_str()
            .unwrap()
            .to_string()
    })
    .await
    .expect("before the restart");
    first.stop();
    // The stopped server lets go of its data directory shortly after.
    let mut second = None;
    for _ in 0..50 {
        match crd_server::start(config()).await {
            Ok(s) => {
                second = Some(s);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let second = second.expect("restarted server within 5 s");
    let url = second.url();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let svc = format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: again}}\nspec:\n  clusterIP: {taken}\n  ports: [{{port: 80}}]\n"
        );
        let err = kubectl_err(&url, &["apply", "-f", &write(dir.path(), "again.yaml", &svc)]);
        assert!(err.contains("provided IP is already allocated"), "{err}");
        let k = json_of(&url, &["get", "svc", "kubernetes"]);
        assert_eq!(k["spec"]["clusterIP"], "10.96.0.1");
    })
    .await
    .expect("after the restart");
}
