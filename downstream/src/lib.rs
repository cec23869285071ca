//! An operator's crate as a user writes it, outside the crd-toolkit workspace:
//! - [`backup`]: kinds derived with `#[derive(CustomResource)]` (crd-runtime's `derive`
//!   feature), with CEL rules that `admit()` runs as the API server does, in two versions
//!   converted through the hub;
//! - [`crontab`]: types `build.rs` generated with crd-gen from a CRD manifest;
//! - [`webhooks`]: the admission and conversion webhooks, on crd-server's helpers.
//!
//! The tests under `tests/` use them as a user's tests do, and start crd-server's
//! `TestServer` with a `kube::Client`.

// The modules crd-gen wrote into OUT_DIR (`crontab::v1::CronTab`, …).
include!(concat!(env!("OUT_DIR"), "/crds.rs"));

pub mod backup;
pub mod webhooks;
