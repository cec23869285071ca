//! A conversion webhook served in process by a TestServer (`TestServerBuilder::converter`):
//! the CronTab written in v2 is stored in v1 and read in both through kube::Api, with
//! no HTTPS webhook running; a webhook that fails, refuses the review or answers with
//! the wrong uid gets the same 500s as an HTTPS one.

use crd_runtime::CustomResourceExt as _;
use crd_server::TestServer;
use crd_toolkit_examples::{crontab, crontab_v2};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

/// The two-version CRD with `strategy: Webhook`; the URL is never dialed.
fn crd() -> crd_runtime::CustomResourceDefinition {
    crontab_v2::crd_with_webhook("https://127.0.0.1:1/convert", "")
}

fn v2(name: &str, schedule: &str) -> crontab_v2::CronTab {
    crontab_v2::CronTab::new(
        name,
        crontab_v2::CronTabSpec {
            schedule: schedule.into(),
            image: Some("backup:1".into()),
            replicas: 2,
        },
    )
}

#[tokio::test]
async fn a_converter_serves_every_version_without_a_webhook_process() {
    let server = TestServer::builder()
        .crd(crd())
        .converter(crontab_v2::converter())
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let client = server.client();
    let newer: Api<crontab_v2::CronTab> = Api::namespaced(client.clone(), &ns);
    let older: Api<crontab::CronTab> = Api::namespaced(client.clone(), &ns);

    let created = newer
        .create(&PostParams::default(), &v2("nightly", "0 3 * * *"))
        .await
        .expect("created in v2");
    assert_eq!(created.spec.schedule, "0 3 * * *");

    let stored = older.get("nightly").await.expect("read in v1");
    assert_eq!(stored.spec.cron_spec, "0 3 * * *");
    assert_eq!(stored.spec.replicas, 2);
    let listed = newer.list(&Default::default()).await.expect("list in v2");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].spec.schedule, "0 3 * * *");

    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let crd = crds
        .get(&crontab::CronTab::crd().metadata.name.unwrap_or_default())
        .await
        .expect("the CRD");
    let stored_versions = crd.status.expect("status").stored_versions;
    assert_eq!(stored_versions, Some(vec!["v1".to_string()]));
}

/// A server whose CronTab webhook is `handler`, with one CronTab created in v1 (no
/// conversion needed to store it); returns the server and its namespace.
async fn with_webhook(
    handler: impl Fn(&[u8]) -> Result<Vec<u8>, String> + Send + Sync + 'static,
) -> (TestServer, String) {
    let server = TestServer::builder()
        .crd(crd())
        .conversion_webhook("crontabs.stable.example.com", handler)
        .start()
        .await
        .expect("server");
    let ns = server.namespace().await.expect("namespace");
    let older: Api<crontab::CronTab> = Api::namespaced(server.client(), &ns);
    let mut v1 = crontab::CronTab::new(
        "nightly",
        crontab::CronTabSpec {
            cron_spec: "0 3 * * *".into(),
            image: None,
            replicas: 1,
        },
    );
    v1.metadata.namespace = Some(ns.clone());
    older
        .create(&PostParams::default(), &v1)
        .await
        .expect("created in v1");
    (server, ns)
}

/// The error of reading the CronTab in v2.
async fn read_in_v2(server: &TestServer, ns: &str) -> kube::core::Status {
    let newer: Api<crontab_v2::CronTab> = Api::namespaced(server.client(), ns);
    match newer.get("nightly").await {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

fn answer(request: &[u8], uid: Option<&str>, result: Value) -> Vec<u8> {
    let request: Value = serde_json::from_slice(request).expect("a review");
    let uid = uid.map_or_else(|| request["request"]["uid"].clone(), |u| json!(u));
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": {"uid": uid, "result": result, "convertedObjects": []}
    }))
    .expect("encoded")
}

#[tokio::test]
async fn a_failing_in_process_webhook_fails_like_an_https_one() {
    let (server, ns) = with_webhook(|body| {
        Ok(answer(
            body,
            None,
            json!({"status": "Failure", "message": "v2 is not ready"}),
        ))
    })
    .await;
    let status = read_in_v2(&server, &ns).await;
    assert_eq!(status.code, 500);
    assert_eq!(
        status.message,
        "conversion webhook for stable.example.com/v1, Kind=CronTab failed: v2 is not ready"
    );

    let (server, ns) = with_webhook(|_| Err("no such version".into())).await;
    let status = read_in_v2(&server, &ns).await;
    assert_eq!(status.code, 500);
    assert_eq!(
        status.message,
        "conversion webhook for stable.example.com/v1, Kind=CronTab failed: the in-process webhook refused the review: no such version"
    );

    let (server, ns) = with_webhook(|body| {
        Ok(answer(
            body,
            Some("someone-else"),
            json!({"status": "Success"}),
        ))
    })
    .await;
    let status = read_in_v2(&server, &ns).await;
    assert_eq!(status.code, 500);
    let (prefix, suffix) = (
        "conversion webhook for stable.example.com/v1, Kind=CronTab failed: expected response.uid=\"",
        "\", got \"someone-else\"",
    );
    assert!(
        status.message.starts_with(prefix) && status.message.ends_with(suffix),
        "{}",
        status.message
    );
}
