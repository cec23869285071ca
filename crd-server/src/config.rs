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

/// TLS files (PEM).
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// Certificate chain.
    pub cert: PathBuf,
    /// Private key.
    pub key: PathBuf,
}

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
    /// `--nodes`, `--cluster-cidr` and the clock of the workload controllers.
    pub workloads: crate::Workloads,
}

/// Parses a duration as Go's `time.ParseDuration` does (`15s`, `600ms`, `1m30s`,
/// `1.5h`; units ns, us, µs, ms, s, m, h), for the `--leader-elect-*` flags.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("time: invalid duration {text:?}");
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = text;
    let mut total = 0f64;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("time: missing unit in duration {text:?}"))?;
        let value: f64 = rest[..n].parse().map_err(|_| bad())?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..u] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            unit => return Err(format!("time: unknown unit {unit:?} in duration {text:?}")),
        };
        total += value * scale;
        rest = &rest[u..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

/// The default `--service-cluster-ip-range`: kubeadm's and kind's (kube-apiserver's own
/// is `10.0.0.0/24`), the range operator authors see on their clusters.
pub const DEFAULT_SERVICE_CLUSTER_IP_RANGE: &str = "10.96.0.0/12";
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
            workloads: crate::Workloads::default(),
        }
    }
}

/// Why a server did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_duration("15s"), Ok(Duration::from_secs(15)));
        assert_eq!(parse_duration("600ms"), Ok(Duration::from_millis(600)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(
            parse_duration("10"),
            Err("time: missing unit in duration \"10\"".into())
        );
        assert_eq!(
            parse_duration("3d"),
            Err("time: unknown unit \"d\" in duration \"3d\"".into())
        );
        assert!(parse_duration("").is_err() && parse_duration("-1s").is_err());
    }
}
