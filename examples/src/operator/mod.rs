//! A real kube-runtime operator for a derived CRD, the kind operator authors test
//! against crd-server instead of envtest.
//!
//! A [`StaticSite`] is served by a Deployment of a web server whose pages come from a
//! ConfigMap. The [`controller`] owns both children (`ownerReferences` with
//! `controller: true`, `Controller::owns`), applies them server-side so a hand edit of a
//! field it owns is taken back, reports a `Ready` condition through the status
//! subresource (server-side apply), records Events with kube's `Recorder`, guards the
//! site with a finalizer, and runs only while it holds a Lease ([`leader`]).
//!
//! `cargo run -p crd-toolkit-examples --features kube --example site-operator -- --help`
//! runs it against any API server (crd-server with kubectl included; docs/operator.md).

pub mod children;
pub mod controller;
pub mod leader;
pub mod site;

pub use controller::{Context, Error, FIELD_MANAGER, FINALIZER, run};
pub use site::{StaticSite, StaticSiteSpec, StaticSiteStatus};
