//! crd-server's workload kinds through `kube::Api` with k8s-openapi's types, as an
//! operator's tests would use them: a Deployment created with its defaults and
//! generation, scaled through its Scale (`patch_scale`, `replace_scale`), and a
//! refused replica count in the server's words.
//! Run with `cargo test -p crd-toolkit-examples --features kube --test workloads_api`.

use crd_server::TestServer;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v1::Scale;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::json;

fn deployment() -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}
    }))
    .expect("a Deployment")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployments_scale_through_their_scale_subresource() {
    let server = TestServer::builder().start().await.expect("server");
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    let created = deployments
        .create(&PostParams::default(), &deployment())
        .await
        .expect("create");
    assert_eq!(created.metadata.generation, Some(1));
    let spec = &created.spec;
    assert_eq!(spec.replicas, Some(1));
    assert_eq!(spec.revision_history_limit, Some(10));
    assert_eq!(spec.progress_deadline_seconds, Some(600));

    let scale = deployments
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .expect("patch_scale");
    assert_eq!(scale.spec.as_ref().and_then(|s| s.replicas), Some(3));
    assert_eq!(
        scale.status.as_ref().and_then(|s| s.selector.as_deref()),
        Some("app=web")
    );
    let d = deployments.get("web").await.expect("get");
    assert_eq!(d.metadata.generation, Some(2));
    assert_eq!(d.spec.replicas, Some(3));

    let mut scale: Scale = deployments.get_scale("web").await.expect("get_scale");
    scale.spec.as_mut().expect("scale spec").replicas = Some(5);
    let replaced = deployments
        .replace_scale("web", &PostParams::default(), &scale)
        .await
        .expect("replace_scale");
    assert_eq!(replaced.spec.and_then(|s| s.replicas), Some(5));

    let err = deployments
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": -1}})),
        )
        .await
        .expect_err("negative replicas");
    let kube::Error::Api(status) = err else {
        panic!("an API error: {err}")
    };
    assert_eq!(status.code, 422);
    assert_eq!(
        status.message,
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
}
