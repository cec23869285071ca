// What the spec struct may not say in a versioned module, and modules without one.
use serde::{Deserialize, Serialize};

#[crd_runtime::versioned(version(name = "v1alpha1"), version(name = "v1"))]
mod gizmo {
    use super::*;

    #[derive(crd_runtime::CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", kind = "Gizmo", version = "v1", storage = false)]
    pub struct GizmoSpec {
        pub size: i32,
    }
}

#[crd_runtime::versioned(version(name = "v1alpha1"), version(name = "v1"))]
mod no_spec {
    use super::*;

    #[derive(crd_runtime::CrdSchema, Serialize, Deserialize, Clone, Debug)]
    #[versioned(added(since = "v1"))]
    pub struct Part {
        pub size: i32,
    }

    #[derive(crd_runtime::CrdSchema, Serialize, Deserialize, Clone, Debug)]
    pub enum Shape {
        Square {
            #[versioned(added(since = "v1"))]
            side: i32,
        },
    }

    #[derive(Serialize, Deserialize, Clone, Debug)]
    pub struct Holder<T> {
        pub value: T,
    }
}

#[crd_runtime::versioned(version(name = "v1"))]
mod extras {
    use super::*;

    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", kind = "Extra", root(property(name = "data", type = "object")))]
    pub struct ExtraSpec {
        pub size: i32,
    }
}

fn main() {}
