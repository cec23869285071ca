//! `kube::Api<CronTab>` against an in-process mock API server (kube's documented
//! `tower_test::mock` approach): the exact requests the derived type makes, and the
//! decoding of realistic responses. Run with `cargo test -p crd-toolkit-examples --features kube`.

use crd_runtime::{CustomResourceExt, ErrorType};
use crd_toolkit_examples::crontab::{CronTab, CronTabSpec, CronTabStatus};
use futures::TryStreamExt;
use http::header::CONTENT_TYPE;
use http::{Method, Request, Response};
use k8s_openapi::api::autoscaling::v1::Scale;
use kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::client::Body;
use kube::core::object::{HasSpec, HasStatus};
use kube::{Api, Client, Resource};
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tower_test::mock::{self, Handle};

type MockHandle = Handle<Request<Body>, Response<Body>>;

/// What the mock server saw.
#[derive(Debug)]
struct Seen {
    method: Method,
    uri: String,
    content_type: Option<String>,
    body: Option<Value>,
}

fn api() -> (Api<CronTab>, MockHandle) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    (Api::namespaced(client, "jobs"), handle)
}

/// Answers exactly one request with `status` and the JSON `reply`.
fn serve(handle: MockHandle, status: u16, reply: Value) -> JoinHandle<Seen> {
    serve_bytes(handle, status, serde_json::to_vec(&reply).unwrap())
}

/// Answers exactly one request with `status` and `reply` as a JSON body (for a watch,
/// one JSON event per line).
fn serve_bytes(mut handle: MockHandle, status: u16, reply: Vec<u8>) -> JoinHandle<Seen> {
    tokio::spawn(async move {
        let (request, respond) = handle.next_request().await.expect("no request was sent");
        let (parts, body) = request.into_parts();
        let bytes = body.collect_bytes().await.expect("request body");
        let body = (!bytes.is_empty())
            .then(|| serde_json::from_slice(&bytes).expect("request body is not JSON"));
        let response = Response::builder()
            .status(status)
            .header(CONTENT_TYPE, "application/json")
            .body(Body::from(reply))
            .unwrap();
        respond.send_response(response);
        Seen {
            method: parts.method,
            uri: parts.uri.to_string(),
            content_type: parts
                .headers
                .get(CONTENT_TYPE)
                .map(|v| v.to_str().unwrap().to_string()),
            body,
        }
    })
}

const BASE: &str = "/apis/stable.example.com/v1/namespaces/jobs/crontabs";

fn spec() -> CronTabSpec {
    CronTabSpec {
        cron_spec: "0 3 * * *".into(),
        image: Some("busybox".into()),
        replicas: 2,
    }
}

/// A CronTab as the API server returns it: server-set metadata included.
fn stored(status: Option<Value>) -> Value {
    let mut v = json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {
            "name": "daily", "namespace": "jobs",
            "uid": "6c7d8b1e-3f1a-4a1e-9a52-1f0b5b0f2a11",
            "resourceVersion": "184467", "generation": 1,
            "creationTimestamp": "2024-05-01T10:00:00Z"
        },
        "spec": {"cronSpec": "0 3 * * *", "image": "busybox", "replicas": 2}
    });
    if let Some(s) = status {
        v["status"] = s;
    }
    v
}

#[tokio::test]
async fn create_posts_the_object_to_the_collection() {
    let (api, handle) = api();
    let server = serve(handle, 201, stored(None));
    let mut ct = CronTab::new("daily", spec());
    ct.metadata.namespace = Some("jobs".into());
    let created = api.create(&PostParams::default(), &ct).await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::POST);
    assert_eq!(seen.uri, format!("{BASE}?"));
    assert_eq!(seen.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        seen.body.unwrap(),
        json!({
            "apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "daily", "namespace": "jobs"},
            "spec": {"cronSpec": "0 3 * * *", "image": "busybox", "replicas": 2}
        })
    );
    assert_eq!(created.metadata.resource_version.as_deref(), Some("184467"));
    assert_eq!(
        created.metadata.creation_timestamp.unwrap().0.to_string(),
        "2024-05-01T10:00:00Z"
    );
    assert_eq!(created.spec, spec());
    // The path kube used is the one crd-runtime computes.
    assert_eq!(CronTab::collection_path(Some("jobs")).unwrap(), BASE);
}

#[tokio::test]
async fn get_reads_one_object() {
    let (api, handle) = api();
    let status = json!({"replicas": 2, "labelSelector": "crontab=daily"});
    let server = serve(handle, 200, stored(Some(status)));
    let ct = api.get("daily").await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(
        (seen.method, seen.uri.as_str()),
        (Method::GET, &*format!("{BASE}/daily"))
    );
    assert_eq!(seen.body, None);
    assert_eq!(
        ct.status().unwrap().label_selector.as_deref(),
        Some("crontab=daily")
    );
    assert_eq!(ct.spec().replicas, 2);
    assert_eq!(
        ct.meta().uid.as_deref(),
        Some("6c7d8b1e-3f1a-4a1e-9a52-1f0b5b0f2a11")
    );
}

#[tokio::test]
async fn list_sends_selectors_and_decodes_a_list_response() {
    let (api, handle) = api();
    let mut second = stored(None);
    second["metadata"]["name"] = json!("hourly");
    second["spec"]["cronSpec"] = json!("0 * * * *");
    let reply = json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTabList",
        "metadata": {"resourceVersion": "184470", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "remainingItemCount": 3},
        "items": [stored(Some(json!({"replicas": 2}))), second]
    });
    let server = serve(handle, 200, reply);
    let lp = ListParams::default().labels("app=cron").limit(2);
    let list = api.list(&lp).await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::GET);
    assert_eq!(
        seen.uri,
        format!("{BASE}?&labelSelector=app%3Dcron&limit=2")
    );
    assert_eq!(list.metadata.resource_version.as_deref(), Some("184470"));
    assert_eq!(
        list.metadata.continue_.as_deref(),
        Some("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ")
    );
    let names: Vec<String> = list
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["daily", "hourly"]);
    assert_eq!(
        list.items[0].status,
        Some(CronTabStatus {
            replicas: Some(2),
            label_selector: None
        })
    );
}

#[tokio::test]
async fn replace_status_puts_the_object_to_the_status_subresource() {
    let (api, handle) = api();
    let status = json!({"replicas": 2, "labelSelector": "crontab=daily"});
    let server = serve(handle, 200, stored(Some(status.clone())));
    let mut ct: CronTab = serde_json::from_value(stored(None)).unwrap();
    *ct.status_mut() = Some(CronTabStatus {
        replicas: Some(2),
        label_selector: Some("crontab=daily".into()),
    });
    let updated = api
        .replace_status("daily", &PostParams::default(), &ct)
        .await
        .unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::PUT);
    assert_eq!(seen.uri, format!("{BASE}/daily/status?"));
    assert_eq!(
        CronTab::status_path(Some("jobs"), "daily").unwrap(),
        format!("{BASE}/daily/status")
    );
    assert_eq!(seen.body.unwrap(), stored(Some(status)));
    assert_eq!(updated.status.unwrap().replicas, Some(2));
}

#[tokio::test]
async fn patch_scale_merges_replicas_into_the_scale_subresource() {
    let (api, handle) = api();
    let reply = json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": "daily", "namespace": "jobs", "uid": "6c7d8b1e-3f1a-4a1e-9a52-1f0b5b0f2a11", "resourceVersion": "184471"},
        "spec": {"replicas": 5},
        "status": {"replicas": 2, "selector": "crontab=daily"}
    });
    let server = serve(handle, 200, reply);
    let patch = Patch::Merge(json!({"spec": {"replicas": 5}}));
    let scale: Scale = api
        .patch_scale("daily", &PatchParams::default(), &patch)
        .await
        .unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::PATCH);
    assert_eq!(seen.uri, format!("{BASE}/daily/scale?"));
    assert_eq!(
        CronTab::scale_path(Some("jobs"), "daily").unwrap(),
        format!("{BASE}/daily/scale")
    );
    assert_eq!(
        seen.content_type.as_deref(),
        Some("application/merge-patch+json")
    );
    assert_eq!(seen.body.unwrap(), json!({"spec": {"replicas": 5}}));
    assert_eq!(scale.spec.unwrap().replicas, Some(5));
    assert_eq!(
        scale.status.unwrap().selector.as_deref(),
        Some("crontab=daily")
    );
}

#[tokio::test]
async fn delete_sends_options_and_reads_the_deleted_object() {
    let (api, handle) = api();
    let mut deleting = stored(None);
    deleting["metadata"]["deletionTimestamp"] = json!("2024-05-02T08:00:00Z");
    deleting["metadata"]["finalizers"] = json!(["stable.example.com/cleanup"]);
    let server = serve(handle, 200, deleting);
    let dp = DeleteParams::foreground();
    let result = api.delete("daily", &dp).await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::DELETE);
    assert_eq!(seen.uri, format!("{BASE}/daily?"));
    assert_eq!(
        seen.body.unwrap(),
        json!({"propagationPolicy": "Foreground"})
    );
    let obj = result.left().expect("the object, still finalizing");
    assert!(obj.metadata.deletion_timestamp.is_some());
}

#[tokio::test]
async fn patch_applies_server_side_with_a_field_manager() {
    let (api, handle) = api();
    let server = serve(handle, 200, stored(None));
    let mut desired = CronTab::new("daily", spec());
    desired.metadata.namespace = Some("jobs".into());
    let pp = PatchParams::apply("crd-toolkit").force();
    let patched = api
        .patch("daily", &pp, &Patch::Apply(&desired))
        .await
        .unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::PATCH);
    assert_eq!(
        seen.uri,
        format!("{BASE}/daily?&force=true&fieldManager=crd-toolkit")
    );
    assert_eq!(
        seen.content_type.as_deref(),
        Some("application/apply-patch+yaml")
    );
    assert_eq!(seen.body.unwrap(), serde_json::to_value(&desired).unwrap());
    assert_eq!(patched.metadata.generation, Some(1));
}

#[tokio::test]
async fn watch_streams_typed_events() {
    let (api, handle) = api();
    let mut modified = stored(Some(json!({"replicas": 2})));
    modified["metadata"]["resourceVersion"] = json!("184480");
    let mut deleted = stored(None);
    deleted["metadata"]["resourceVersion"] = json!("184481");
    let bookmark = json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab",
        "metadata": {"resourceVersion": "184490",
                     "annotations": {"k8s.io/initial-events-end": "true"}}
    });
    let mut lines = Vec::new();
    for (kind, object) in [
        ("ADDED", stored(None)),
        ("MODIFIED", modified),
        ("DELETED", deleted),
        ("BOOKMARK", bookmark),
    ] {
        serde_json::to_writer(&mut lines, &json!({"type": kind, "object": object})).unwrap();
        lines.push(b'\n');
    }
    let server = serve_bytes(handle, 200, lines);
    let wp = WatchParams::default().labels("app=cron");
    let stream = api.watch(&wp, "184467").await.unwrap();
    let events: Vec<WatchEvent<CronTab>> = stream.try_collect().await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.method, Method::GET);
    assert_eq!(
        seen.uri,
        format!(
            "{BASE}?&watch=true&timeoutSeconds=290&labelSelector=app%3Dcron\
             &allowWatchBookmarks=true&resourceVersion=184467"
        )
    );
    let summary: Vec<(&str, String)> = events
        .iter()
        .map(|e| match e {
            WatchEvent::Added(c) => ("ADDED", c.metadata.resource_version.clone().unwrap()),
            WatchEvent::Modified(c) => ("MODIFIED", c.metadata.resource_version.clone().unwrap()),
            WatchEvent::Deleted(c) => ("DELETED", c.metadata.resource_version.clone().unwrap()),
            WatchEvent::Bookmark(b) => ("BOOKMARK", b.metadata.resource_version.clone()),
            WatchEvent::Error(e) => panic!("unexpected error event {e:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("ADDED", "184467".to_string()),
            ("MODIFIED", "184480".to_string()),
            ("DELETED", "184481".to_string()),
            ("BOOKMARK", "184490".to_string()),
        ]
    );
    let WatchEvent::Modified(c) = &events[1] else {
        unreachable!()
    };
    assert_eq!(c.status.as_ref().unwrap().replicas, Some(2));
}

#[tokio::test]
async fn status_errors_become_kube_api_errors() {
    let (api, handle) = api();
    let reply = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure",
        "message": "crontabs.stable.example.com \"nightly\" not found",
        "reason": "NotFound",
        "details": {"name": "nightly", "group": "stable.example.com", "kind": "crontabs"},
        "code": 404
    });
    let server = serve(handle, 404, reply);
    let err = api.get("nightly").await.unwrap_err();
    let seen = server.await.unwrap();
    assert_eq!(seen.uri, format!("{BASE}/nightly"));
    let kube::Error::Api(status) = err else {
        panic!("expected kube::Error::Api, got {err:?}");
    };
    assert_eq!(status.code, 404);
    assert_eq!(status.reason, "NotFound");
    assert_eq!(
        status.message,
        "crontabs.stable.example.com \"nightly\" not found"
    );
    assert!(status.is_not_found());
    let details = status.details.unwrap();
    assert_eq!(
        (details.name.as_str(), details.kind.as_str()),
        ("nightly", "crontabs")
    );
}

#[tokio::test]
async fn invalid_objects_are_caught_before_the_round_trip() {
    // 422 from a real server for replicas: 15; admit reports the same without a request.
    let mut bad = CronTab::new(
        "daily",
        CronTabSpec {
            replicas: 15,
            ..spec()
        },
    );
    let err = CronTab::admit(&mut bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10"
    );
    let errs = bad.validate();
    assert_eq!(
        errs.iter().map(|e| e.type_).collect::<Vec<_>>(),
        [ErrorType::Invalid]
    );

    // A valid object passes and is sent exactly as admitted.
    let mut ok = CronTab::new("daily", spec());
    CronTab::admit(&mut ok).unwrap();
    assert!(ok.validate().is_empty());
    let (api, handle) = api();
    let server = serve(handle, 201, stored(None));
    api.create(&PostParams::default(), &ok).await.unwrap();
    let sent = server.await.unwrap().body.unwrap();
    assert_eq!(sent, serde_json::to_value(&ok).unwrap());
}

#[test]
fn kube_resource_agrees_with_crd_runtime() {
    assert_eq!(CronTab::kind(&()), CronTab::KIND);
    assert_eq!(CronTab::group(&()), CronTab::GROUP);
    assert_eq!(CronTab::version(&()), CronTab::VERSION);
    assert_eq!(CronTab::api_version(&()), CronTab::API_VERSION);
    assert_eq!(CronTab::plural(&()), CronTab::PLURAL);
    assert_eq!(
        CronTab::url_path(&(), Some("jobs")),
        CronTab::collection_path(Some("jobs")).unwrap()
    );
    assert_eq!(
        CronTab::url_path(&(), None),
        CronTab::collection_path(None).unwrap()
    );
    // The metadata type is k8s-openapi's own: owner references work as in kube.
    let mut ct: CronTab = serde_json::from_value(stored(None)).unwrap();
    let owner = ct.controller_owner_ref(&()).unwrap();
    assert_eq!(
        (owner.kind.as_str(), owner.controller),
        ("CronTab", Some(true))
    );
    let meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta = ct.meta_mut();
    assert_eq!(meta.name.as_deref(), Some("daily"));
}
