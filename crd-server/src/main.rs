//! `crd-server`: serves custom resources to kubectl and kube::Client.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use crd_runtime::KubeVersion;
use crd_runtime::engine::EngineOptions;
use crd_server::config::parse_duration;
use crd_server::{Config, LeaderElection, StoreConfig, TlsFiles};

/// An API server kubectl and kube::Client talk to: custom resources and ~40 built-in kinds, with garbage collection, namespace and CRD termination, and admission.
#[derive(Parser, Debug)]
#[command(name = "crd-server", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Directory of the embedded durable store.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["in_memory", "etcd_servers"])]
    data_dir: Option<PathBuf>,
    /// Keep everything in memory (nothing survives a restart).
    #[arg(long, conflicts_with = "etcd_servers")]
    in_memory: bool,
    /// etcd v3 client URLs (comma-separated), e.g. http://127.0.0.1:2379.
    #[arg(long, value_name = "URL[,URL]", value_delimiter = ',')]
    etcd_servers: Vec<String>,
    /// CRD files or directories to install at start.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    crds: Vec<PathBuf>,
    /// TLS certificate (PEM); required with --tls-private-key-file off loopback.
    #[arg(long, value_name = "FILE", requires = "tls_private_key_file")]
    tls_cert_file: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert_file")]
    tls_private_key_file: Option<PathBuf>,
    /// File holding the bearer token of the single user (`system:admin`); with it, every
    /// request must carry credentials.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Static bearer tokens: CSV lines `token,user,uid,"group1,group2"`.
    #[arg(long, value_name = "FILE")]
    token_auth_file: Option<PathBuf>,
    /// CA certificates (PEM) that sign client certificates (CN: user, O: groups); needs TLS.
    #[arg(long, value_name = "FILE")]
    client_ca_file: Option<PathBuf>,
    /// A kubeconfig naming a TokenReview webhook (HTTPS) asked about bearer tokens no
    /// other authenticator takes.
    #[arg(long, value_name = "FILE")]
    authentication_token_webhook_config_file: Option<PathBuf>,
    /// CA certificates (PEM) that sign an authenticating proxy's client certificate;
    /// needs TLS.
    #[arg(long, value_name = "FILE")]
    requestheader_client_ca_file: Option<PathBuf>,
    /// The CommonNames a proxy's certificate may have (comma-separated; empty: any).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    requestheader_allowed_names: Vec<String>,
    /// Headers naming the user, tried in order (e.g. X-Remote-User).
    #[arg(long, value_name = "HEADERS", value_delimiter = ',')]
    requestheader_username_headers: Vec<String>,
    /// Headers naming the user's uid, tried in order.
    #[arg(long, value_name = "HEADERS", value_delimiter = ',')]
    requestheader_uid_headers: Vec<String>,
    /// Headers naming the user's groups (e.g. X-Remote-Group).
    #[arg(long, value_name = "HEADERS", value_delimiter = ',')]
    requestheader_group_headers: Vec<String>,
    /// Prefixes of headers carrying the user's extra (e.g. X-Remote-Extra-).
    #[arg(long, value_name = "PREFIXES", value_delimiter = ',')]
    requestheader_extra_headers_prefix: Vec<String>,
    /// The client certificate (PEM) requests proxied to an APIService's extension
    /// server show (its CA is the extension server's requestheader CA).
    #[arg(long, value_name = "FILE", requires = "proxy_client_key_file")]
    proxy_client_cert_file: Option<PathBuf>,
    /// The private key (PEM) of --proxy-client-cert-file.
    #[arg(long, value_name = "FILE", requires = "proxy_client_cert_file")]
    proxy_client_key_file: Option<PathBuf>,
    /// A kubeconfig naming the SubjectAccessReview webhook (HTTPS) of the `Webhook`
    /// authorization mode.
    #[arg(long, value_name = "FILE")]
    authorization_webhook_config_file: Option<PathBuf>,
    /// How long the authorization webhook's allowed answers are cached.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    authorization_webhook_cache_authorized_ttl: Duration,
    /// How long the authorization webhook's other answers are cached.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    authorization_webhook_cache_unauthorized_ttl: Duration,
    /// How long the token webhook's answers are cached.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    authentication_token_webhook_cache_ttl: Duration,
    /// Requests without credentials are system:anonymous (false: refused with 401).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    anonymous_auth: bool,
    /// The `iss` of the service-account tokens this server issues and accepts.
    #[arg(long, value_name = "URL", default_value = crd_server::auth::DEFAULT_ISSUER)]
    service_account_issuer: String,
    /// The private key (PEM: RSA, or ECDSA P-256 in PKCS#8) service-account tokens are
    /// signed with (default: a P-256 key generated at start).
    #[arg(long, value_name = "FILE")]
    service_account_signing_key_file: Option<PathBuf>,
    /// More keys (PEM, public or private) whose service-account tokens are accepted.
    #[arg(long, value_name = "FILE")]
    service_account_key_file: Vec<PathBuf>,
    /// The audiences a token must name one of (default: the issuer).
    #[arg(long, value_name = "AUDIENCE[,AUDIENCE]", value_delimiter = ',')]
    api_audiences: Vec<String>,
    /// The authorizers, in order: AlwaysAllow, AlwaysDeny, RBAC (comma-separated).
    #[arg(long, value_name = "MODES", default_value = "AlwaysAllow",
          value_parser = crd_server::auth::parse_authorization_modes)]
    authorization_mode: AuthorizationModes,
    /// Write audit.k8s.io/v1 Event JSON lines to this file (`-`: standard output).
    #[arg(long, value_name = "FILE|-")]
    audit_log_path: Option<PathBuf>,
    /// The audit.k8s.io/v1 Policy deciding what is logged (without it, nothing is).
    #[arg(long, value_name = "FILE")]
    audit_policy_file: Option<PathBuf>,
    /// The Kubernetes release whose validation to follow (1.30 to the newest).
    #[arg(long, value_name = "X.Y", default_value_t = KubeVersion::NEWEST)]
    kube_version: KubeVersion,
    /// `CRDValidationRatcheting=false` turns ratcheting off (before 1.33 only).
    #[arg(long, value_name = "GATE=BOOL", value_delimiter = ',')]
    feature_gates: Vec<String>,
    /// The CIDR Services' cluster IPs are allocated from (IPv4 or IPv6).
    #[arg(long, value_name = "CIDR", default_value = crd_server::config::DEFAULT_SERVICE_CLUSTER_IP_RANGE)]
    service_cluster_ip_range: String,
    /// The node ports of NodePort and LoadBalancer Services (`A-B` or `A+N`).
    #[arg(long, value_name = "RANGE", default_value = crd_server::config::DEFAULT_SERVICE_NODE_PORT_RANGE)]
    service_node_port_range: String,
    /// The controllers to run, as kube-controller-manager's flag: `*` for all, `NAME`
    /// to enable one, `-NAME` to disable one (garbagecollector, namespace,
    /// customresourcecleanup, validatingadmissionpolicy-status-controller,
    /// clusterrole-aggregation, deployment, replicaset, job, statefulset, daemonset,
    /// cronjob, nodeipam, persistentvolume-binder, scheduler, kwok, endpoint,
    /// endpointslice, serviceaccount, root-ca-cert-publisher, ttl-after-finished, podgc,
    /// disruption).
    #[arg(long, value_name = "NAMES", default_value = "*")]
    controllers: crd_server::Controllers,
    /// Simulated nodes created at start (kwok-node-0, …), run by the kwok controller.
    #[arg(long, value_name = "N", default_value_t = 1)]
    nodes: u32,
    /// The CIDR nodes' podCIDRs and Pod IPs come from (kube-controller-manager's flag).
    #[arg(long, value_name = "CIDR", default_value = crd_server::DEFAULT_CLUSTER_CIDR)]
    cluster_cidr: String,
    /// kwok Stage files (or directories of them) for the simulated kubelet's Pods; they
    /// replace kwok's default pod stages (may repeat). An invalid one exits with 2.
    #[arg(long, value_name = "PATH")]
    stages: Vec<PathBuf>,
    /// The CA bundle published in every namespace's kube-root-ca.crt ConfigMap
    /// (kube-controller-manager's flag; default: the --tls-cert-file chain).
    #[arg(long, value_name = "FILE")]
    root_ca_file: Option<PathBuf>,
    /// Finished Pods kept before the pod garbage collector deletes the oldest (0: no
    /// limit; kube-controller-manager's flag).
    #[arg(long, value_name = "N", default_value_t = 12500)]
    terminated_pod_gc_threshold: usize,
    /// Elect a leader among the replicas sharing the store before running the
    /// controllers (kube-controller-manager's flag; `--leader-elect=false` to run them
    /// at once).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    leader_elect: bool,
    /// How long a leader that stopped renewing keeps the Lease, as the others measure it.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration)]
    leader_elect_lease_duration: Duration,
    /// How long the leader keeps trying to renew before it stops leading.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    leader_elect_renew_deadline: Duration,
    /// The time between attempts to acquire or renew the Lease.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    leader_elect_retry_period: Duration,
    /// The Lease's name.
    #[arg(long, value_name = "NAME", default_value = "kube-controller-manager")]
    leader_elect_resource_name: String,
    /// The Lease's namespace.
    #[arg(long, value_name = "NAMESPACE", default_value = "kube-system")]
    leader_elect_resource_namespace: String,
    /// How often the store's history is compacted, as kube-apiserver asks etcd to
    /// (0 turns compaction off).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    etcd_compaction_interval: Duration,
    /// A fault to inject (repeatable): comma-separated key=value, e.g.
    /// `verb=update,resource=deployments.apps,code=409,count=1` (docs/testing-faults.md).
    #[arg(long = "fault", value_name = "RULE", value_parser = parse_fault)]
    faults: Vec<crd_server::faults::FaultRule>,
    /// The most read-only requests served at once; more are answered 429 (0: no limit).
    #[arg(long, value_name = "N", default_value_t = crd_server::config::DEFAULT_MAX_REQUESTS_INFLIGHT)]
    max_requests_inflight: usize,
    /// The most mutating requests served at once; more are answered 429 (0: no limit).
    #[arg(long, value_name = "N", default_value_t = crd_server::config::DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT)]
    max_mutating_requests_inflight: usize,
}

/// A `--fault` rule, refused with the key at fault.
fn parse_fault(text: &str) -> Result<crd_server::faults::FaultRule, String> {
    text.parse()
        .map_err(|e: crd_server::faults::FaultRuleError| e.to_string())
}

/// `--authorization-mode`'s modes (a clap value).
type AuthorizationModes = Vec<crd_server::AuthorizationMode>;

/// Prints a line on stdout; a closed stdout (the reader went away) is no reason to stop
/// serving, where `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Refused as a bad flag is (exit 2), before anything starts.
    let stages = match crd_server::StageSet::load(&args.stages) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: --stages: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match crd_server::server::runtime_builder().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args, stages)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args, stages: crd_server::StageSet) -> Result<(), String> {
    let store = if args.in_memory {
        StoreConfig::InMemory
    } else if !args.etcd_servers.is_empty() {
        StoreConfig::Etcd(args.etcd_servers.clone())
    } else {
        StoreConfig::DataDir(
            args.data_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("./crd-server-data")),
        )
    };
    let token = match &args.token_file {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let token = text.trim().to_string();
            if token.is_empty() {
                return Err(format!("{}: the token file is empty", path.display()));
            }
            Some(token)
        }
        None => None,
    };
    let tls = match (args.tls_cert_file, args.tls_private_key_file) {
        (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
        _ => None,
    };
    let proxy_client = match (args.proxy_client_cert_file, args.proxy_client_key_file) {
        (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
        _ => None,
    };
    let crds = crd_server::server::load_crd_files(&args.crds)?;
    // A gate the release no longer allows turning off is refused by `start`.
    let mut engine = EngineOptions::for_version(args.kube_version);
    for gate in &args.feature_gates {
        engine.set_feature_gate(gate)?;
    }
    let config = Config {
        aggregation: crd_server::AggregationConfig {
            proxy_client,
            front_proxy: None,
        },
        listen: args.listen,
        store,
        crds,
        tls,
        token,
        engine,
        service_cluster_ip_range: args.service_cluster_ip_range,
        service_node_port_range: args.service_node_port_range,
        controllers: args.controllers,
        auth: crd_server::AuthConfig {
            token_auth_file: args.token_auth_file,
            client_ca_file: args.client_ca_file,
            token_webhook_config_file: args.authentication_token_webhook_config_file,
            token_webhook_cache_ttl: args.authentication_token_webhook_cache_ttl,
            request_header: crd_server::auth::RequestHeaderConfig {
                client_ca_file: args.requestheader_client_ca_file,
                allowed_names: args.requestheader_allowed_names,
                username_headers: args.requestheader_username_headers,
                uid_headers: args.requestheader_uid_headers,
                group_headers: args.requestheader_group_headers,
                extra_headers_prefix: args.requestheader_extra_headers_prefix,
            },
            authorization_webhook_config_file: args.authorization_webhook_config_file,
            authorization_webhook_cache_ttls: (
                args.authorization_webhook_cache_authorized_ttl,
                args.authorization_webhook_cache_unauthorized_ttl,
            ),
            anonymous: args.anonymous_auth,
            service_account_issuer: args.service_account_issuer,
            service_account_signing_key_file: args.service_account_signing_key_file,
            service_account_key_files: args.service_account_key_file,
            api_audiences: args.api_audiences,
            authorization_modes: args.authorization_mode,
            audit_log_path: args.audit_log_path,
            audit_policy_file: args.audit_policy_file,
            ..crd_server::AuthConfig::default()
        },
        workloads: crd_server::Workloads {
            nodes: args.nodes,
            cluster_cidr: args.cluster_cidr,
            stages,
            root_ca_file: args.root_ca_file,
            terminated_pod_gc_threshold: args.terminated_pod_gc_threshold,
            ..crd_server::Workloads::default()
        },
        conversion_webhooks: crd_server::ConversionWebhooks::default(),
        leader_election: LeaderElection {
            leader_elect: args.leader_elect,
            lease_duration: args.leader_elect_lease_duration,
            renew_deadline: args.leader_elect_renew_deadline,
            retry_period: args.leader_elect_retry_period,
            resource_name: args.leader_elect_resource_name,
            resource_namespace: args.leader_elect_resource_namespace,
        },
        etcd_compaction_interval: args.etcd_compaction_interval,
        faults: args.faults,
        max_requests_inflight: args.max_requests_inflight,
        max_mutating_requests_inflight: args.max_mutating_requests_inflight,
    };
    if config.auth.audit_log_path.is_some() && config.auth.audit_policy_file.is_none() {
        eprintln!(
            "warning: --audit-log-path without --audit-policy-file: no audit events are logged"
        );
    }
    let lease = format!(
        "{}/{}",
        config.leader_election.resource_namespace, config.leader_election.resource_name
    );
    let mut server = crd_server::start(config).await.map_err(|e| e.to_string())?;
    say!(
        "crd-server listening on {} (store: {})",
        server.url(),
        server.store_description()
    );
    for (id, rule) in server.faults().rules() {
        say!("fault rule {id}: {rule}");
    }
    if let Some(id) = server.leader_identity() {
        say!("leader election: attempting to acquire lease {lease} as {id}");
        tokio::spawn(report_leadership(server.leading(), lease, id.to_string()));
    }
    let stopped = tokio::select! {
        _ = termination() => true,
        _ = server.until_stopped() => false,
    };
    if !stopped {
        return Err("the server stopped".to_string());
    }
    // Stop the controllers and give the Lease up, so that another replica takes over
    // without waiting for it to expire.
    server.shutdown().await;
    Ok(())
}

/// SIGINT or SIGTERM (what a process manager stops a server with).
async fn termination() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Prints each change of leadership (the controllers start or stop with it).
async fn report_leadership(
    mut leading: tokio::sync::watch::Receiver<bool>,
    lease: String,
    id: String,
) {
    while leading.changed().await.is_ok() {
        let what = if *leading.borrow_and_update() {
            "successfully acquired lease"
        } else {
            "stopped leading; lost or released lease"
        };
        say!("leader election: {id} {what} {lease}");
    }
}
