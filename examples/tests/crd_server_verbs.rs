//! Every verb right for every kind crd-server serves, driven with `kube::Api` the way
//! kube-rs's own examples drive a cluster: server-side apply of a CRD (`crd_apply`), of
//! a Namespace, of a custom object's status and scale; DELETE answers (a `Status` when
//! the object goes at once); apply by the merged object's name, and removal of what no
//! manager owns any more; objects read in another version pruned to its schema.
//! Run with `cargo test -p crd-toolkit-examples --features kube`.

use std::time::Duration;

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::crontab::CronTab;
use either::Either;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client};
use serde_json::{Value, json};

async fn established(client: &Client, name: &str) {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    tokio::time::timeout(
        Duration::from_secs(10),
        await_condition(crds, name, conditions::is_crd_established()),
    )
    .await
    .expect("established within 10 s")
    .expect("condition");
}

fn managers(meta: &kube::api::ObjectMeta) -> Vec<(String, String, Option<String>)> {
    meta.managed_fields
        .iter()
        .flatten()
        .map(|e| {
            (
                e.manager.clone().unwrap_or_default(),
                e.operation.clone().unwrap_or_default(),
                e.subresource.clone(),
            )
        })
        .collect()
}

/// kube-rs's `crd_apply`: the CRD is installed and changed by server-side apply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crds_namespaces_status_and_scale_take_server_side_apply() {
    let server = TestServer::builder().start().await.expect("server");
    let client = server.client();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let ssapply = PatchParams::apply("crd_apply_example").force();
    let mut crd: CustomResourceDefinition = CronTab::crd().into();
    let name = "crontabs.stable.example.com";
    crds.patch(name, &ssapply, &Patch::Apply(&crd))
        .await
        .expect("apply creates the CRD");
    established(&client, name).await;
    crd.spec.names.categories = Some(vec!["all".into(), "cron".into()]);
    let changed = crds
        .patch(name, &ssapply, &Patch::Apply(&crd))
        .await
        .expect("apply updates the CRD");
    assert_eq!(
        changed.spec.names.categories,
        Some(vec!["all".to_string(), "cron".to_string()])
    );
    assert_eq!(
        changed.metadata.generation,
        Some(2),
        "a spec change bumps generation"
    );
    assert_eq!(
        managers(&changed.metadata),
        [("crd_apply_example".to_string(), "Apply".to_string(), None)]
    );

    // Namespaces: apply creates with the server's label and finalizer; a label the
    // manager stops applying goes, the server's stays.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns = |labels: Value| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": labels}});
    let team = namespaces
        .patch(
            "team",
            &PatchParams::apply("ns-owner"),
            &Patch::Apply(ns(json!({"owner": "me"}))),
        )
        .await
        .expect("apply creates the namespace");
    let labels = team.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels.get("owner").map(String::as_str), Some("me"));
    assert_eq!(
        labels
            .get("kubernetes.io/metadata.name")
            .map(String::as_str),
        Some("team")
    );
    assert_eq!(
        team.spec.and_then(|s| s.finalizers),
        Some(vec!["kubernetes".to_string()])
    );
    let relabeled = namespaces
        .patch(
            "team",
            &PatchParams::apply("ns-owner"),
            &Patch::Apply(ns(json!({"tier": "dev"}))),
        )
        .await
        .expect("apply updates the namespace");
    let labels = relabeled.metadata.labels.unwrap_or_default();
    assert_eq!(labels.get("owner"), None, "no longer applied: removed");
    assert_eq!(labels.get("tier").map(String::as_str), Some("dev"));
    assert_eq!(
        labels
            .get("kubernetes.io/metadata.name")
            .map(String::as_str),
        Some("team")
    );

    // A custom object's status and scale through apply.
    let api: Api<CronTab> = Api::namespaced(client.clone(), "default");
    let config = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "daily"},
                        "spec": {"cronSpec": "* * * * */5", "replicas": 1}});
    api.patch(
        "daily",
        &PatchParams::apply("owner"),
        &Patch::Apply(&config),
    )
    .await
    .expect("create");
    let status = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "daily"},
                        "status": {"replicas": 1, "labelSelector": "app=daily"}});
    let with_status = api
        .patch_status(
            "daily",
            &PatchParams::apply("status-writer"),
            &Patch::Apply(&status),
        )
        .await
        .expect("status apply");
    assert_eq!(
        with_status.status.as_ref().and_then(|s| s.replicas),
        Some(1)
    );
    assert!(managers(&with_status.metadata).contains(&(
        "status-writer".to_string(),
        "Apply".to_string(),
        Some("status".to_string())
    )));
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "daily"}, "spec": {"replicas": 3}});
    let err = api
        .patch_scale(
            "daily",
            &PatchParams::apply("autoscaler"),
            &Patch::Apply(&scale),
        )
        .await
        .expect_err("replicas belong to the owner");
    assert!(
        matches!(&err, kube::Error::Api(s) if s.code == 409),
        "{err:?}"
    );
    let scaled = api
        .patch_scale(
            "daily",
            &PatchParams::apply("autoscaler").force(),
            &Patch::Apply(&scale),
        )
        .await
        .expect("forced scale apply");
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(3));
    let daily = api.get("daily").await.expect("get");
    assert_eq!(daily.spec.replicas, 3);
    assert!(managers(&daily.metadata).contains(&(
        "autoscaler".to_string(),
        "Apply".to_string(),
        Some("scale".to_string())
    )));
}

/// `Api::delete`: `Either::Right(Status)` when the object goes at once, the object
/// while it waits on finalizers; a namespace is answered as the object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_answers_like_kube_apiserver() {
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let client = server.client();
    let api: Api<CronTab> = Api::namespaced(client.clone(), "default");
    let spec = serde_json::from_value(json!({"cronSpec": "* * * * */5", "replicas": 1})).unwrap();
    let mut ct = CronTab::new("gone", spec);
    let created = api
        .create(&PostParams::default(), &ct)
        .await
        .expect("create");
    match api
        .delete("gone", &DeleteParams::default())
        .await
        .expect("delete")
    {
        Either::Right(status) => {
            assert_eq!(
                status.status,
                Some(kube::core::response::StatusSummary::Success)
            );
            let details = status.details.expect("details");
            assert_eq!(details.name, "gone");
            assert_eq!(details.kind, "crontabs");
            assert_eq!(details.group, "stable.example.com");
            assert_eq!(Some(details.uid), created.metadata.uid);
        }
        Either::Left(obj) => panic!("expected a Status, got the object {obj:?}"),
    }
    ct.metadata.name = Some("kept".into());
    ct.metadata.finalizers = Some(vec!["example.com/cleanup".into()]);
    api.create(&PostParams::default(), &ct)
        .await
        .expect("create");
    match api
        .delete("kept", &DeleteParams::default())
        .await
        .expect("delete")
    {
        Either::Left(obj) => assert!(obj.metadata.deletion_timestamp.is_some()),
        Either::Right(status) => panic!("expected the object, got {status:?}"),
    }

    let namespaces: Api<Namespace> = Api::all(client);
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "scratch"}})).unwrap();
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .expect("namespace");
    match namespaces
        .delete("scratch", &DeleteParams::default())
        .await
        .expect("delete")
    {
        Either::Left(ns) => assert_eq!(
            ns.status.and_then(|s| s.phase).as_deref(),
            Some("Terminating")
        ),
        Either::Right(status) => panic!("expected the namespace, got {status:?}"),
    }
    match namespaces.delete("default", &DeleteParams::default()).await {
        Err(kube::Error::Api(s)) => {
            assert_eq!(
                (s.code, s.message.as_str()),
                (
                    403,
                    "namespaces \"default\" is forbidden: this namespace may not be deleted"
                )
            );
        }
        other => panic!("the default namespace stays: {other:?}"),
    }
}

const GADGETS: &str = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.example.com"},
  "spec": {"group": "example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
    "versions": [
      {"name": "v1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
          "size": {"type": "integer"},
          "sub": {"type": "object", "required": ["field"], "properties": {"field": {"type": "string"}}}}}}}}},
      {"name": "v2", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
          "size": {"type": "integer"},
          "extra": {"type": "string"},
          "sub": {"type": "object", "required": ["field"], "properties": {"field": {"type": "string"}}}}}}}}}]}}"#;

async fn gadgets(server: &TestServer) -> (Api<DynamicObject>, Api<DynamicObject>) {
    let client = server.client();
    let crd: CustomResourceDefinition = serde_json::from_str(GADGETS).unwrap();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &crd)
        .await
        .expect("CRD");
    established(&client, "gadgets.example.com").await;
    let at = |v: &str| {
        let ar = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("example.com", v, "Gadget"),
            "gadgets",
        );
        Api::<DynamicObject>::namespaced_with(client.clone(), "default", &ar)
    };
    (at("v1"), at("v2"))
}

/// Apply checks the merged object's name (a configuration may leave it to the URL), and
/// a struct whose fields no manager applies any more goes with them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_names_by_the_merged_object_and_removes_what_no_one_owns() {
    let server = TestServer::builder().start().await.expect("server");
    let (_, v2) = gadgets(&server).await;
    let pp = PatchParams::apply("gadgeteer");
    let config = |spec: Value| json!({"apiVersion": "example.com/v2", "kind": "Gadget", "metadata": {"name": "g"}, "spec": spec});
    v2.patch(
        "g",
        &pp,
        &Patch::Apply(config(json!({"size": 1, "sub": {"field": "x"}}))),
    )
    .await
    .expect("create");
    let nameless = json!({"apiVersion": "example.com/v2", "kind": "Gadget", "spec": {"size": 2, "sub": {"field": "x"}}});
    let updated = v2
        .patch("g", &pp, &Patch::Apply(&nameless))
        .await
        .expect("apply without metadata.name");
    assert_eq!(updated.data["spec"]["size"], 2);
    // The manager stops applying spec.sub.field: spec.sub goes too (an empty sub would
    // fail `required`).
    let dropped = v2
        .patch("g", &pp, &Patch::Apply(config(json!({"size": 2}))))
        .await
        .expect("apply without sub");
    assert_eq!(dropped.data["spec"], json!({"size": 2}));
}

/// An object stored in v2 and read in v1 has no v2-only fields (the server prunes after
/// every conversion): get, list and watch alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_read_in_another_version_are_pruned_to_its_schema() {
    let server = TestServer::builder().start().await.expect("server");
    let (v1, v2) = gadgets(&server).await;
    let obj: DynamicObject =
        serde_json::from_value(json!({"apiVersion": "example.com/v2", "kind": "Gadget",
        "metadata": {"name": "g"}, "spec": {"size": 1, "extra": "v2 only"}}))
        .unwrap();
    v2.create(&PostParams::default(), &obj)
        .await
        .expect("create in v2");
    assert_eq!(
        v2.get("g").await.expect("v2").data["spec"]["extra"],
        "v2 only"
    );
    let in_v1 = v1.get("g").await.expect("v1");
    assert_eq!(
        in_v1.types.as_ref().map(|t| t.api_version.as_str()),
        Some("example.com/v1")
    );
    assert_eq!(in_v1.data["spec"], json!({"size": 1}));
    let listed = v1.list(&Default::default()).await.expect("list");
    assert_eq!(listed.items[0].data["spec"], json!({"size": 1}));
    // Written through v1, the v2-only field is gone from storage too.
    let mut edited = in_v1.clone();
    edited.data["spec"]["size"] = json!(5);
    v1.replace("g", &PostParams::default(), &edited)
        .await
        .expect("update in v1");
    assert_eq!(
        v2.get("g").await.expect("v2").data["spec"],
        json!({"size": 5})
    );
}

/// Objects are read as the server reads them from storage: with the defaults and
/// without the fields of the schema in force now, even when they were written before
/// it changed (nothing is written back).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_objects_read_with_the_current_schema() {
    let server = TestServer::builder().start().await.expect("server");
    let (_, v2) = gadgets(&server).await;
    let obj: DynamicObject =
        serde_json::from_value(json!({"apiVersion": "example.com/v2", "kind": "Gadget",
        "metadata": {"name": "old"}, "spec": {"size": 1, "extra": "kept for now"}}))
        .unwrap();
    let created = v2
        .create(&PostParams::default(), &obj)
        .await
        .expect("create");
    // v2 drops `extra` and gives `color` a default.
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let mut crd: Value = serde_json::from_str(GADGETS).unwrap();
    let props = &mut crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        ["properties"];
    props.as_object_mut().unwrap().remove("extra");
    props["color"] = json!({"type": "string", "default": "red"});
    crds.patch(
        "gadgets.example.com",
        &PatchParams::apply("schema-owner").force(),
        &Patch::Apply(&crd),
    )
    .await
    .expect("CRD update");
    let read = v2.get("old").await.expect("get");
    assert_eq!(read.data["spec"], json!({"size": 1, "color": "red"}));
    assert_eq!(
        read.metadata.resource_version, created.metadata.resource_version,
        "nothing was written"
    );
}
