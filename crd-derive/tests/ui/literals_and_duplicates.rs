use crd_runtime::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize)]
#[crd(group = "example.com", version = "v1", kind = "Thing", kind = "Other", namespaced = 1,
      short_names = "th", plural = Things)]
pub struct ThingSpec {
    #[crd(min_length = "3", max_length = -1, pattern = 5, nullable = "yes", list_type = "bag")]
    pub name: String,
    #[crd(minimum = 1, minimum = 2, default = json!({"a": }))]
    pub n: i32,
    #[crd(validation(message = "no rule"), any_of = [json!({"requried": ["a"]})])]
    pub v: Option<String>,
    #[crd(minimum = 1, maximum = 10, default = 11)]
    pub bounded: i32,
    #[crd(list_map_keys = ["name"])]
    pub no_list_type: Vec<String>,
}

fn main() {}
