//! The Workload operator type: k8s-openapi types inside a derived spec and status
//! (feature `kube`), its CRD (golden `examples/workload-crd.yaml`), the pod template's
//! metadata kept by the API server's pipeline, and `kube::Api` calls for it and for its
//! CRD (converted to k8s-openapi's type) against kube's mock service.
//! Run with `cargo test -p crd-toolkit-examples --features kube --test workload`.

use crd_runtime::{CustomResourceExt, Engine, assert_valid_crd};
use crd_toolkit_examples::workload::{Workload, WorkloadSpec, WorkloadStatus};
use http::{Method, Request, Response};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::api::PostParams;
use kube::client::Body;
use kube::{Api, Client};
use serde_json::{Value, json};
use tower_test::mock;

#[test]
fn crd_is_valid_and_matches_the_golden_file() {
    let crd = Workload::crd();
    assert_valid_crd(&crd);
    let yaml = Workload::crd_yaml().unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/workload-crd.yaml");
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(path, &yaml).unwrap();
    }
    let golden = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        golden == yaml,
        "{path} is out of date (rerun with UPDATE_GOLDEN=1 and review the diff)"
    );
}

#[test]
fn schema_says_what_controller_gen_says_for_the_embedded_types() {
    let crd = serde_json::to_value(Workload::crd()).unwrap();
    let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
    let spec = &root["spec"]["properties"];
    let template_meta = &spec["template"]["properties"]["metadata"]["properties"];
    for field in ["annotations", "finalizers", "labels", "name", "namespace"] {
        assert!(
            template_meta.get(field).is_some(),
            "template metadata lacks {field}"
        );
    }
    assert_eq!(spec["selector"]["x-kubernetes-map-type"], json!("atomic"));
    let containers = &spec["template"]["properties"]["spec"]["properties"]["containers"];
    let ports = &containers["items"]["properties"]["ports"];
    assert_eq!(
        ports["x-kubernetes-list-map-keys"],
        json!(["containerPort", "protocol"])
    );
    assert_eq!(
        ports["items"]["properties"]["protocol"]["default"],
        json!("TCP")
    );
    assert_eq!(
        spec["maxUnavailable"]["x-kubernetes-int-or-string"],
        json!(true)
    );
    let cpu = &spec["resources"]["properties"]["requests"]["additionalProperties"];
    assert!(cpu["pattern"].as_str().unwrap().starts_with("^(\\+|-)?"));
    let conditions = &root["status"]["properties"]["conditions"];
    assert_eq!(conditions["x-kubernetes-list-type"], json!("map"));
    assert_eq!(
        conditions["items"]["required"],
        json!(["lastTransitionTime", "message", "reason", "status", "type"])
    );
}

fn object() -> Value {
    json!({
        "apiVersion": "apps.example.com/v1", "kind": "Workload",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}, "annotations": {"team": "a"},
                             "unknownKey": "dropped"},
                "spec": {"containers": [{"name": "main", "image": "nginx",
                                         "ports": [{"containerPort": 80}],
                                         "notAField": true}]}
            },
            "maxUnavailable": "25%"
        }
    })
}

#[test]
fn engine_keeps_the_template_metadata_prunes_unknown_fields_and_defaults() {
    let crd = Workload::crd();
    let engine = Engine::for_crd(&crd, "v1").unwrap();
    let mut value = object();
    engine.admit(&mut value).unwrap();
    let template = &value["spec"]["template"];
    assert_eq!(template["metadata"]["labels"], json!({"app": "web"}));
    assert_eq!(template["metadata"]["annotations"], json!({"team": "a"}));
    assert!(template["metadata"].get("unknownKey").is_none());
    let container = &template["spec"]["containers"][0];
    assert!(container.get("notAField").is_none());
    assert_eq!(container["ports"][0]["protocol"], json!("TCP"));
    assert_eq!(value["spec"]["replicas"], json!(1));
}

#[test]
fn typed_admit_keeps_the_template_labels() {
    let mut workload = Workload::new("web", WorkloadSpec::new("web", "nginx", 3));
    workload.admit().unwrap();
    let meta = workload.spec.template.metadata.as_ref().unwrap();
    assert_eq!(meta.labels.as_ref().unwrap()["app"], "web");
}

#[test]
fn invalid_conditions_are_rejected_with_the_api_servers_wording() {
    let crd = Workload::crd();
    let engine = Engine::for_crd(&crd, "v1").unwrap();
    let mut value = object();
    value["status"] = json!({"conditions": [{
        "type": "Ready", "status": "Maybe", "reason": "", "message": "",
        "lastTransitionTime": "2026-01-01T00:00:00Z"
    }]});
    let errors = engine.admit(&mut value).unwrap_err().to_string();
    assert!(
        errors.contains(r#"status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown""#),
        "{errors}"
    );
    assert!(
        errors.contains("status.conditions[0].reason: Invalid value"),
        "{errors}"
    );
}

#[tokio::test]
async fn kube_api_creates_the_crd_and_a_workload() {
    let (service, mut handle) = mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let server = tokio::spawn(async move {
        let mut seen = Vec::new();
        for _ in 0..2 {
            let (request, respond) = handle.next_request().await.expect("a request");
            let (parts, body) = request.into_parts();
            let body: Value = serde_json::from_slice(&body.collect_bytes().await.unwrap()).unwrap();
            // The API server answers with what it stored.
            let reply = Response::builder()
                .status(201)
                .header("content-type", "application/json")
                .body(Body::from(serde_json::to_vec(&body).unwrap()))
                .unwrap();
            respond.send_response(reply);
            seen.push((parts.method, parts.uri.to_string(), body));
        }
        seen
    });

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let created = crds
        .create(&PostParams::default(), &Workload::crd().into())
        .await
        .unwrap();
    assert_eq!(created.spec.names.kind, "Workload");

    let workloads: Api<Workload> = Api::namespaced(client, "prod");
    let mut workload = Workload::new("web", WorkloadSpec::new("web", "nginx", 3));
    workload.status = Some(WorkloadStatus {
        conditions: vec![Condition {
            type_: "Ready".into(),
            status: "True".into(),
            reason: "PodsReady".into(),
            message: "3/3 ready".into(),
            last_transition_time: Time("2026-01-01T00:00:00Z".parse().unwrap()),
            observed_generation: Some(1),
        }],
        ..Default::default()
    });
    let created = workloads
        .create(&PostParams::default(), &workload)
        .await
        .unwrap();
    assert_eq!(created.spec, workload.spec);

    let seen = server.await.unwrap();
    assert_eq!(seen[0].0, Method::POST);
    assert!(
        seen[0]
            .1
            .starts_with("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    );
    let schema = &seen[0].2["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    assert_eq!(
        schema["properties"]["spec"]["required"],
        json!(["selector", "template"])
    );
    assert!(
        seen[1]
            .1
            .starts_with("/apis/apps.example.com/v1/namespaces/prod/workloads")
    );
    assert_eq!(
        seen[1].2["spec"]["template"]["metadata"]["labels"],
        json!({"app": "web"})
    );
    assert_eq!(seen[1].2["spec"]["maxUnavailable"], json!("25%"));
}
