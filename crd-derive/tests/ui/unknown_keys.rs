use crd_runtime::{CrdSchema, CustomResource};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "Thing", shortnames = ["th"], namspaced)]
pub struct ThingSpec {
    #[crd(max_lenght = 3)]
    pub name: String,
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct Other {
    #[crd(minimum = 1, pattern = "x", totally_unknown)]
    pub a: i32,
}

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "Misplaced", pattern = "x")]
pub struct MisplacedSpec {
    pub a: i32,
}

fn main() {}
