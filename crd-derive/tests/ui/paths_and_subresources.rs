use crd_runtime::{CrdSchema, CustomResource};
use serde::{Deserialize, Serialize};

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct Status {
    pub ready: bool,
}

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "NoStatus",
      scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas"))]
pub struct NoStatusSpec {
    pub replicas: i32,
}

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "Paths", status = Status,
      printcolumn(name = "A", type = "string", json_path = "spec.a"),
      printcolumn(name = "B", type = "string", json_path = ".spec.missing"),
      printcolumn(name = "C", type = "text", json_path = ".metadata.nmae"),
      printcolumn(name = "D", type = "boolean", json_path = "status.gone", unchecked_path),
      selectable_field = ".nope")]
pub struct PathsSpec {
    pub a: String,
}

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "Example", version = "1", kind = "lower")]
pub struct NamesSpec {
    pub a: String,
}

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "Snake_Kind")]
pub struct SnakeSpec {
    pub a: String,
}

fn main() {}
