//! `kube::Api<CronTab>` with no glue code: create a CronTab, list them, update the status.
//!
//! This example only *compiles* in CI (`cargo build --example kube-client --features kube`);
//! running it needs a Kubernetes cluster with the CronTab CRD installed:
//!
//! ```sh
//! cargo run -q --example crontab | kubectl apply -f -
//! kubectl proxy &                       # plain HTTP on 127.0.0.1:8001
//! cargo run --example kube-client --features kube -- http://127.0.0.1:8001
//! ```
//!
//! The workspace builds kube without a TLS stack (to keep builds light), hence
//! `kubectl proxy`; with kube's `rustls-tls` feature, `Client::try_default()` reads the
//! kubeconfig and talks to the API server directly.

use crd_runtime::CustomResourceExt;
use crd_toolkit_examples::crontab::{CronTab, CronTabSpec, CronTabStatus};
use kube::api::{ListParams, PostParams};
use kube::{Api, Client, Config};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8001".to_string());
    let client = Client::try_from(Config::new(url.parse()?))?;
    let crontabs: Api<CronTab> = Api::namespaced(client, "default");

    let mut daily = CronTab::new(
        "daily",
        CronTabSpec {
            cron_spec: "0 3 * * *".into(),
            image: Some("busybox".into()),
            replicas: 1,
        },
    );
    // Client-side admission: the API server's prune/default/validate on this CRD, so a
    // bad object fails here, with the server's own messages, before any round trip.
    if let Err(errors) = CronTab::admit(&mut daily) {
        return Err(format!("the API server would reject daily: {errors}").into());
    }
    println!("POST {}", CronTab::collection_path(Some("default"))?);
    let created = crontabs.create(&PostParams::default(), &daily).await?;

    for ct in crontabs.list(&ListParams::default()).await? {
        let name = ct.metadata.name.as_deref().unwrap_or_default();
        println!("{name}\t{}\t{}", ct.spec.cron_spec, ct.spec.replicas);
    }

    let name = created.metadata.name.clone().unwrap_or_default();
    let mut observed = created;
    observed.status = Some(CronTabStatus {
        replicas: Some(observed.spec.replicas),
        label_selector: Some(format!("crontab={name}")),
    });
    println!("PUT {}", CronTab::status_path(Some("default"), &name)?);
    let updated = crontabs
        .replace_status(&name, &PostParams::default(), &observed)
        .await?;
    println!("status: {:?}", updated.status);
    Ok(())
}
