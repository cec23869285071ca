//! `kube::Client` against a real crd-server ([`crd_server::TestServer`]) driving the derived
//! `CronTab`: create, get, list, watch with kube-runtime's watcher, status, scale,
//! finalizers, delete. Run with `cargo test -p crd-toolkit-examples --features kube`.

use std::time::Duration;

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::crontab::{CronTab, CronTabSpec, CronTabStatus};
use futures::{StreamExt, TryStreamExt};
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::watcher::{self, Event};
use kube::{Api, ResourceExt};
use serde_json::json;

fn spec(replicas: i32) -> CronTabSpec {
    CronTabSpec {
        cron_spec: "* * * * */5".into(),
        image: Some("my-image".into()),
        replicas,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_client_drives_the_derived_crontab() {
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let client = server.client();
    let api: Api<CronTab> = Api::namespaced(client, "default");

    // A watcher started before anything exists sees the objects appear.
    let mut events = watcher::watcher(api.clone(), watcher::Config::default()).boxed();
    let first = tokio::time::timeout(Duration::from_secs(10), events.try_next())
        .await
        .expect("init")
        .expect("ok");
    assert!(matches!(first, Some(Event::Init)), "{first:?}");

    let created = api
        .create(&PostParams::default(), &CronTab::new("daily", spec(2)))
        .await
        .expect("create");
    assert_eq!(created.metadata.generation, Some(1));
    assert!(created.metadata.uid.is_some() && created.metadata.creation_timestamp.is_some());
    let got = api.get("daily").await.expect("get");
    assert_eq!(got.spec, spec(2));
    let list = api.list(&ListParams::default()).await.expect("list");
    assert_eq!(list.items.len(), 1);

    let mut saw_daily = false;
    for _ in 0..10 {
        match tokio::time::timeout(Duration::from_secs(10), events.try_next())
            .await
            .expect("event")
            .expect("ok")
        {
            Some(Event::Apply(ct)) | Some(Event::InitApply(ct)) if ct.name_any() == "daily" => {
                saw_daily = true;
                break;
            }
            _ => {}
        }
    }
    assert!(saw_daily, "the watcher saw the create");

    // Defaults from the CRD, validation errors as kube::Error::Api with the server's Status.
    let mut bad = CronTab::new("bad", spec(2));
    bad.spec.replicas = 11;
    match api.create(&PostParams::default(), &bad).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 422);
            assert!(
                status
                    .message
                    .contains("spec.replicas in body should be less than or equal to 10"),
                "{}",
                status.message
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }

    // Status subresource.
    let status = json!({"status": CronTabStatus { replicas: Some(2), label_selector: Some("app=daily".into()) }});
    let patched = api
        .patch_status("daily", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");
    assert_eq!(patched.status.as_ref().and_then(|s| s.replicas), Some(2));
    assert_eq!(
        patched.metadata.generation,
        Some(1),
        "status does not bump generation"
    );

    // Scale subresource.
    let scale = api.get_scale("daily").await.expect("scale");
    assert_eq!(scale.spec.and_then(|s| s.replicas), Some(2));
    assert_eq!(
        scale.status.and_then(|s| s.selector),
        Some("app=daily".into())
    );
    api.patch_scale(
        "daily",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 4}})),
    )
    .await
    .expect("scale");
    let scaled = api.get("daily").await.expect("get");
    assert_eq!(
        (scaled.spec.replicas, scaled.metadata.generation),
        (4, Some(2))
    );

    // Stale update: 409.
    let mut stale = got.clone();
    stale.spec.replicas = 5;
    match api.replace("daily", &PostParams::default(), &stale).await {
        Err(kube::Error::Api(s)) => assert_eq!(s.code, 409),
        other => panic!("expected 409, got {other:?}"),
    }

    // Finalizers: delete marks the object; removing the finalizer removes it.
    let fin = json!({"metadata": {"finalizers": ["example.com/cleanup"]}});
    api.patch("daily", &PatchParams::default(), &Patch::Merge(&fin))
        .await
        .expect("finalizer");
    api.delete("daily", &DeleteParams::default())
        .await
        .expect("delete");
    let marked = api.get("daily").await.expect("still there");
    assert!(marked.metadata.deletion_timestamp.is_some());
    let none = json!({"metadata": {"finalizers": null}});
    api.patch("daily", &PatchParams::default(), &Patch::Merge(&none))
        .await
        .expect("finalizer removed");
    assert!(
        api.get_opt("daily").await.expect("get_opt").is_none(),
        "gone once the finalizer is removed"
    );

    let mut saw_delete = false;
    for _ in 0..10 {
        match tokio::time::timeout(Duration::from_secs(10), events.try_next())
            .await
            .expect("event")
            .expect("ok")
        {
            Some(Event::Delete(ct)) if ct.name_any() == "daily" => {
                saw_delete = true;
                break;
            }
            _ => {}
        }
    }
    assert!(saw_delete, "the watcher saw the delete");
}

/// `kube::Api::patch(Patch::Apply)` with two managers: each owns what it applied, the
/// second one's change to a field the first owns is a 409 naming the field, and
/// `force()` takes the field over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_server_side_apply_with_two_managers() {
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let api: Api<CronTab> = Api::namespaced(server.client(), "default");
    let config = |fields: serde_json::Value| {
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
               "metadata": {"name": "applied"}, "spec": fields})
    };
    let operator = PatchParams::apply("my-operator");
    let created = api
        .patch(
            "applied",
            &operator,
            &Patch::Apply(config(json!({"cronSpec": "* * * * */5", "replicas": 2}))),
        )
        .await
        .expect("apply creates");
    assert_eq!(created.spec.replicas, 2);
    let managed = created.metadata.managed_fields.clone().unwrap_or_default();
    assert_eq!(managed.len(), 1);
    assert_eq!(managed[0].manager.as_deref(), Some("my-operator"));
    assert_eq!(managed[0].operation.as_deref(), Some("Apply"));

    let other = PatchParams::apply("other");
    let merged = api
        .patch(
            "applied",
            &other,
            &Patch::Apply(config(json!({"cronSpec": "* * * * */5", "image": "img:1"}))),
        )
        .await
        .expect("apply by a second manager");
    assert_eq!(
        (merged.spec.replicas, merged.spec.image.as_deref()),
        (2, Some("img:1"))
    );

    let err = api
        .patch(
            "applied",
            &other,
            &Patch::Apply(config(
                json!({"cronSpec": "* * * * */5", "image": "img:1", "replicas": 7}),
            )),
        )
        .await
        .expect_err("replicas belongs to my-operator");
    match err {
        kube::Error::Api(status) => {
            assert_eq!(status.code, 409);
            assert_eq!(
                status.message,
                "Apply failed with 1 conflict: conflict with \"my-operator\": .spec.replicas"
            );
        }
        other => panic!("{other:?}"),
    }
    let forced = api
        .patch(
            "applied",
            &other.clone().force(),
            &Patch::Apply(config(
                json!({"cronSpec": "* * * * */5", "image": "img:1", "replicas": 7}),
            )),
        )
        .await
        .expect("forced apply");
    assert_eq!(forced.spec.replicas, 7);
}
