//! kwok's default pod stages as data (`default/*.yaml`, kwok's `fast` set: no delay):
//! `pod-ready`, `pod-complete` and `pod-delete`. `--stages` replaces them.

use super::Stage;
use super::load::stages_of;

/// The default stages' sources: file name and text.
pub const SOURCES: &[(&str, &str)] = &[
    ("pod-ready.yaml", include_str!("default/pod-ready.yaml")),
    (
        "pod-complete.yaml",
        include_str!("default/pod-complete.yaml"),
    ),
    ("pod-delete.yaml", include_str!("default/pod-delete.yaml")),
];

/// The default stages.
pub fn stages() -> Vec<Stage> {
    SOURCES
        .iter()
        .flat_map(|(name, text)| {
            // They are tested (`stages_tests.rs`): a failure here is a build defect.
            stages_of(name, text).unwrap_or_default()
        })
        .collect()
}
