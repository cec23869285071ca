//! crd-server: an API server that `kubectl`, `kube::Client` and kube-runtime talk to:
//! custom resources and ~40 built-in kinds, with garbage collection, namespace and CRD
//! termination, admission webhooks and policies.
//!
//! Entry points:
//! - [`start`] with a [`Config`] ([`StoreConfig`], [`TlsFiles`], the Kubernetes release
//!   in [`Config::engine`]): a server on an address, stopped when its [`RunningServer`]
//!   drops; [`app`]: the same API as an axum router without a listener;
//! - [`TestServer`]: a server on a free loopback port for tests;
//! - [`webhook`]: the crd-webhook crate (conversion and admission webhooks over HTTPS),
//!   re-exported; an operator's binary depends on crd-webhook alone;
//! - [`tls`]: the API server's serving certificate;
//! - [`store`]: the storage contract and its backends (in-memory, embedded redb, etcd);
//! - [`server::load_crd_files`]: CRDs from YAML/JSON files and directories.
//!
//! Inside, the API is shaped like kube-apiserver's: a registry of kinds, each with a
//! strategy (what differs per kind), and verbs that are the same for every kind;
//! every write runs the admission chain (admission policies and webhooks) as
//! kube-apiserver does.
#![deny(missing_docs)]

mod api;
pub mod auth;
mod bootstrap;
pub mod config;
mod controllers;
mod duration;
pub mod faults;
mod follow;
mod http_body;
mod log;
pub mod server;
mod stages;
pub mod store;
pub mod testing;
pub mod tls;
mod webhook_client;

pub use crd_webhook as webhook;

pub use api::aggregator::trust::{AggregationConfig, FrontProxy};
pub use api::conversion::{ConversionHandler, ConversionWebhooks};
pub use auth::{AuthConfig, AuthorizationMode};
pub use config::{Config, StartError, StoreConfig, TlsFiles};
pub use controllers::{
    CONTROLLERS, Clock, DEFAULT_CLUSTER_CIDR, LeaderElection, Selection as Controllers, Workloads,
};
pub use server::{RunningServer, app, start};
pub use stages::StageSet;
pub use testing::TestServer;
