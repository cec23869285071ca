use crd_runtime::CrdSchema;
use serde::{Deserialize, Serialize};

#[derive(CrdSchema, Serialize, Deserialize)]
pub enum Mixed {
    Plain,
    WithData(String),
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub enum Tuple {
    Pair(i32, i32),
}

#[derive(CrdSchema, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Untagged {
    Nothing,
    Something { a: i32 },
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct TupleStruct(i32, String);

fn main() {}
