//! Deleting a CRD with `kube::Api`, as against a cluster: the DELETE answers the CRD,
//! marked and holding the `customresourcecleanup.apiextensions.k8s.io` finalizer; its
//! objects are deleted (one waits on its own finalizer, still readable, while creates
//! are refused); releasing it lets the CRD go. Run with
//! `cargo test -p crd-toolkit-examples --features kube --test crd_deletion`.

use std::time::{Duration, Instant};

use crd_server::TestServer;
use either::Either;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams,
    PostParams,
};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, ResourceExt};
use serde_json::json;

const NAME: &str = "gizmos.kube.example.com";

fn gizmo(name: &str, finalizers: &[&str]) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "kube.example.com/v1", "kind": "Gizmo",
        "metadata": {"name": name, "finalizers": finalizers},
        "spec": {"size": 1}
    }))
    .expect("gizmo")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_deleted_with_kube_goes_after_its_objects() {
    let server = TestServer::builder().start().await.expect("server");
    let client = server.client();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": NAME},
        "spec": {"group": "kube.example.com", "scope": "Namespaced",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .expect("crd");
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("create CRD");
    tokio::time::timeout(
        Duration::from_secs(10),
        await_condition(crds.clone(), NAME, conditions::is_crd_established()),
    )
    .await
    .expect("established within 10 s")
    .expect("condition");
    let gvk = GroupVersionKind::gvk("kube.example.com", "v1", "Gizmo");
    let gizmos: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &ApiResource::from_gvk_with_plural(&gvk, "gizmos"),
    );
    for g in [gizmo("free", &[]), gizmo("held", &["example.com/hold"])] {
        gizmos
            .create(&PostParams::default(), &g)
            .await
            .expect("create gizmo");
    }

    // The DELETE answers the CRD, waiting on its cleanup finalizer.
    let marked = match crds
        .delete(NAME, &DeleteParams::default())
        .await
        .expect("delete CRD")
    {
        Either::Left(crd) => crd,
        Either::Right(status) => panic!("expected the CRD, got {status:?}"),
    };
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert_eq!(
        marked.finalizers(),
        ["customresourcecleanup.apiextensions.k8s.io"]
    );
    let uid = marked.uid().expect("uid");

    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = gizmos.list(&ListParams::default()).await.expect("list");
        let names: Vec<String> = left.items.iter().map(|g| g.name_any()).collect();
        if names == ["held"] {
            break;
        }
        assert!(Instant::now() < deadline, "left after 10 s: {names:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let crd = crds.get(NAME).await.expect("get CRD");
    let terminating = crd
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Terminating"))
        .cloned()
        .expect("a Terminating condition");
    assert_eq!(
        (
            terminating.status.as_str(),
            terminating.reason.as_deref(),
            terminating.message.as_deref()
        ),
        (
            "True",
            Some("InstanceDeletionInProgress"),
            Some("CustomResource deletion is in progress")
        )
    );
    let held = gizmos.get("held").await.expect("the held gizmo is served");
    assert!(held.metadata.deletion_timestamp.is_some());
    match gizmos
        .create(&PostParams::default(), &gizmo("fresh", &[]))
        .await
    {
        Err(kube::Error::Api(s)) => assert_eq!(
            (s.code, s.reason.as_str(), s.message.as_str()),
            // kube-apiserver's CRD handler answers MethodNotSupported with
            // its own message while the definition terminates.
            (
                405,
                "MethodNotAllowed",
                "create not allowed while custom resource definition is terminating"
            )
        ),
        other => panic!("expected 405, got {other:?}"),
    }

    // Released, the last object goes, and the CRD with it.
    gizmos
        .patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("release");
    tokio::time::timeout(
        Duration::from_secs(10),
        await_condition(crds.clone(), NAME, conditions::is_deleted(&uid)),
    )
    .await
    .expect("the CRD goes within 10 s")
    .expect("condition");
}
