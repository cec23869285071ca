use crd_runtime::CrdSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub struct FromElsewhere {
    pub x: i32,
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct Spec {
    #[crd(schemars)]
    pub other: FromElsewhere,
}

fn main() {}
