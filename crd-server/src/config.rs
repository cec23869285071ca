//! How to start a server (store, address, start-up CRDs, TLS, token, Kubernetes
//! release) and why it may not start.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crd_runtime::CustomResourceDefinition;
use crd_runtime::engine::EngineOptions;

use crate::store::StoreError;

/// Which store a server uses.
#[derive(Clone, Debug)]
pub enum StoreConfig {
    /// In memory: nothing survives the process.
    InMemory,
    /// The embedded durable store in this directory.
    DataDir(PathBuf),
    /// etcd v3 at these client URLs.
    Etcd(Vec<String>),
}

/// A certificate chain and its private key, as PEM files (crd-webhook's).
pub use crd_webhook::TlsFiles;

/// How to start a server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (port 0: a free port).
    pub listen: SocketAddr,
    /// The store.
    pub store: StoreConfig,
    /// CRDs created (or updated) at start.
    pub crds: Vec<CustomResourceDefinition>,
    /// Serve HTTPS with these files.
    pub tls: Option<TlsFiles>,
    /// Require this bearer token.
    pub token: Option<String>,
    /// The Kubernetes release whose validation to follow (messages, formats, CEL,
    /// ratcheting).
    pub engine: EngineOptions,
    /// `--service-cluster-ip-range`: the CIDR Services' cluster IPs come from (IPv4 or
    /// IPv6; its first address goes to the `kubernetes` Service).
    pub service_cluster_ip_range: String,
    /// `--service-node-port-range`: the node ports of NodePort and LoadBalancer
    /// Services (`30000-32767`, `30000+2767`).
    pub service_node_port_range: String,
    /// `--controllers`: the lifecycle controllers this server runs (all by default).
    pub controllers: crate::Controllers,
    /// `--leader-elect*`: whether replicas sharing a store elect one of them to run the
    /// controllers, and how.
    pub leader_election: crate::LeaderElection,
    /// Authentication, authorization and audit (`--token-auth-file`,
    /// `--client-ca-file`, `--authorization-mode`, `--audit-log-path`, ...).
    pub auth: crate::auth::AuthConfig,
    /// `--etcd-compaction-interval`: how often the store's history is compacted (5
    /// minutes; zero: never).
    pub etcd_compaction_interval: Duration,
    /// `--fault`: fault rules applied from the start (more can be added at run time).
    pub faults: Vec<crate::faults::FaultRule>,
    /// `--max-requests-inflight`: read-only requests served at once (400; 0: no limit).
    pub max_requests_inflight: usize,
    /// `--max-mutating-requests-inflight`: other requests served at once (200; 0: no
    /// limit).
    pub max_mutating_requests_inflight: usize,
    /// `--nodes`, `--cluster-cidr` and the clock of the workload controllers.
    pub workloads: crate::Workloads,
    /// Conversion webhooks served in process by CRD name (no flag: a library's or a
    /// test server's, [`crate::testing::TestServerBuilder::converter`]).
    pub conversion_webhooks: crate::ConversionWebhooks,
    /// How extension API servers (APIServices) are reached: the proxy's client
    /// certificate (`--proxy-client-cert-file`, `--proxy-client-key-file`).
    pub aggregation: crate::api::aggregator::trust::AggregationConfig,
}

pub use crate::duration::parse_duration;

/// The default `--service-cluster-ip-range`: kubeadm's and kind's (kube-apiserver's own
/// is `10.0.0.0/24`), the range operator authors see on their clusters.
pub const DEFAULT_SERVICE_CLUSTER_IP_RANGE: &str = "10.96.0.0/12";
/// kube-apiserver's default `--max-requests-inflight`.
pub const DEFAULT_MAX_REQUESTS_INFLIGHT: usize = 400;
/// kube-apiserver's default `--max-mutating-requests-inflight`.
pub const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT: usize = 200;
/// kube-apiserver's default `--service-node-port-range`.
pub const DEFAULT_SERVICE_NODE_PORT_RANGE: &str = "30000-32767";

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            store: StoreConfig::DataDir(PathBuf::from("./crd-server-data")),
            crds: Vec::new(),
            tls: None,
            token: None,
            engine: EngineOptions::default(),
            service_cluster_ip_range: DEFAULT_SERVICE_CLUSTER_IP_RANGE.into(),
            service_node_port_range: DEFAULT_SERVICE_NODE_PORT_RANGE.into(),
            controllers: crate::Controllers::default(),
            leader_election: crate::LeaderElection::default(),
            auth: crate::auth::AuthConfig::default(),
            etcd_compaction_interval: crate::store::compactor::DEFAULT_INTERVAL,
            faults: Vec::new(),
            max_requests_inflight: DEFAULT_MAX_REQUESTS_INFLIGHT,
            max_mutating_requests_inflight: DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
            workloads: crate::Workloads::default(),
            conversion_webhooks: crate::ConversionWebhooks::default(),
            aggregation: Default::default(),
        }
    }
}

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A webhook's listener or certificate.
    #[error("{0}")]
    Webhook(#[from] crd_webhook::Error),
    /// The store could not be opened.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// A configuration the server refuses (e.g. plain HTTP on a public address).
    #[error("{0}")]
    Config(String),
    /// A start-up CRD was refused.
    #[error("CRD {name}: {message}")]
    Crd {
        /// The CRD's name.
        name: String,
        /// The server's message.
        message: String,
    },
}
