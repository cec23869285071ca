//! Type-level mistakes: checked by rustc through the generated code, each error at the
//! attribute value that caused it.
use crd_runtime::{CrdSchema, CustomResource};
use serde::{Deserialize, Serialize};

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Item {
    pub name: String,
    pub note: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Status {
    pub ready: bool,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[crd(group = "example.com", version = "v1", kind = "Defaults", status = Status,
      printcolumn(name = "Ready", type = "boolean", json_path = ".status.notThere"))]
pub struct DefaultsSpec {
    #[crd(default = "three")]
    pub count: i32,
    #[crd(default = 5)]
    pub name: String,
    #[crd(list_type = "map", list_map_keys = ["name", "id", "note"])]
    pub items: Vec<Item>,
    #[crd(items(max_length = 3))]
    pub not_a_list: String,
}

fn main() {}
