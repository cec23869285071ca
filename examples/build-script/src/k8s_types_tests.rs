//! The `Workload` CRD generated with `Config::k8s_types` (build.rs, feature `kube`):
//! its nodes that are k8s-openapi types are those types, and the types derive the
//! source CRD again.

use crate::k8s_types::workload::v1::{Workload, WorkloadSpec};
use crd_runtime::CustomResourceExt;
use k8s_openapi::api::core::v1::{PodTemplateSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};
use serde_json::json;

#[test]
fn k8s_openapi_types_come_back() {
    let object: Workload = serde_json::from_value(json!({
        "apiVersion": "apps.example.com/v1",
        "kind": "Workload",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}
            },
            "resources": {"limits": {"cpu": "500m"}}
        },
        "status": {"conditions": [{
            "type": "Available", "status": "True", "reason": "Ready", "message": "",
            "lastTransitionTime": "2026-11-25T10:00:00Z"
        }]}
    }))
    .unwrap();
    let spec: &WorkloadSpec = &object.spec;
    let selector: &LabelSelector = &spec.selector;
    assert_eq!(selector.match_labels.as_ref().unwrap()["app"], "web");
    let template: &PodTemplateSpec = &spec.template;
    let containers = &template.spec.as_ref().unwrap().containers;
    assert_eq!(containers[0].image.as_deref(), Some("nginx:1.27"));
    let resources: &ResourceRequirements = spec.resources.as_ref().unwrap();
    assert_eq!(resources.limits.as_ref().unwrap()["cpu"].0, "500m");
    let conditions: &Vec<Condition> = object.status.as_ref().unwrap().conditions.as_ref().unwrap();
    assert_eq!(conditions[0].type_, "Available");
}

#[test]
fn the_types_derive_the_source_crd() {
    let source =
        crd_runtime::load_crds("workload-crd.yaml", include_str!("../../workload-crd.yaml"))
            .unwrap()
            .crds
            .remove(0)
            .crd;
    assert_eq!(
        Workload::crd().spec.versions[0].schema,
        source.spec.versions[0].schema
    );
}
