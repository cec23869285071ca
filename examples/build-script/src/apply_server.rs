//! The apply configuration crd-gen generates (`CronTabApply`, from `crds/crontab.yaml`
//! via `build.rs`) against crd-server's server-side apply: two field managers own
//! disjoint fields, and a field one of them stops applying is released and removed.
//! Feature `kube` of this package.

use crate::crontab::v1::{CronTab, CronTabSpecApply};
use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use kube::Api;
use kube::api::{Patch, PatchParams};

/// The top-level `f:spec` fields `manager`'s Apply entry owns.
fn spec_fields_of(ct: &CronTab, manager: &str) -> Vec<String> {
    let entry =
        ct.metadata.managed_fields.iter().flatten().find(|e| {
            e.manager.as_deref() == Some(manager) && e.operation.as_deref() == Some("Apply")
        });
    let mut fields: Vec<String> = entry
        .and_then(|e| e.fields_v1.as_ref())
        .and_then(|f| f.0.get("f:spec"))
        .and_then(|s| s.as_object())
        .map(|s| s.keys().cloned().collect())
        .unwrap_or_default();
    fields.sort();
    fields
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_apply_types_share_an_object_between_managers() {
    let server = TestServer::with_crds([CronTab::crd()])
        .await
        .expect("server");
    let api: Api<CronTab> = Api::namespaced(server.client(), "default");
    let apply = |manager: &'static str, spec: CronTabSpecApply| {
        let api = api.clone();
        async move {
            let object = CronTab::apply("nightly")
                .with_namespace("default")
                .with_spec(spec);
            api.patch(
                "nightly",
                &PatchParams::apply(manager),
                &Patch::Apply(&object),
            )
            .await
        }
    };

    apply(
        "schedule",
        CronTabSpecApply::default().with_cron_spec("0 3 * * *"),
    )
    .await
    .expect("the schedule manager creates");
    let both = apply(
        "scaler",
        CronTabSpecApply::default()
            .with_image("busybox:1.36")
            .with_replicas(4),
    )
    .await
    .expect("disjoint fields: no conflict");
    assert_eq!(both.spec.cron_spec.as_deref(), Some("0 3 * * *"));
    assert_eq!(both.spec.image.as_deref(), Some("busybox:1.36"));
    assert_eq!(both.spec.replicas, Some(4));
    assert_eq!(spec_fields_of(&both, "schedule"), ["f:cronSpec"]);
    assert_eq!(spec_fields_of(&both, "scaler"), ["f:image", "f:replicas"]);

    // The scaler stops setting `image`: released, and removed (nobody else owns it);
    // its `replicas` and the schedule's `cronSpec` stay.
    let released = apply("scaler", CronTabSpecApply::default().with_replicas(4))
        .await
        .expect("re-apply without image");
    assert_eq!(released.spec.image, None);
    assert_eq!(released.spec.replicas, Some(4));
    assert_eq!(released.spec.cron_spec.as_deref(), Some("0 3 * * *"));
    assert_eq!(spec_fields_of(&released, "scaler"), ["f:replicas"]);

    // Changing a field the other manager owns is a conflict unless forced.
    let conflict = apply(
        "scaler",
        CronTabSpecApply::default().with_cron_spec("0 4 * * *"),
    )
    .await
    .expect_err("cronSpec belongs to the schedule manager");
    match conflict {
        kube::Error::Api(status) => assert_eq!(status.code, 409, "{status:?}"),
        other => panic!("expected 409 Conflict, got {other}"),
    }
}
