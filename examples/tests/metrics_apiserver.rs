//! The metrics aggregated API server (`crd_toolkit_examples::metrics_api`) in process,
//! reading Nodes from a crd-server with RBAC on and called directly over HTTPS as the
//! aggregator calls it: a front-proxy client certificate and `X-Remote-*` headers.
//! Checked: discovery and OpenAPI, list, get, the Table kubectl asks for, 404, 405,
//! 401 without a certificate and with a CommonName not allowed, 403 from the
//! cluster's SubjectAccessReview.
//! Run with `cargo test -p crd-toolkit-examples --test metrics_apiserver`.

use std::sync::Arc;

use crd_server::TestServer;
use crd_toolkit_examples::metrics_api;
use crd_webhook::aggregated::RequestHeaderAuth;
use crd_webhook::{RunningWebhook, WebhookConfig, WebhookTls};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use serde_json::{Value, json};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

const BASE: &str = "/apis/metrics.example.com/v1";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// The front proxy's CA (what the aggregator's client certificate is signed by).
struct FrontProxy {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl FrontProxy {
    fn new() -> Self {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "front-proxy-ca");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).unwrap();
        FrontProxy {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A client certificate with CommonName `cn`.
    fn client(&self, cn: &str) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        (cert.der().clone(), key)
    }
}

struct Metrics {
    server: RunningWebhook,
    ca_pem: String,
}

/// Who calls: the proxy's certificate (if any) and the user it names.
struct Caller<'a> {
    cert: Option<(CertificateDer<'static>, PrivateKeyDer<'static>)>,
    user: &'a str,
    groups: &'a [&'a str],
}

impl Metrics {
    async fn call(&self, method: &str, path: &str, accept: &str, who: Caller<'_>) -> (u16, Value) {
        let mut roots = rustls::RootCertStore::empty();
        for c in rustls_pemfile::certs(&mut self.ca_pem.as_bytes()) {
            roots.add(c.unwrap()).unwrap();
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots);
        let config = match who.cert {
            Some((c, k)) => builder.with_client_auth_cert(vec![c], k).unwrap(),
            None => builder.with_no_client_auth(),
        };
        let tcp = tokio::net::TcpStream::connect(self.server.addr())
            .await
            .unwrap();
        // The name the aggregator verifies the Service's certificate as.
        let name = rustls::pki_types::ServerName::try_from("metrics.default.svc").unwrap();
        let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .expect("TLS handshake");
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
                .await
                .unwrap();
        tokio::spawn(conn);
        let mut request = http::Request::builder()
            .method(method)
            .uri(path)
            .header("host", "metrics.default.svc")
            .header("accept", accept)
            .header("X-Remote-User", who.user);
        for g in who.groups {
            request = request.header("X-Remote-Group", *g);
        }
        let response = sender
            .send_request(request.body(Full::new(Bytes::new())).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let value = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: not JSON ({e}): {}",
                String::from_utf8_lossy(&body)
            )
        });
        (status, value)
    }
}

fn node(name: &str) -> Node {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}))
        .unwrap()
}

const READER_RBAC: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nodemetrics-reader}
rules:
- apiGroups: [metrics.example.com]
  resources: [nodemetrics]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bob-reads-nodemetrics}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nodemetrics-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_server_answers_as_an_aggregated_api_server() {
    let cluster = TestServer::builder().rbac().start().await.expect("server");
    let nodes: Api<Node> = Api::all(cluster.client());
    for (name, cpu, memory) in [("node-a", "4", "8Gi"), ("node-b", "2", "4Gi")] {
        nodes
            .create(&PostParams::default(), &node(name))
            .await
            .expect("node");
        // A Node's status is its kubelet's: written through the subresource.
        let status = json!({"status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"}}});
        nodes
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
            .await
            .expect("node status");
    }
    cluster.apply_yaml(READER_RBAC).await.expect("bob's role");

    let front = FrontProxy::new();
    let auth = RequestHeaderAuth::new(front.pem.clone()).with_allowed_names(["aggregator"]);
    let config = WebhookConfig {
        listen: ([127, 0, 0, 1], 0).into(),
        tls: WebhookTls::SelfSignedFor(vec!["metrics.default.svc".into()]),
    };
    let server = metrics_api::serve(cluster.client(), auth, config)
        .await
        .expect("serves");
    let metrics = Metrics {
        ca_pem: server.ca_pem().expect("self-signed").to_string(),
        server,
    };
    let proxy = || Some(front.client("aggregator"));
    let admin = || Caller {
        cert: proxy(),
        user: "system:kube-aggregator",
        groups: &["system:masters"],
    };
    let bob = || Caller {
        cert: proxy(),
        user: "bob",
        groups: &[],
    };
    let alice = || Caller {
        cert: proxy(),
        user: "alice",
        groups: &["dev"],
    };
    let json = "application/json";

    // What kube-aggregator's availability check asks for.
    let (code, list) = metrics.call("GET", BASE, json, admin()).await;
    assert_eq!(code, 200, "{list}");
    assert_eq!(list["kind"], "APIResourceList");
    assert_eq!(
        list["resources"][0],
        json!({"name": "nodemetrics", "singularName": "nodemetrics", "namespaced": false,
               "kind": "NodeMetrics", "verbs": ["get", "list"], "shortNames": ["nm"]})
    );
    let (code, groups) = metrics.call("GET", "/apis", json, admin()).await;
    assert_eq!(
        (code, &groups["groups"][0]["name"]),
        (200, &json!("metrics.example.com"))
    );
    let (_, group) = metrics
        .call("GET", "/apis/metrics.example.com", json, admin())
        .await;
    assert_eq!(
        group["preferredVersion"]["groupVersion"],
        "metrics.example.com/v1"
    );
    let (_, v2) = metrics.call("GET", "/openapi/v2", json, admin()).await;
    assert!(v2["definitions"]["com.example.metrics.v1.NodeMetrics"].is_object());
    let (_, index) = metrics.call("GET", "/openapi/v3", json, admin()).await;
    let url = index["paths"]["apis/metrics.example.com/v1"]["serverRelativeURL"]
        .as_str()
        .expect("the group-version's URL");
    assert!(
        url.starts_with("/openapi/v3/apis/metrics.example.com/v1?hash="),
        "{url}"
    );
    let (code, v3) = metrics.call("GET", url, json, admin()).await;
    assert_eq!(code, 200);
    assert_eq!(
        v3["components"]["schemas"]["com.example.metrics.v1.NodeMetrics"]["x-kubernetes-group-version-kind"],
        json!([{"group": "metrics.example.com", "version": "v1", "kind": "NodeMetrics"}])
    );

    // List and get, as bob (whom RBAC lets read them).
    let (code, list) = metrics
        .call(
            "GET",
            &format!("{BASE}/nodemetrics?limit=500&foo=bar"),
            json,
            bob(),
        )
        .await;
    assert_eq!(code, 200, "{list}");
    assert_eq!(list["kind"], "NodeMetricsList");
    assert!(
        list["metadata"]["resourceVersion"]
            .as_str()
            .is_some_and(|rv| !rv.is_empty()),
        "{list}"
    );
    let usage: Vec<(&str, &Value)> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["metadata"]["name"].as_str().unwrap(), &m["usage"]))
        .collect();
    assert_eq!(
        usage,
        [
            ("node-a", &json!({"cpu": "1000m", "memory": "2097152Ki"})),
            ("node-b", &json!({"cpu": "500m", "memory": "1048576Ki"})),
        ]
    );
    let (code, one) = metrics
        .call("GET", &format!("{BASE}/nodemetrics/node-b"), json, bob())
        .await;
    assert_eq!(code, 200, "{one}");
    assert_eq!(
        (&one["kind"], &one["window"]),
        (&json!("NodeMetrics"), &json!("30s"))
    );
    assert_eq!(one["timestamp"], one["metadata"]["creationTimestamp"]);

    // The Table `kubectl get` asks for.
    let (code, table) = metrics
        .call("GET", &format!("{BASE}/nodemetrics"), TABLE, bob())
        .await;
    assert_eq!((code, &table["kind"]), (200, &json!("Table")), "{table}");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["Name", "CPU", "Memory", "Window"]);
    assert_eq!(
        table["rows"][0]["cells"],
        json!(["node-a", "1000m", "2097152Ki", "30s"])
    );
    assert_eq!(table["rows"][1]["object"]["metadata"]["name"], "node-b");

    // Errors, each a Status.
    let (code, status) = metrics
        .call("GET", &format!("{BASE}/nodemetrics/x"), json, bob())
        .await;
    assert_eq!(code, 404);
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": "nodemetrics.metrics.example.com \"x\" not found", "reason": "NotFound",
               "details": {"name": "x", "group": "metrics.example.com", "kind": "nodemetrics"},
               "code": 404})
    );
    for method in ["POST", "PUT", "PATCH", "DELETE"] {
        let (code, status) = metrics
            .call(method, &format!("{BASE}/nodemetrics/node-a"), json, admin())
            .await;
        assert_eq!(
            (code, &status["reason"]),
            (405, &json!("MethodNotAllowed")),
            "{method}"
        );
        assert_eq!(
            status["message"],
            "the server does not allow this method on the requested resource"
        );
    }
    let (code, _) = metrics
        .call("POST", &format!("{BASE}/nodemetrics"), json, admin())
        .await;
    assert_eq!(code, 405);

    let unauthorized = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                              "message": "Unauthorized", "reason": "Unauthorized", "code": 401});
    let no_cert = Caller {
        cert: None,
        user: "system:admin",
        groups: &["system:masters"],
    };
    assert_eq!(
        metrics.call("GET", BASE, json, no_cert).await,
        (401, unauthorized.clone())
    );
    let wrong_cn = Caller {
        cert: Some(front.client("not-the-aggregator")),
        user: "bob",
        groups: &[],
    };
    assert_eq!(
        metrics
            .call("GET", &format!("{BASE}/nodemetrics"), json, wrong_cn)
            .await,
        (401, unauthorized)
    );

    // The cluster refuses alice, in kube-apiserver's words.
    let (code, status) = metrics
        .call("GET", &format!("{BASE}/nodemetrics"), json, alice())
        .await;
    assert_eq!(
        (code, &status["reason"]),
        (403, &json!("Forbidden")),
        "{status}"
    );
    assert_eq!(
        status["message"],
        r#"nodemetrics.metrics.example.com is forbidden: User "alice" cannot list resource "nodemetrics" in API group "metrics.example.com" at the cluster scope"#
    );
    let (code, status) = metrics
        .call("GET", &format!("{BASE}/nodemetrics/node-a"), json, alice())
        .await;
    assert_eq!(code, 403);
    assert_eq!(
        status["details"],
        json!({"name": "node-a", "group": "metrics.example.com", "kind": "nodemetrics"})
    );

    // `--register`: the Service, Endpoints and APIService that route the group here,
    // twice (the second an update).
    let registration = metrics_api::register::Registration {
        namespace: "default".into(),
        name: "metrics".into(),
        port: metrics.server.addr().port(),
        ca_pem: metrics.ca_pem.clone(),
    };
    for _ in 0..2 {
        metrics_api::register::register(&cluster.client(), &registration)
            .await
            .expect("registered");
    }
    let gvk = kube::api::GroupVersionKind::gvk("apiregistration.k8s.io", "v1", "APIService");
    let resource = kube::api::ApiResource::from_gvk_with_plural(&gvk, "apiservices");
    let api_service = Api::<kube::api::DynamicObject>::all_with(cluster.client(), &resource)
        .get("v1.metrics.example.com")
        .await
        .expect("the APIService");
    assert_eq!(
        api_service.data["spec"]["service"],
        json!({"namespace": "default", "name": "metrics", "port": registration.port})
    );
}
