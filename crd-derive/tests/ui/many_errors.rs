//! Many mistakes in one derive: every one is reported, in one compiler run.
use crd_runtime::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "Busy", catagories = ["all"],
      scale(spec_replicas_path = "spec.replicas", status_replicas_path = ".status.replicas"),
      printcolumn(name = "X", json_path = ".spec.x"))]
pub struct BusySpec {
    #[crd(minimum = 10, maximum = 1, format = 3)]
    pub x: i32,
    #[crd(list_type = "map")]
    pub y: Vec<String>,
    #[crd(nulable)]
    pub z: Option<String>,
}

fn main() {}
