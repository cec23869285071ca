//! Typed apply configurations: two field managers apply disjoint parts of one CronTab
//! with server-side apply, against an in-process crd-server, and the object's
//! `managedFields` shows who owns what (see docs/apply.md).
//!
//! ```sh
//! cargo run -p crd-toolkit-examples --features kube --example apply-types
//! ```

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_examples::crontab::{CronTab, CronTabSpecApply};
use kube::Api;
use kube::api::{Patch, PatchParams};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = TestServer::with_crds([CronTab::crd()]).await?;
    let api: Api<CronTab> = Api::namespaced(server.client(), "default");

    // "mgr-a" owns the schedule and a label; only what is set is sent.
    let a = CronTab::apply("daily")
        .with_namespace("default")
        .with_label("team", "a")
        .with_spec(CronTabSpecApply::default().with_cron_spec("*/5 * * * *"));
    println!("mgr-a applies: {}", serde_json::to_string(&a)?);
    api.patch("daily", &PatchParams::apply("mgr-a"), &Patch::Apply(&a))
        .await?;

    // "mgr-b" owns the image and the replica count, without touching mgr-a's fields.
    let b = CronTab::apply("daily").with_namespace("default").with_spec(
        CronTabSpecApply::default()
            .with_image("busybox:1.36")
            .with_replicas(3),
    );
    println!("mgr-b applies: {}", serde_json::to_string(&b)?);
    let ct = api
        .patch("daily", &PatchParams::apply("mgr-b"), &Patch::Apply(&b))
        .await?;

    println!("spec: {}", serde_json::to_string(&ct.spec)?);
    for entry in ct.metadata.managed_fields.iter().flatten() {
        println!(
            "managedFields: {} ({}): {}",
            entry.manager.as_deref().unwrap_or_default(),
            entry.operation.as_deref().unwrap_or_default(),
            entry
                .fields_v1
                .as_ref()
                .map(|f| f.0.to_string())
                .unwrap_or_default()
        );
    }

    // mgr-b changing mgr-a's schedule is a conflict unless forced.
    let steal = CronTab::apply("daily")
        .with_namespace("default")
        .with_spec(CronTabSpecApply::default().with_cron_spec("0 * * * *"));
    match api
        .patch("daily", &PatchParams::apply("mgr-b"), &Patch::Apply(&steal))
        .await
    {
        Err(kube::Error::Api(status)) => {
            println!("mgr-b without force: {} {}", status.code, status.message)
        }
        other => return Err(format!("expected a conflict, got {other:?}").into()),
    }
    Ok(())
}
