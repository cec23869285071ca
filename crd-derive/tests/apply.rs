//! Typed apply configurations: `CronTabApply` / `XApply` serialize only the fields that
//! are set, under the names the full types use (serde renames included), with the
//! resource's identity, nested structs and lists of structs as apply types.

use std::collections::BTreeMap;

use crd_runtime::{ApplyType, CrdSchema, CustomResource, CustomResourceExt, ObjectMetaApply};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "stable.example.com",
    version = "v1",
    kind = "CronTab",
    namespaced,
    status = CronTabStatus
)]
#[serde(rename_all = "camelCase")]
pub struct CronTabSpec {
    /// The schedule.
    pub cron_spec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(rename = "replicaCount")]
    pub replicas: i32,
    pub template: Template,
    #[serde(default)]
    pub containers: Vec<Container>,
    #[serde(default)]
    pub env: BTreeMap<String, EnvValue>,
    #[serde(default)]
    pub policy: Policy,
    #[serde(default)]
    pub r#type: Option<String>,
    #[serde(skip)]
    pub local_only: bool,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Template {
    pub run_as: Option<String>,
    pub nested: Option<Inner>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Inner {
    pub depth: u8,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    pub name: String,
    pub image_pull_policy: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct EnvValue {
    pub value: String,
    pub secret: Option<bool>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub enum Policy {
    #[default]
    Allow,
    Forbid,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct CronTabStatus {
    pub last_schedule_time: Option<String>,
    pub replicas: Option<i32>,
}

/// A cluster-scoped kind without status: no `with_namespace`, no `status`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "example.com", version = "v1", kind = "Gate")]
pub struct GateSpec {
    pub open: bool,
}

#[test]
fn only_the_identity_when_nothing_is_set() {
    let a = CronTab::apply("daily").with_namespace("jobs");
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({
            "apiVersion": "stable.example.com/v1",
            "kind": "CronTab",
            "metadata": {"name": "daily", "namespace": "jobs"}
        })
    );
    assert_eq!(CronTab::API_VERSION, "stable.example.com/v1");
    // `Debug` prints what is sent (kube's `Api::patch` needs `Debug`).
    assert_eq!(
        format!("{a:?}"),
        r#"{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"daily","namespace":"jobs"}}"#
    );
    assert_eq!(
        format!("{:?}", InnerApply::default().with_depth(1)),
        r#"{"depth":1}"#
    );
}

#[test]
fn only_set_fields_under_their_serde_names() {
    let a = CronTabApply::new("daily")
        .with_namespace("jobs")
        .with_label("team", "a")
        .with_spec(
            CronTabSpecApply::default()
                .with_cron_spec("* * * * */5")
                .with_replicas(3)
                .with_type("batch"),
        );
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({
            "apiVersion": "stable.example.com/v1",
            "kind": "CronTab",
            "metadata": {"name": "daily", "namespace": "jobs", "labels": {"team": "a"}},
            "spec": {"cronSpec": "* * * * */5", "replicaCount": 3, "type": "batch"}
        })
    );
}

#[test]
fn nested_structs_lists_and_maps_are_apply_types() {
    let spec = CronTabSpecApply::default()
        .with_template(TemplateApply::default().with_nested(InnerApply::default().with_depth(2)))
        .with_containers(vec![
            ContainerApply::default().with_name("main"),
            ContainerApply::default()
                .with_name("side")
                .with_image_pull_policy("Always"),
        ])
        .with_env(BTreeMap::from([(
            "MODE".to_string(),
            EnvValueApply::default().with_value("fast"),
        )]))
        .with_policy(Policy::Forbid);
    assert_eq!(
        serde_json::to_value(&spec).unwrap(),
        json!({
            "template": {"NESTED": {"depth": 2}},
            "containers": [{"name": "main"}, {"name": "side", "imagePullPolicy": "Always"}],
            "env": {"MODE": {"value": "fast"}},
            "policy": "Forbid"
        })
    );
}

#[test]
fn status_and_metadata_builders() {
    let owner = crd_runtime::meta::OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: "cm".into(),
        uid: "u-1".into(),
        ..Default::default()
    };
    let a = CronTab::apply("daily")
        .with_annotation("note", "x")
        .with_finalizer("example.com/cleanup")
        .with_owner_reference(owner)
        .with_status(CronTabStatusApply::default().with_replicas(2));
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({
            "apiVersion": "stable.example.com/v1",
            "kind": "CronTab",
            "metadata": {
                "name": "daily",
                "annotations": {"note": "x"},
                "finalizers": ["example.com/cleanup"],
                "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u-1"}]
            },
            "status": {"replicas": 2}
        })
    );
}

#[test]
fn cluster_scoped_kind() {
    let a = Gate::apply("main").with_spec(GateSpecApply::default().with_open(true));
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({"apiVersion": "example.com/v1", "kind": "Gate", "metadata": {"name": "main"}, "spec": {"open": true}})
    );
}

#[test]
fn apply_types_map_as_documented() {
    fn same<A: 'static, B: 'static>() -> bool {
        std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>()
    }
    assert!(same::<<Template as ApplyType>::Apply, TemplateApply>());
    assert!(same::<<Option<Template> as ApplyType>::Apply, TemplateApply>());
    assert!(same::<
        <Vec<Container> as ApplyType>::Apply,
        Vec<ContainerApply>,
    >());
    assert!(same::<<Policy as ApplyType>::Apply, Policy>());
    assert!(same::<<String as ApplyType>::Apply, String>());
    assert_eq!(
        serde_json::to_value(ObjectMetaApply::new("x")).unwrap(),
        json!({"name": "x"})
    );
}

/// Round trip: what the apply type sends reads back as the full type with the same values.
#[test]
fn a_fully_set_apply_reads_as_the_full_type() {
    let a = CronTab::apply("daily").with_spec(
        CronTabSpecApply::default()
            .with_cron_spec("0 * * * *")
            .with_replicas(1)
            .with_template(TemplateApply::default().with_run_as("root")),
    );
    let full: CronTab = serde_json::from_value(serde_json::to_value(&a).unwrap()).unwrap();
    assert_eq!(full.spec.cron_spec, "0 * * * *");
    assert_eq!(full.spec.replicas, 1);
    assert_eq!(full.spec.template.run_as.as_deref(), Some("root"));
    assert_eq!(full.metadata.name.as_deref(), Some("daily"));
}

/// `serialize_with` fields keep their type and are written by the function.
#[derive(CrdSchema, Serialize)]
pub struct Timed {
    #[serde(rename = "every", serialize_with = "as_seconds")]
    #[crd(schema_with = seconds_schema, required)]
    pub interval: std::time::Duration,
    pub name: Option<String>,
}

fn as_seconds<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{}s", d.as_secs()))
}

fn seconds_schema() -> crd_runtime::JSONSchemaProps {
    crd_runtime::JSONSchemaProps {
        type_: Some("string".into()),
        ..Default::default()
    }
}

/// A flattened struct: its set fields appear at the outer level.
#[derive(CrdSchema, Serialize)]
pub struct Wrapped {
    pub own: Option<i64>,
    #[serde(flatten)]
    pub common: Common,
}

#[derive(CrdSchema, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    pub display_name: Option<String>,
    pub priority: i32,
}

#[test]
fn serialize_with_and_flatten() {
    let t = TimedApply::default().with_interval(std::time::Duration::from_secs(90));
    assert_eq!(serde_json::to_value(&t).unwrap(), json!({"every": "90s"}));
    let w = WrappedApply::default()
        .with_own(1)
        .with_common(CommonApply::default().with_display_name("x"));
    assert_eq!(
        serde_json::to_value(&w).unwrap(),
        json!({"own": 1, "displayName": "x"})
    );
    assert_eq!(
        serde_json::to_value(WrappedApply::default()).unwrap(),
        json!({})
    );
}
