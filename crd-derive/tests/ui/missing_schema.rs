use crd_runtime::CrdSchema;
use serde::{Deserialize, Serialize};

/// A type from another crate that knows nothing about CRDs.
#[derive(Serialize, Deserialize)]
pub struct Opaque {
    pub x: i32,
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct Spec {
    pub name: String,
    pub opaque: Opaque,
    pub many: Vec<Opaque>,
}

fn main() {}
