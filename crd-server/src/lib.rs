//! crd-server: an API server for Kubernetes custom resources that `kubectl` and
//! `kube::Client` talk to.
//!
//! - [`server`]: start a server ([`server::start`]) with a store, CRDs, TLS and a token;
//! - [`testing`]: [`testing::TestServer`], a server on a free loopback port for tests;
//! - [`api`]: the HTTP API (discovery, OpenAPI, CRDs, namespaces, custom resources);
//! - [`tls`]: serving certificates (files or a self-signed CA) and serving over rustls;
//! - [`webhook`]: a conversion webhook (`ConversionReview` over HTTPS);
//! - [`store`]: the storage contract and its backends (in-memory, embedded redb, etcd).
#![deny(missing_docs)]

#[allow(missing_docs)]
pub mod api;
pub mod server;
pub mod store;
pub mod testing;
pub mod tls;
pub mod webhook;

pub use server::{Config, RunningServer, StartError, StoreConfig, TlsFiles, app, start};
pub use testing::TestServer;
