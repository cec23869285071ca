//! crd-server: an API server for Kubernetes custom resources.
//!
//! - [`store`]: the storage contract (get, list, create, compare-and-swap update, delete,
//!   watch from a revision) and its backends.
#![deny(missing_docs)]

pub mod store;
