// Field and variant actions that cannot be: unknown versions, impossible orders, names
// that collide, a deprecation without the `deprecated_` prefix. All reported at once.
use serde::{Deserialize, Serialize};

#[crd_runtime::versioned(
    version(name = "v1alpha1"),
    version(name = "v1beta1"),
    version(name = "v1")
)]
mod gizmo {
    use super::*;

    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[crd(group = "example.com", kind = "Gizmo")]
    pub struct GizmoSpec {
        #[versioned(added(since = "v2"))]
        pub unknown: i32,
        #[versioned(added(since = "v1alpha1"))]
        pub pointless: i32,
        #[versioned(added(since = "v1"), removed(since = "v1beta1"))]
        pub added_after_removal: i32,
        #[versioned(removed(since = "v1beta1"), changed(since = "v1", from_name = "older"))]
        pub changed_after_removal: i32,
        #[versioned(changed(since = "v1", from_name = "size"))]
        pub width: i32,
        pub size: i32,
        #[versioned(deprecated(since = "v1", note = "unused"))]
        pub colour: String,
        #[versioned(changed(since = "v1"))]
        pub unchanged: i32,
        #[versioned(changed(since = "v1beta1", upgrade_with = "f"), addded(since = "v1"))]
        pub typo: i32,
        #[versioned(removed(since = "v1", default = "f", from_name = "x"))]
        pub wrong_key: i32,
    }

    #[derive(crd_runtime::CrdSchema, Serialize, Deserialize, Clone, Debug)]
    pub enum Mode {
        Fast,
        #[versioned(changed(since = "v1", from_type = "u8"))]
        Slow,
    }
}

fn main() {}
