//! Resource-level attributes: names, scope, versions flags, subresources, columns,
//! selectable fields, CRD metadata, conversion, root schema — each checked in the CRD
//! and against the API server's CRD validation (`assert_valid_crd`).

use crd_runtime::model::CustomResourceDefinition;
use crd_runtime::{CrdSchema, CustomResource, CustomResourceExt, Scope, assert_valid_crd};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Defaults everywhere: a cluster-scoped kind with no status.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "example.com", version = "v1alpha1", kind = "Policy")]
pub struct PolicySpec {
    pub rule: String,
}

#[test]
fn defaults_are_sensible() {
    let crd = Policy::crd();
    assert_valid_crd(&crd);
    assert_eq!(crd.name(), "policies.example.com");
    let n = &crd.spec.names;
    assert_eq!(
        (n.plural.as_str(), n.singular.as_deref()),
        ("policies", Some("policy"))
    );
    assert_eq!(n.list_kind, None);
    assert_eq!(crd.spec.scope, "Cluster");
    assert_eq!(Policy::SCOPE, Scope::Cluster);
    assert_eq!(Policy::API_VERSION, "example.com/v1alpha1");
    let v = &crd.spec.versions[0];
    assert!(v.served && v.storage);
    assert_eq!(v.subresources, None);
    assert_eq!(v.deprecated, None);
    let root = v.open_api_schema().unwrap();
    assert_eq!(
        root.required,
        Some(vec!["spec".to_string()]),
        "spec has required fields"
    );
    assert_eq!(
        root.description.as_deref(),
        Some("Defaults everywhere: a cluster-scoped kind with no status.")
    );
    assert_eq!(root.properties.as_ref().unwrap().len(), 1);
}

/// Names the API server accepts that are not the usual shape: a version that is not
/// `v<N>[alpha|beta<M>]` and a group label longer than a lone DNS label may be.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(
    group = "a-group-label-that-is-longer-than-sixty-three-characters-which-subdomains-allow.example.com",
    version = "stable",
    kind = "Channel"
)]
pub struct ChannelSpec {
    pub rule: String,
}

#[test]
fn server_valid_names_of_unusual_shape_are_accepted() {
    let crd = Channel::crd();
    assert_valid_crd(&crd);
    assert_eq!(crd.spec.versions[0].name, "stable");
    assert!(crd.spec.group.split('.').next().unwrap().len() > 63);
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    pub replicas: i32,
    #[serde(default)]
    pub selector: Option<String>,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[crd(
    group = "widgets.example.com",
    version = "v2beta1",
    kind = "Widget",
    plural = "widgetz",
    singular = "onewidget",
    list_kind = "WidgetCollection",
    namespaced,
    short_names = ["wd", "wdg"],
    categories = ["all", "toys"],
    status = WidgetStatus,
    scale(spec_replicas_path = ".spec.size", status_replicas_path = ".status.replicas"),
    printcolumn(name = "Size", type = "integer", json_path = ".spec.size", format = "int32", priority = 1, description = "How big"),
    printcolumn(name = "Selector", type = "string", json_path = ".status.selector"),
    selectable_field = ".spec.color",
    served = true,
    storage = true,
    deprecated,
    deprecation_warning = "use v3",
    label("app.kubernetes.io/part-of", "widgets"),
    annotation("controller-gen.kubebuilder.io/version", "v0.16.0"),
    conversion(strategy = "Webhook", review_versions = ["v1"], service_namespace = "system", service_name = "webhook", service_path = "/convert", service_port = 8443),
    root(
        title = "Widget",
        required = ["spec", "metadata"],
        validation(rule = "self.metadata.name.size() < 20", message = "short names only"),
        property(name = "apiVersion", type = "string", description = "APIVersion defines the versioned schema."),
        property(name = "kind", type = "string"),
        property(name = "metadata", type = "object"),
    ),
    spec_schema(description = "WidgetSpec defines the desired state."),
    status_schema(description = "Observed."),
    root_type = Gadget,
    derive = [PartialEq, Default],
)]
pub struct WidgetSpec {
    #[crd(minimum = 0)]
    pub size: i32,
    #[serde(default)]
    pub color: String,
}

#[test]
fn every_resource_attribute_lands_in_the_crd() {
    let crd = Gadget::crd();
    assert_valid_crd(&crd);
    let n = &crd.spec.names;
    assert_eq!(crd.name(), "widgetz.widgets.example.com");
    assert_eq!(n.singular.as_deref(), Some("onewidget"));
    assert_eq!(n.list_kind.as_deref(), Some("WidgetCollection"));
    assert_eq!(n.short_names, Some(vec!["wd".into(), "wdg".into()]));
    assert_eq!(n.categories, Some(vec!["all".into(), "toys".into()]));
    assert_eq!(crd.spec.scope, "Namespaced");
    let labels = crd.metadata.labels.as_ref().unwrap();
    assert_eq!(labels["app.kubernetes.io/part-of"], "widgets");
    assert!(
        crd.metadata
            .annotations
            .as_ref()
            .unwrap()
            .contains_key("controller-gen.kubebuilder.io/version")
    );
    let conv = crd.spec.conversion.as_ref().unwrap();
    assert_eq!(conv.strategy, "Webhook");
    let svc = conv
        .webhook
        .as_ref()
        .unwrap()
        .client_config
        .as_ref()
        .unwrap()
        .service
        .as_ref()
        .unwrap();
    assert_eq!(
        (svc.namespace.as_str(), svc.name.as_str(), svc.port),
        ("system", "webhook", Some(8443))
    );

    let v = &crd.spec.versions[0];
    assert_eq!(v.name, "v2beta1");
    assert!(v.served && v.storage);
    assert_eq!(
        (v.deprecated, v.deprecation_warning.as_deref()),
        (Some(true), Some("use v3"))
    );
    let sub = v.subresources.as_ref().unwrap();
    assert!(sub.status.is_some());
    assert_eq!(sub.scale.as_ref().unwrap().spec_replicas_path, ".spec.size");
    let cols = v.additional_printer_columns.as_ref().unwrap();
    assert_eq!(cols.len(), 2);
    assert_eq!(
        (cols[0].priority, cols[0].format.as_deref()),
        (Some(1), Some("int32"))
    );
    assert_eq!(
        v.selectable_fields.as_ref().unwrap()[0].json_path,
        ".spec.color"
    );

    let root = v.open_api_schema().unwrap();
    assert_eq!(root.title.as_deref(), Some("Widget"));
    assert_eq!(root.required, Some(vec!["spec".into(), "metadata".into()]));
    assert_eq!(
        root.x_kubernetes_validations.as_ref().unwrap()[0]
            .message
            .as_deref(),
        Some("short names only")
    );
    let props = root.properties.as_ref().unwrap();
    assert_eq!(
        props["apiVersion"].description.as_deref(),
        Some("APIVersion defines the versioned schema.")
    );
    assert_eq!(props["metadata"].type_str(), "object");
    assert_eq!(
        props["spec"].description.as_deref(),
        Some("WidgetSpec defines the desired state.")
    );
    assert_eq!(props["status"].description.as_deref(), Some("Observed."));
    assert_eq!(props["status"].required, Some(vec!["replicas".into()]));
}

#[test]
fn root_type_round_trips_through_json() {
    let mut g = Gadget::new(
        "w1",
        WidgetSpec {
            size: 3,
            color: "red".into(),
        },
    );
    g.metadata.namespace = Some("default".into());
    g.status = Some(WidgetStatus {
        replicas: 2,
        selector: None,
    });
    let v = serde_json::to_value(&g).unwrap();
    assert_eq!(v["apiVersion"], "widgets.example.com/v2beta1");
    assert_eq!(v["kind"], "Widget");
    assert_eq!(v["metadata"], json!({"name": "w1", "namespace": "default"}));
    let back: Gadget = serde_json::from_value(v).unwrap();
    assert_eq!(back, g);
    // A wrong kind is rejected instead of silently read.
    let err = serde_json::from_value::<Gadget>(
        json!({"apiVersion": "widgets.example.com/v2beta1", "kind": "Other", "spec": {"size": 1}}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("kind is \"Other\""), "{err}");
    // `Default` was added with `derive = [...]`.
    assert_eq!(Gadget::default().spec.size, 0);
}

/// A derived type's `admit()` and `validate()` run the CRD's CEL rules too: the
/// same engine as `Engine::for_crd`, `crd-gen validate` and crd-server.
#[test]
fn derived_admission_runs_the_cel_rules() {
    let spec = || WidgetSpec {
        size: 3,
        color: "red".into(),
    };
    let mut ok = Gadget::new("short", spec());
    ok.metadata.namespace = Some("default".into());
    ok.admit().unwrap();
    let mut long = Gadget::new("a-name-far-too-long-for-the-rule", spec());
    long.metadata.namespace = Some("default".into());
    assert_eq!(
        long.validate().strings(),
        vec!["<nil>: Invalid value: short names only"]
    );
    let err = long.admit().unwrap_err();
    assert_eq!(err.to_string(), "<nil>: Invalid value: short names only");
    assert!(Gadget::engine().unwrap().has_rules());
}

/// A spec with only optional fields: `spec` is optional too, and reads as `{}`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[crd(group = "example.com", version = "v1", kind = "Note", namespaced)]
pub struct NoteSpec {
    pub text: Option<String>,
}

#[test]
fn spec_without_required_fields_is_optional() {
    let crd: CustomResourceDefinition = Note::crd();
    assert_valid_crd(&crd);
    assert_eq!(
        crd.spec.versions[0].open_api_schema().unwrap().required,
        None
    );
    let n: Note = serde_json::from_value(json!({"metadata": {"name": "n"}})).unwrap();
    assert_eq!(n.spec, NoteSpec { text: None });
    let yaml = Note::crd_yaml().unwrap();
    assert!(yaml.contains("name: notes.example.com"), "{yaml}");
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct PostgresStatus {
    #[serde(rename = "PostgresClusterStatus")]
    pub cluster_status: Option<String>,
}

/// What the API server accepts and real CRDs use: a lower-case kind (zalando's
/// `postgresql`, with `root_type` naming the Rust type), two columns with one name
/// (cluster-api), and a column pointing at a field the schema no longer has (velero),
/// allowed with `unchecked_path`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "acid.zalan.do", version = "v1", kind = "postgresql", root_type = Postgresql,
      namespaced, status = PostgresStatus,
      printcolumn(name = "Status", type = "string", json_path = ".status.PostgresClusterStatus"),
      printcolumn(name = "Status", type = "string", json_path = ".spec.teamId", priority = 1),
      printcolumn(name = "Node", type = "string", json_path = ".status.node", unchecked_path))]
pub struct PostgresqlSpec {
    #[serde(rename = "teamId")]
    pub team_id: String,
}

#[test]
fn server_accepted_names_and_columns_derive() {
    let crd = Postgresql::crd();
    assert_valid_crd(&crd);
    assert_eq!(crd.spec.names.kind, "postgresql");
    assert_eq!(crd.name(), "postgresqls.acid.zalan.do");
    let columns = crd.spec.versions[0]
        .additional_printer_columns
        .as_ref()
        .unwrap();
    let names: Vec<_> = columns
        .iter()
        .map(|c| (c.name.as_str(), c.json_path.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("Status", ".status.PostgresClusterStatus"),
            ("Status", ".spec.teamId"),
            ("Node", ".status.node"),
        ]
    );
    let pg = Postgresql::new(
        "acid",
        PostgresqlSpec {
            team_id: "acid".into(),
        },
    );
    assert_eq!(serde_json::to_value(&pg).unwrap()["kind"], "postgresql");
}
