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
    pub leader_election: LeaderElection,
}

/// Leader election among replicas sharing a store, as kube-controller-manager's
/// `--leader-elect*` flags set it: the replica holding the Lease runs the controllers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderElection {
    /// `--leader-elect`: elect a leader (otherwise the controllers start at once).
    pub leader_elect: bool,
    /// `--leader-elect-lease-duration`: how long a holder that stopped renewing keeps
    /// the Lease, as the other replicas measure it.
    pub lease_duration: Duration,
    /// `--leader-elect-renew-deadline`: how long the leader keeps trying to renew before
    /// it stops leading (and its controllers).
    pub renew_deadline: Duration,
    /// `--leader-elect-retry-period`: the time between attempts to acquire or renew.
    pub retry_period: Duration,
    /// `--leader-elect-resource-name`: the Lease's name.
    pub resource_name: String,
    /// `--leader-elect-resource-namespace`: the Lease's namespace.
    pub resource_namespace: String,
}

impl Default for LeaderElection {
    /// kube-controller-manager's defaults: on, 15s / 10s / 2s,
    /// `kube-system/kube-controller-manager`.
    fn default() -> Self {
        LeaderElection {
            leader_elect: true,
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            resource_name: "kube-controller-manager".into(),
            resource_namespace: "kube-system".into(),
        }
    }
}

/// client-go's factor: attempts to acquire wait a retry period plus up to 1.2 more.
pub(crate) const JITTER_FACTOR: f64 = 1.2;

impl LeaderElection {
    /// No election: the controllers start at once.
    pub fn disabled() -> LeaderElection {
        LeaderElection {
            leader_elect: false,
            ..LeaderElection::default()
        }
    }

    /// The checks client-go's leader elector makes (and its messages), plus a whole
    /// second of lease, the Lease's unit.
    pub fn validate(&self) -> Result<(), String> {
        if !self.leader_elect {
            return Ok(());
        }
        if self.lease_duration <= self.renew_deadline {
            return Err("leaseDuration must be greater than renewDeadline".into());
        }
        if self.renew_deadline <= self.retry_period.mul_f64(JITTER_FACTOR) {
            return Err("renewDeadline must be greater than retryPeriod*JitterFactor".into());
        }
        if self.lease_duration < Duration::from_secs(1) {
            return Err("leaseDuration must be at least 1s (a Lease counts whole seconds)".into());
        }
        if self.retry_period.is_zero() {
            return Err("retryPeriod must be greater than zero".into());
        }
        if self.resource_name.is_empty() || self.resource_namespace.is_empty() {
            return Err("the leader election resource needs a name and a namespace".into());
        }
        Ok(())
    }
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
            leader_election: LeaderElection::default(),
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

    #[test]
    fn leader_election_checks() {
        assert_eq!(LeaderElection::default().validate(), Ok(()));
        let short = LeaderElection {
            renew_deadline: Duration::from_secs(15),
            ..LeaderElection::default()
        };
        assert_eq!(
            short.validate(),
            Err("leaseDuration must be greater than renewDeadline".into())
        );
        let jitter = LeaderElection {
            retry_period: Duration::from_secs(9),
            ..LeaderElection::default()
        };
        assert_eq!(
            jitter.validate(),
            Err("renewDeadline must be greater than retryPeriod*JitterFactor".into())
        );
        let off = LeaderElection {
            renew_deadline: Duration::from_secs(60),
            ..LeaderElection::disabled()
        };
        assert_eq!(off.validate(), Ok(()));
    }
}
