//! What `#[derive(CustomResource)]` gives `CronTab` for talking to an API server:
//! identity constants, REST paths, metadata, and `CronTabList` reading real list responses.

use crd_runtime::meta::ObjectMeta;
use crd_runtime::{CustomResourceExt, PathError, Scope};
use crd_toolkit_examples::crontab::{CronTab, CronTabList, CronTabSpec};
use serde_json::json;

#[test]
fn identity_constants() {
    assert_eq!(CronTab::GROUP, "stable.example.com");
    assert_eq!(CronTab::VERSION, "v1");
    assert_eq!(CronTab::API_VERSION, "stable.example.com/v1");
    assert_eq!(CronTab::KIND, "CronTab");
    assert_eq!(CronTab::PLURAL, "crontabs");
    assert_eq!(CronTab::SINGULAR, "crontab");
    assert_eq!(CronTab::LIST_KIND, "CronTabList");
    assert_eq!(CronTab::SCOPE, Scope::Namespaced);
    assert_eq!(
        (CronTab::STATUS_SUBRESOURCE, CronTab::SCALE_SUBRESOURCE),
        (true, true)
    );
    // The constants agree with the CRD the same derive emits.
    let crd = CronTab::crd();
    let names = &crd.spec.names;
    assert_eq!(names.singular.as_deref(), Some(CronTab::SINGULAR));
    assert_eq!(crd.spec.scope, CronTab::SCOPE.as_str());
    let sub = crd.spec.versions[0].subresources.as_ref().unwrap();
    assert_eq!(sub.status.is_some(), CronTab::STATUS_SUBRESOURCE);
    assert_eq!(sub.scale.is_some(), CronTab::SCALE_SUBRESOURCE);
}

#[test]
fn rest_paths() {
    let base = "/apis/stable.example.com/v1";
    assert_eq!(
        CronTab::collection_path(Some("jobs")).unwrap(),
        format!("{base}/namespaces/jobs/crontabs")
    );
    assert_eq!(
        CronTab::collection_path(None).unwrap(),
        format!("{base}/crontabs")
    );
    assert_eq!(
        CronTab::object_path(Some("jobs"), "daily").unwrap(),
        format!("{base}/namespaces/jobs/crontabs/daily")
    );
    assert_eq!(
        CronTab::status_path(Some("jobs"), "daily").unwrap(),
        format!("{base}/namespaces/jobs/crontabs/daily/status")
    );
    assert_eq!(
        CronTab::scale_path(Some("jobs"), "daily").unwrap(),
        format!("{base}/namespaces/jobs/crontabs/daily/scale")
    );
    assert_eq!(
        CronTab::object_path(None, "daily"),
        Err(PathError::NamespaceRequired { kind: "CronTab" })
    );
    assert!(CronTab::object_path(Some("jobs"), "../secrets").is_err());
}

#[test]
fn metadata_is_source_compatible_with_k8s_openapi() {
    // Written exactly as with k8s-openapi's ObjectMeta (feature `kube`).
    let mut ct = CronTab::new("daily", CronTabSpec::default_for_test());
    ct.metadata = ObjectMeta {
        name: Some("daily".into()),
        namespace: Some("jobs".into()),
        labels: Some([("app".to_string(), "cron".to_string())].into()),
        ..Default::default()
    };
    assert_eq!(ct.metadata().namespace.as_deref(), Some("jobs"));
    ct.metadata_mut().finalizers = Some(vec!["x/y".into()]);
    let v = serde_json::to_value(&ct).unwrap();
    assert_eq!(
        v["metadata"],
        json!({"name": "daily", "namespace": "jobs", "labels": {"app": "cron"}, "finalizers": ["x/y"]})
    );
}

/// A list response as the API server sends it (`kubectl get crontabs -o json --raw`).
fn list_response() -> serde_json::Value {
    json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTabList",
        "metadata": {"resourceVersion": "184470", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "remainingItemCount": 1},
        "items": [
            {
                "apiVersion": "stable.example.com/v1",
                "kind": "CronTab",
                "metadata": {
                    "name": "daily", "namespace": "jobs",
                    "uid": "6c7d8b1e-3f1a-4a1e-9a52-1f0b5b0f2a11",
                    "resourceVersion": "184467", "generation": 1,
                    "creationTimestamp": "2024-05-01T10:00:00Z",
                    "managedFields": [{"manager": "kubectl", "operation": "Update",
                        "apiVersion": "stable.example.com/v1", "time": "2024-05-01T10:00:00Z",
                        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
                },
                "spec": {"cronSpec": "0 3 * * *", "image": "busybox", "replicas": 2},
                "status": {"replicas": 2, "labelSelector": "app=daily"}
            },
            {
                "apiVersion": "stable.example.com/v1",
                "kind": "CronTab",
                "metadata": {"name": "hourly", "namespace": "jobs", "resourceVersion": "184468"},
                "spec": {"cronSpec": "0 * * * *", "replicas": 1}
            }
        ]
    })
}

#[test]
fn list_type_reads_a_real_list_response() {
    let list: CronTabList = serde_json::from_value(list_response()).unwrap();
    assert_eq!(list.metadata.resource_version.as_deref(), Some("184470"));
    assert_eq!(
        list.metadata.continue_.as_deref(),
        Some("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ")
    );
    let names: Vec<_> = list
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["daily", "hourly"]);
    assert_eq!(list.items[0].status.as_ref().unwrap().replicas, Some(2));
    assert!(list.items[1].status.is_none());
    // And back: the same JSON, apiVersion/kind included.
    assert_eq!(serde_json::to_value(&list).unwrap(), list_response());
}

#[test]
fn list_type_checks_kind_and_tolerates_null_items() {
    let err = serde_json::from_value::<CronTabList>(json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTab", "items": []
    }))
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "kind is \"CronTab\", expected \"CronTabList\""
    );
    let err = serde_json::from_value::<CronTabList>(json!({
        "apiVersion": "stable.example.com/v2", "kind": "CronTabList", "items": []
    }))
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("apiVersion is \"stable.example.com/v2\"")
    );
    let empty: CronTabList = serde_json::from_value(json!({
        "apiVersion": "stable.example.com/v1", "kind": "CronTabList",
        "metadata": {"resourceVersion": "1"}, "items": null
    }))
    .unwrap();
    assert!(empty.items.is_empty());
}

trait ForTest {
    fn default_for_test() -> Self;
}

impl ForTest for CronTabSpec {
    fn default_for_test() -> Self {
        CronTabSpec {
            cron_spec: "* * * * *".into(),
            image: None,
            replicas: 1,
        }
    }
}

/// The API server stores a CronTab sent without `spec` (no spec field is required)
/// and applies no defaults inside the missing spec. The Rust type still reads it,
/// with the spec schema's defaults, as if `spec: {}` had been sent. Found by the
/// `engine_admit` fuzz target (FUZZING.md): it failed with "missing field `cronSpec`".
#[test]
fn an_object_stored_without_spec_reads_with_the_spec_defaults() {
    let mut object = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "bare"}});
    CronTab::engine()
        .unwrap()
        .admit(&mut object)
        .expect("admitted: no spec field is required");
    assert_eq!(object.get("spec"), None);
    let typed: CronTab = serde_json::from_value(object).expect("readable");
    assert_eq!(typed.spec.cron_spec, "5 0 * * *");
    assert_eq!(typed.spec.replicas, 1);
    assert_eq!(typed.spec.image, None);
}
