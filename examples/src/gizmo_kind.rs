//! The Gizmo, a kind served in three versions from one `#[crd_runtime::versioned]`
//! module (docs/versions.md): re-exported as [`crate::gizmo`].

/// A Gizmo: a light display that shows a message. Written once, served as
/// `devices.example.com/v1alpha1` (deprecated), `v1beta1` and `v1` (stored).
///
/// What changed between the versions:
///
/// | field | v1alpha1 | v1beta1 | v1 |
/// | --- | --- | --- | --- |
/// | `message` | `text` | `message` | `message` |
/// | `lights` | — | added, default 1 | ✓ |
/// | `blinkMillis` | `u16` | `u16` | `u32` |
/// | `color` | ✓ | ✓ | removed |
/// | `palette` | — | — | added |
/// | `mode: scroll` | — | — | added |
///
/// Each version's module (`gizmo::v1alpha1`, `gizmo::v1beta1`, `gizmo::v1`) holds
/// `Gizmo`, `GizmoSpec`, `Mode` and `GizmoStatus` as that version has them; what a
/// version cannot hold travels in an annotation, so reading and writing back through an
/// older version loses nothing.
#[crd_runtime::versioned(
    version(
        name = "v1alpha1",
        deprecated = "devices.example.com/v1alpha1 Gizmo is deprecated; use devices.example.com/v1"
    ),
    version(name = "v1beta1"),
    version(name = "v1")
)]
pub mod gizmo {
    use crd_runtime::CrdSchema;
    use serde::{Deserialize, Serialize};

    fn one_light() -> i32 {
        1
    }

    /// A light display that shows a message.
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[crd(
        group = "devices.example.com",
        kind = "Gizmo",
        namespaced,
        short_names = ["gz"],
        status = GizmoStatus,
        derive = [PartialEq],
        printcolumn(name = "Shown", type = "string", json_path = ".status.shown"),
        printcolumn(name = "Phase", type = "string", json_path = ".status.phase")
    )]
    #[serde(rename_all = "camelCase")]
    pub struct GizmoSpec {
        /// What the gizmo shows (`text` in v1alpha1).
        #[versioned(changed(since = "v1beta1", from_name = "text"))]
        #[crd(min_length = 1)]
        pub message: String,
        /// How many lights show it (since v1beta1; objects from v1alpha1 get one).
        #[versioned(added(since = "v1beta1", default = "one_light"))]
        #[crd(minimum = 1, maximum = 64)]
        pub lights: i32,
        /// Milliseconds between two blinks: a `u16` before v1.
        #[versioned(changed(since = "v1", from_type = "u16"))]
        #[serde(default)]
        pub blink_millis: u32,
        /// One color for every light (gone in v1, which has `palette`).
        #[versioned(removed(since = "v1"))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub color: Option<String>,
        /// The colors the lights cycle through (since v1).
        #[versioned(added(since = "v1"))]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub palette: Vec<String>,
        /// How the message is shown.
        #[serde(default)]
        pub mode: Mode,
    }

    /// How the message is shown.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub enum Mode {
        /// Lit all the time.
        #[default]
        Steady,
        /// On and off, every `blinkMillis`.
        Blink,
        /// Running along the lights (since v1).
        #[versioned(added(since = "v1"))]
        Scroll,
    }

    /// What the operator last showed.
    #[derive(CrdSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase")]
    pub struct GizmoStatus {
        /// `Showing` once the operator has reconciled the spec.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
        /// The message as the lights show it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub shown: Option<String>,
        /// The generation of the spec that `shown` reflects.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub observed_generation: Option<i64>,
    }
}
