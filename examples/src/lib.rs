//! Runnable examples of crd-toolkit. The types live here so that tests can use them;
//! `examples/*.rs` are thin `main`s (`cargo run -q --example crontab`).
#![deny(missing_docs)]

pub mod crontab;
#[cfg(feature = "kube")]
pub mod crontab_admission;
pub mod crontab_v2;
mod gizmo_kind;
pub use gizmo_kind::gizmo;
#[cfg(feature = "kube")]
pub mod gizmo_operator;
pub mod markers;
#[cfg(feature = "kube")]
pub mod metrics_api;
#[cfg(feature = "kube")]
pub mod operator;
#[cfg(feature = "kube")]
pub mod workload;
