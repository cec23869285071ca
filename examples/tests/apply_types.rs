//! Typed apply configurations (`CronTabApply`) against crd-server's server-side apply:
//! two field managers own disjoint fields without conflict and without resetting each
//! other's; a field a manager stops applying is removed unless another manager owns it
//! too; changing a field another manager owns is a 409 unless forced. Each step is
//! checked in `metadata.managedFields`.
//! Run with `cargo test -p crd-toolkit-examples --features kube --test apply_types`.

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::crontab::{CronTab, CronTabApply, CronTabSpecApply};
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

/// The `fieldsV1` of `manager`'s Apply entry (`None` when it owns nothing).
fn fields_of(ct: &CronTab, manager: &str) -> Option<Value> {
    ct.metadata
        .managed_fields
        .iter()
        .flatten()
        .find(|e| e.manager.as_deref() == Some(manager) && e.operation.as_deref() == Some("Apply"))
        .and_then(|e| e.fields_v1.as_ref())
        .map(|f| f.0.clone())
}

async fn apply(api: &Api<CronTab>, manager: &str, a: &CronTabApply) -> kube::Result<CronTab> {
    api.patch("daily", &PatchParams::apply(manager), &Patch::Apply(a))
        .await
}

fn mgr_a() -> CronTabApply {
    CronTab::apply("daily")
        .with_namespace("default")
        .with_label("team", "a")
        .with_spec(CronTabSpecApply::default().with_cron_spec("*/5 * * * *"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_managers_own_disjoint_fields_release_and_conflict() {
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let api: Api<CronTab> = Api::namespaced(server.client(), "default");

    // Disjoint fields: no conflict, and neither apply resets the other's fields.
    apply(&api, "mgr-a", &mgr_a()).await.expect("mgr-a creates");
    let b = CronTab::apply("daily").with_namespace("default").with_spec(
        CronTabSpecApply::default()
            .with_image("img:1")
            .with_replicas(3),
    );
    let both = apply(&api, "mgr-b", &b)
        .await
        .expect("mgr-b applies disjoint fields");
    assert_eq!(both.spec.cron_spec, "*/5 * * * *");
    assert_eq!(both.spec.image.as_deref(), Some("img:1"));
    assert_eq!(both.spec.replicas, 3);
    assert_eq!(
        both.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("team"))
            .map(String::as_str),
        Some("a")
    );
    assert_eq!(
        fields_of(&both, "mgr-a"),
        Some(
            json!({"f:metadata": {"f:labels": {".": {}, "f:team": {}}}, "f:spec": {"f:cronSpec": {}}})
        )
    );
    assert_eq!(
        fields_of(&both, "mgr-b"),
        Some(json!({"f:spec": {"f:image": {}, "f:replicas": {}}}))
    );

    // mgr-a applies again unchanged: still no conflict, mgr-b's fields stay.
    let again = apply(&api, "mgr-a", &mgr_a()).await.expect("re-apply");
    assert_eq!(again.spec.image.as_deref(), Some("img:1"));

    // A field applied by both with the same value is co-owned: when mgr-b stops
    // applying it, it stays (mgr-a still owns it).
    let a_with_replicas = mgr_a().with_spec(
        CronTabSpecApply::default()
            .with_cron_spec("*/5 * * * *")
            .with_replicas(3),
    );
    apply(&api, "mgr-a", &a_with_replicas)
        .await
        .expect("same value: shared ownership, no conflict");
    // mgr-b stops applying image and replicas: image (owned by mgr-b alone) is removed,
    // replicas (co-owned) stays.
    let b_less = CronTab::apply("daily")
        .with_namespace("default")
        .with_label("tier", "b");
    let released = apply(&api, "mgr-b", &b_less).await.expect("mgr-b releases");
    assert_eq!(released.spec.image, None, "a field nobody owns is removed");
    assert_eq!(released.spec.replicas, 3, "a co-owned field stays");
    assert_eq!(
        fields_of(&released, "mgr-b"),
        Some(json!({"f:metadata": {"f:labels": {".": {}, "f:tier": {}}}}))
    );
    assert_eq!(
        fields_of(&released, "mgr-a"),
        Some(json!({"f:metadata": {"f:labels": {".": {}, "f:team": {}}},
                    "f:spec": {"f:cronSpec": {}, "f:replicas": {}}}))
    );

    // Changing a field mgr-a owns is a conflict...
    let steal = CronTab::apply("daily")
        .with_namespace("default")
        .with_spec(CronTabSpecApply::default().with_cron_spec("0 * * * *"));
    match apply(&api, "mgr-b", &steal).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 409);
            assert_eq!(
                status.message,
                "Apply failed with 1 conflict: conflict with \"mgr-a\": .spec.cronSpec"
            );
        }
        other => panic!("expected a 409 conflict, got {other:?}"),
    }
    // ... unless forced: mgr-b takes it over and mgr-a loses it.
    let forced = api
        .patch(
            "daily",
            &PatchParams::apply("mgr-b").force(),
            &Patch::Apply(&steal),
        )
        .await
        .expect("forced apply");
    assert_eq!(forced.spec.cron_spec, "0 * * * *");
    assert_eq!(
        fields_of(&forced, "mgr-a"),
        Some(
            json!({"f:metadata": {"f:labels": {".": {}, "f:team": {}}}, "f:spec": {"f:replicas": {}}})
        )
    );
    assert_eq!(
        fields_of(&forced, "mgr-b"),
        Some(json!({"f:spec": {"f:cronSpec": {}}}))
    );
}

/// The status of a derived root is applied through the status subresource with its
/// own apply type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_apply_through_the_subresource() {
    use crd_toolkit_examples::crontab::CronTabStatusApply;
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let api: Api<CronTab> = Api::namespaced(server.client(), "default");
    apply(&api, "mgr-a", &mgr_a()).await.expect("create");
    let status = CronTab::apply("daily")
        .with_namespace("default")
        .with_status(CronTabStatusApply::default().with_replicas(2));
    let done = api
        .patch_status(
            "daily",
            &PatchParams::apply("status-writer"),
            &Patch::Apply(&status),
        )
        .await
        .expect("status apply");
    assert_eq!(done.status.and_then(|s| s.replicas), Some(2));
    assert_eq!(done.spec.cron_spec, "*/5 * * * *", "spec untouched");
}
