//! kube's aggregated discovery (`Discovery::run_aggregated`) against a real crd-server
//! ([`crd_server::TestServer`]): built-in kinds (ConfigMaps, Namespaces, Leases,
//! events.k8s.io Events) and a CRD's kind with its scope, verbs and subresources; a CRD
//! created, changed and deleted through the API shows in the next discovery; the ETag
//! answers 304 until the document changes. Run with
//! `cargo test -p crd-toolkit-examples --features kube --test discovery`.

use std::time::{Duration, Instant};

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::crontab::CronTab;
use http::{Request, StatusCode};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DeleteParams, PostParams};
use kube::client::Body;
use kube::core::GroupVersionKind;
use kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope};
use kube::{Api, Client};
use serde_json::json;

const V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

async fn discover(client: &Client) -> Discovery {
    Discovery::new(client.clone())
        .run_aggregated()
        .await
        .expect("aggregated discovery")
}

fn resolve(
    d: &Discovery,
    group: &str,
    version: &str,
    kind: &str,
) -> (ApiResource, ApiCapabilities) {
    d.resolve_gvk(&GroupVersionKind::gvk(group, version, kind))
        .unwrap_or_else(|| panic!("{group}/{version} {kind} is not discovered"))
}

/// The subresources' names, kinds and verbs.
fn subresources(caps: &ApiCapabilities) -> Vec<(String, String, Vec<String>)> {
    caps.subresources
        .iter()
        .map(|(ar, c)| (ar.plural.clone(), ar.kind.clone(), c.operations.clone()))
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

const BUILTIN_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
const CRD_VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_aggregated_finds_built_in_and_custom_kinds() {
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let client = server.client();
    let d = discover(&client).await;

    let (cm, caps) = resolve(&d, "", "v1", "ConfigMap");
    assert_eq!(
        (cm.plural.as_str(), cm.api_version.as_str()),
        ("configmaps", "v1")
    );
    assert_eq!(caps.scope, Scope::Namespaced);
    assert_eq!(caps.operations, strings(BUILTIN_VERBS));
    assert!(caps.subresources.is_empty());

    let (_, caps) = resolve(&d, "", "v1", "Namespace");
    assert_eq!(caps.scope, Scope::Cluster);
    let names: Vec<String> = subresources(&caps).into_iter().map(|s| s.0).collect();
    assert_eq!(names, ["finalize", "status"]);

    let (lease, caps) = resolve(&d, "coordination.k8s.io", "v1", "Lease");
    assert_eq!(lease.plural, "leases");
    assert_eq!(caps.scope, Scope::Namespaced);
    assert!(caps.supports_operation("watch"));

    let events = d.get("events.k8s.io").expect("events.k8s.io");
    assert_eq!(events.preferred_version(), Some("v1"));
    let (ev, caps) = events.recommended_kind("Event").expect("Event");
    assert_eq!(
        (ev.plural.as_str(), ev.api_version.as_str()),
        ("events", "events.k8s.io/v1")
    );
    assert_eq!(caps.scope, Scope::Namespaced);

    let (ct, caps) = resolve(&d, "stable.example.com", "v1", "CronTab");
    assert_eq!(ct.plural, "crontabs");
    assert_eq!(caps.scope, Scope::Namespaced);
    assert_eq!(caps.operations, strings(CRD_VERBS));
    let rw = strings(&["get", "patch", "update"]);
    assert_eq!(
        subresources(&caps),
        [
            ("status".to_string(), "CronTab".to_string(), rw.clone()),
            ("scale".to_string(), "Scale".to_string(), rw)
        ]
    );
}

fn widgets(with_v2: bool) -> CustomResourceDefinition {
    let schema = json!({"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}});
    let mut versions = vec![json!({"name": "v1", "served": true, "storage": true,
                                   "schema": schema, "subresources": {"status": {}}})];
    if with_v2 {
        versions.push(
            json!({"name": "v2", "served": true, "storage": false, "schema": schema,
            "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
                                       "statusReplicasPath": ".status.replicas"}}}),
        );
    }
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.acme.example.com"},
        "spec": {"group": "acme.example.com", "scope": "Cluster",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                           "shortNames": ["wd"]},
                 "versions": versions}
    }))
    .expect("CRD")
}

/// `GET /apis` for the aggregated document, with `If-None-Match` when given: the
/// status and the ETag.
async fn apis(client: &Client, if_none_match: Option<&str>) -> (StatusCode, String) {
    let mut req = Request::get("/apis").header(http::header::ACCEPT, V2);
    if let Some(tag) = if_none_match {
        req = req.header(http::header::IF_NONE_MATCH, tag);
    }
    let resp = client
        .send(req.body(Body::empty()).expect("request"))
        .await
        .expect("GET /apis");
    let tag = resp.headers()[http::header::ETAG]
        .to_str()
        .expect("etag")
        .to_string();
    if resp.status() == StatusCode::OK {
        assert_eq!(resp.headers()[http::header::CONTENT_TYPE], V2);
    }
    (resp.status(), tag)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_follows_crds_and_its_etag() {
    let server = TestServer::builder().start().await.expect("server");
    let client = server.client();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());

    let (code, before) = apis(&client, None).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(before.len(), 130, "a quoted SHA-512 in hex: {before}");
    assert_eq!(
        apis(&client, Some(&before)).await.0,
        StatusCode::NOT_MODIFIED
    );
    assert!(!discover(&client).await.has_group("acme.example.com"));

    // Created: discovered as soon as the create returns.
    crds.create(&PostParams::default(), &widgets(false))
        .await
        .expect("create CRD");
    let d = discover(&client).await;
    let (w, caps) = resolve(&d, "acme.example.com", "v1", "Widget");
    assert_eq!(w.plural, "widgets");
    assert_eq!(caps.scope, Scope::Cluster);
    assert_eq!(subresources(&caps).len(), 1);
    let (code, created) = apis(&client, Some(&before)).await;
    assert_eq!(code, StatusCode::OK);
    assert_ne!(created, before);

    // Changed: a second version, preferred by priority, with its own subresources.
    let mut current = crds.get("widgets.acme.example.com").await.expect("get CRD");
    current.spec = widgets(true).spec;
    crds.replace("widgets.acme.example.com", &PostParams::default(), &current)
        .await
        .expect("replace CRD");
    let d = discover(&client).await;
    let acme = d.get("acme.example.com").expect("acme.example.com");
    assert_eq!(acme.versions().collect::<Vec<_>>(), ["v2", "v1"]);
    assert_eq!(acme.preferred_version(), Some("v2"));
    let (_, caps) = resolve(&d, "acme.example.com", "v2", "Widget");
    let subs = subresources(&caps);
    assert_eq!((subs[0].0.as_str(), subs[0].1.as_str()), ("scale", "Scale"));
    assert_eq!(apis(&client, Some(&created)).await.0, StatusCode::OK);

    // Deleted: gone once the CRD is (its instances are cleaned up first).
    crds.delete("widgets.acme.example.com", &DeleteParams::default())
        .await
        .expect("delete CRD");
    let deadline = Instant::now() + Duration::from_secs(10);
    while discover(&client).await.has_group("acme.example.com") {
        assert!(
            Instant::now() < deadline,
            "the deleted CRD is still discovered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (code, after) = apis(&client, Some(&created)).await;
    assert_eq!((code, after), (StatusCode::OK, before));
}
