//! crd-gen: Kubernetes CRDs → typed Rust, as a library for `build.rs` and as a CLI.
#![deny(missing_docs)]

/// The bundled CronTab CRD from the Kubernetes documentation, used when the CLI
/// runs without arguments.
pub const BUNDLED_CRONTAB: &str = include_str!("../data/crontab.yaml");
