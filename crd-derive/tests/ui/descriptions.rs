use crd_runtime::CrdSchema;
use serde::{Deserialize, Serialize};

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct Bad {
    #[crd(descriptions = ["/properties/a"])]
    pub list: String,
    #[crd(descriptions = {"properties/a": "x"})]
    pub relative: String,
    #[crd(descriptions = {"/properties/a": 3})]
    pub number: String,
}

fn main() {}
