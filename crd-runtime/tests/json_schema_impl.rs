//! Derived types implement `schemars::JsonSchema` with their CRD schema (feature
//! `schemars`): `cargo test -p crd-runtime --features derive,schemars --test json_schema_impl`.

use crd_runtime::{CrdSchema, CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A derived status.
#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    #[crd(minimum = 0, maximum = 5)]
    pub ready_replicas: Option<u8>,
    #[crd(list_type = "map", list_map_keys = ["name"])]
    pub items: Vec<Item>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Item {
    pub name: String,
    pub size: Option<crd_runtime::IntOrString>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "kind")]
pub enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Pair<T> {
    pub left: T,
    pub right: Option<T>,
}

/// A widget.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "example.com", version = "v1", kind = "Widget", status = Status)]
pub struct WidgetSpec {
    #[crd(validation = "self.size() > 1")]
    pub name: String,
    pub shape: Shape,
    pub pair: Pair<u32>,
}

fn json_schema<T: JsonSchema>() -> Value {
    let mut generator = SchemaSettings::openapi3().into_generator();
    T::json_schema(&mut generator).to_value()
}

fn crd_schema<T: CrdSchema>() -> Value {
    serde_json::to_value(T::crd_schema()).unwrap()
}

fn crd_node(pointer: &str) -> Value {
    let crd = serde_json::to_value(Widget::crd()).unwrap();
    crd.pointer(&format!(
        "/spec/versions/0/schema/openAPIV3Schema/properties{pointer}"
    ))
    .cloned()
    .unwrap_or_else(|| panic!("no {pointer} in the CRD"))
}

#[test]
fn json_schema_is_the_crd_sub_schema() {
    assert_eq!(json_schema::<WidgetSpec>(), crd_node("/spec"));
    assert_eq!(json_schema::<Status>(), crd_node("/status"));
    assert_eq!(json_schema::<Shape>(), crd_node("/spec/properties/shape"));
    assert_eq!(
        json_schema::<Pair<u32>>(),
        crd_node("/spec/properties/pair")
    );
    assert_eq!(
        json_schema::<Item>(),
        crd_node("/status/properties/items/items")
    );
    assert_eq!(json_schema::<Status>(), crd_schema::<Status>());
    assert_eq!(
        crd_node("/spec/properties/name/x-kubernetes-validations/0/rule"),
        "self.size() > 1"
    );
}

#[test]
fn names_and_inlining() {
    assert_eq!(Status::schema_name(), "Status");
    assert_eq!(Pair::<u32>::schema_name(), "Pair");
    assert!(Status::inline_schema());
    // Distinct ids for distinct instantiations, so schemars never mixes them up.
    assert_ne!(Pair::<u32>::schema_id(), Pair::<String>::schema_id());
    assert_eq!(
        json_schema::<Pair<String>>()["properties"]["left"],
        json!({"type": "string"})
    );
}

/// Inside a schemars type, with schemars' default (draft 2020-12) settings: inlined, no
/// `$defs`, and the conversion back (`#[crd(schemars)]`) gives the same schema.
#[derive(JsonSchema)]
pub struct Holder {
    pub status: Status,
    pub shapes: Vec<Shape>,
}

#[test]
fn inlined_in_schemars_types_and_back() {
    let root = schemars::schema_for!(Holder).to_value();
    assert_eq!(root.get("$defs"), None);
    assert_eq!(root["properties"]["status"], crd_schema::<Status>());
    assert_eq!(root["properties"]["shapes"]["items"], crd_schema::<Shape>());

    let back = crd_runtime::schemars_support::structural_schema::<Status>().unwrap();
    assert_eq!(serde_json::to_value(back).unwrap(), crd_schema::<Status>());
}
