//! crd-server's `TestServer` with a `kube::Client`, as docs/operator.md sets up an
//! operator's test suite: the CRDs installed, objects created and read back through
//! `kube::Api` of the derived and the generated types.

use crd_runtime::CustomResourceExt;
use crd_server::TestServer;
use crd_toolkit_downstream::backup::{self, v1};
use crd_toolkit_downstream::crontab::v1::{CronTab, CronTabSpec};
use kube::Api;
use kube::api::PostParams;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_round_trip_through_kube_api() {
    let server = TestServer::builder()
        .crd(backup::crd())
        .crd(CronTab::crd())
        .start()
        .await
        .expect("server starts");
    let namespace = server.namespace().await.expect("a namespace");

    let backups: Api<v1::Backup> = Api::namespaced(server.client(), &namespace);
    let created = backups
        .create(
            &PostParams::default(),
            &v1::Backup::new(
                "nightly",
                v1::BackupSpec {
                    volume: "data".into(),
                    keep: 3,
                    retain_days: 7,
                },
            ),
        )
        .await
        .expect("created");
    assert!(created.metadata.uid.is_some());
    let read = backups.get("nightly").await.expect("read back");
    assert_eq!(read.spec, created.spec);

    // The CEL rule is enforced by the server with the API server's message.
    let refused = backups
        .create(
            &PostParams::default(),
            &v1::Backup::new(
                "too-many",
                v1::BackupSpec {
                    volume: "data".into(),
                    keep: 10,
                    retain_days: 7,
                },
            ),
        )
        .await
        .unwrap_err();
    let kube::Error::Api(status) = refused else {
        panic!("{refused}")
    };
    assert_eq!(status.code, 422);
    assert!(
        status
            .message
            .contains("spec: Invalid value: keep must not exceed retainDays"),
        "{}",
        status.message
    );

    let crontabs: Api<CronTab> = Api::namespaced(server.client(), &namespace);
    let spec = CronTabSpec {
        cron_spec: Some("*/5 * * * *".into()),
        image: Some("my-cron-image".into()),
        replicas: Some(2),
    };
    crontabs
        .create(&PostParams::default(), &CronTab::new("every-five", spec))
        .await
        .expect("created");
    let listed = crontabs.list(&Default::default()).await.expect("listed");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].spec.replicas, Some(2));
}
