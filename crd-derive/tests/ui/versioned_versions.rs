// The module's version list: duplicates, two storage versions, malformed names and keys.
use serde::{Deserialize, Serialize};

#[crd_runtime::versioned(
    version(name = "v1alpha1", storage),
    version(name = "v1alpha1"),
    version(name = "v1", storage),
    version(name = "version2"),
    version(name = "v3", servd = false),
    version(served = false)
)]
mod gizmo {
    use super::*;

    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", kind = "Gizmo")]
    pub struct GizmoSpec {
        pub size: i32,
    }
}

#[crd_runtime::versioned()]
mod empty {
    use super::*;

    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", kind = "Empty")]
    pub struct EmptySpec {
        pub size: i32,
    }
}

fn main() {}
