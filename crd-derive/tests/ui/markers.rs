use crd_runtime::CrdSchema;
use serde::{Deserialize, Serialize};

#[derive(CrdSchema, Serialize, Deserialize)]
#[crd(exactly_one_of(config_map, nope), at_most_one_of = ["config_map", "secret"])]
#[crd(at_least_one_of(secret, secret), exactly_one_of(1, 2))]
#[serde(rename_all = "camelCase")]
pub struct Groups {
    pub config_map: Option<String>,
    pub secret: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize)]
#[crd(at_most_one_of = ["1x", "b"])]
pub struct BadName {
    #[serde(rename = "1x")]
    pub x: Option<String>,
    pub b: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct Contradiction {
    #[crd(optional, required)]
    pub a: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize)]
pub struct OptionalButNeeded {
    #[crd(optional)]
    pub name: String,
    #[crd(optional)]
    #[serde(default)]
    pub fine: String,
    #[crd(optional, immutable)]
    pub also_fine: Option<String>,
}

#[derive(CrdSchema, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Variants {
    Fixed {
        #[crd(immutable)]
        value: Option<String>,
    },
}

fn main() {}
