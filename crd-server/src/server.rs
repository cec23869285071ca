//! Starting a server: the store it uses, the CRDs it starts with, the address, TLS and
//! the bearer token, and the running server's handle (stops on drop).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crd_runtime::CustomResourceDefinition;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::api::kinds::builtin::core::service::alloc::Ranges;
use crate::api::kinds::builtin::core::service::ip_range::{Cidr, PortRange};
use crate::api::kinds::{Resource, Subresource};
use crate::api::registry::Registry;
use crate::api::request::WriteOptions;
use crate::api::router;
use crate::api::state::Shared;
use crate::api::storage::{Target, WriteError};
use crate::api::write::{self, Tracking, Update};
use crate::config::{Config, StartError, StoreConfig};
use crate::faults::Faults;
use crate::store::{EmbeddedStore, FanOut, MemoryStore, Revision, Store, StoreError, compactor};

/// A multi-threaded Tokio runtime builder whose workers can serve the deepest request.
///
/// Requests may nest 10,000 levels (the API server's JSON limit); every walk of such an
/// object (decode, admission, managed fields, encoding, drop) runs on the worker's stack,
/// so it is sized for that depth. Reserved, not committed.
pub fn runtime_builder() -> tokio::runtime::Builder {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder
        .thread_stack_size(crd_runtime::__private::depth::stack_bytes(
            crd_runtime::__private::depth::MAX_DEPTH,
        ))
        .enable_all();
    builder
}

/// A running server; stops when dropped (or with [`RunningServer::stop`]).
pub struct RunningServer {
    addr: SocketAddr,
    scheme: &'static str,
    store_description: String,
    shared: Arc<Shared>,
    app: axum::Router,
    task: JoinHandle<()>,
    /// Stopped with the server.
    controllers: crate::controllers::Running,
    /// The watch cache in front of the store.
    fanout: Arc<FanOut>,
    /// The compactor's task (`--etcd-compaction-interval`), stopped with the server.
    compactor: Option<tokio::task::AbortHandle>,
}

impl RunningServer {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (or https).
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// What the store is (`embedded ./crd-server-data`, `in-memory`, `etcd URL`).
    pub fn store_description(&self) -> &str {
        &self.store_description
    }

    /// The store (for tests that look below the API).
    pub fn store(&self) -> Arc<dyn Store> {
        self.shared.store.clone()
    }

    /// Stops serving now (open watches end). Its controllers stop at once; a Lease it
    /// holds is given up in the background.
    pub fn stop(self) {}

    /// Stops the controllers and gives up the leader election's Lease (waiting for it,
    /// at most the renew deadline, as kube-controller-manager does when it stops), then
    /// stops serving.
    pub async fn shutdown(mut self) {
        std::mem::take(&mut self.controllers).shutdown().await;
    }

    /// The identity this server writes as the Lease's `holderIdentity`
    /// (`HOSTNAME_UUID`); `None` without leader election.
    pub fn leader_identity(&self) -> Option<&str> {
        self.controllers.identity()
    }

    /// Whether this server runs its controllers now — it holds the Lease, or leader
    /// election is off — and its changes.
    pub fn leading(&self) -> tokio::sync::watch::Receiver<bool> {
        self.controllers.leading()
    }

    /// The fault rules the server applies (add and remove them at run time).
    pub fn faults(&self) -> &Faults {
        &self.shared.faults
    }

    /// Compacts the store's history up to the current revision, as etcd's compaction
    /// does, and restarts the watch cache there, as kube-apiserver's does when its own
    /// watch of etcd is compacted: every open watch ends, and a client resuming from a
    /// revision before this one gets 410 Expired and lists again. Answers the revision.
    pub async fn compact(&self) -> Result<Revision, StoreError> {
        let revision = self.shared.store.current_revision().await?;
        self.shared.store.compact(revision).await?;
        self.fanout.restart(revision);
        Ok(revision)
    }

    /// The shared state (registry, store) for in-process helpers.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The server's router, for requests sent in-process (test seeding).
    pub(crate) fn router(&self) -> axum::Router {
        self.app.clone()
    }

    /// Waits until the server task ends (it ends only when stopped or on a fatal error).
    pub async fn wait(mut self) {
        self.until_stopped().await;
    }

    /// Waits until the server task ends, keeping the server (to [`shutdown`](Self::shutdown)
    /// it afterwards, say).
    pub async fn until_stopped(&mut self) {
        let _ = (&mut self.task).await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.task.abort();
        if let Some(compactor) = &self.compactor {
            compactor.abort();
        }
    }
}

async fn open_store(cfg: &StoreConfig) -> Result<Arc<dyn Store>, StartError> {
    Ok(match cfg {
        StoreConfig::InMemory => Arc::new(MemoryStore::new()),
        StoreConfig::DataDir(dir) => {
            let dir = dir.clone();
            let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&dir))
                .await
                .map_err(|e| StartError::Config(format!("store start-up failed: {e}")))??;
            Arc::new(store)
        }
        StoreConfig::Etcd(urls) => Arc::new(crate::store::EtcdStore::connect(urls).await?),
    })
}

fn builtin(shared: &Shared, group: &str, resource: &str) -> Result<Resource, StartError> {
    shared
        .registry
        .resolve(group, "v1", resource)
        .ok_or_else(|| StartError::Config(format!("the registry has no {resource}")))
}

/// Creates what a fresh cluster has (the three namespaces) and the start-up CRDs.
async fn seed(shared: &Shared, crds: &[CustomResourceDefinition]) -> Result<(), StartError> {
    let namespaces = builtin(shared, "", "namespaces")?;
    let opts = WriteOptions::server("kube-apiserver");
    for ns in crate::api::kinds::builtin::core::namespace::IMMORTAL {
        let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        match write::create(
            shared,
            &namespaces,
            None,
            obj,
            &opts,
            Tracking::Update(&opts.manager),
        )
        .await
        {
            Ok(_) | Err(WriteError::Raced(_)) => {}
            Err(WriteError::Failed(e)) => {
                return Err(StartError::Config(format!(
                    "cannot create namespace {ns}: {}",
                    e.message
                )));
            }
        }
    }
    seed_rbac(shared).await?;
    let crd_res = builtin(shared, "apiextensions.k8s.io", "customresourcedefinitions")?;
    let opts = WriteOptions::server("crd-server");
    for crd in crds {
        let name = crd.name().to_string();
        let failed = |message: String| StartError::Crd {
            name: name.clone(),
            message,
        };
        let obj = crd_json(crd);
        match write::create(
            shared,
            &crd_res,
            None,
            obj.clone(),
            &opts,
            Tracking::Update(&opts.manager),
        )
        .await
        {
            Ok(_) => {}
            Err(WriteError::Raced(_)) => {
                // Start-up CRDs win over what the store holds: their spec replaces it.
                let u = Update {
                    shared,
                    target: Target {
                        res: &crd_res,
                        ns: None,
                        name: &name,
                    },
                    sub: Subresource::Main,
                    opts: &opts,
                    tracking: Tracking::Update(&opts.manager),
                };
                write::guaranteed_update(&u, None, |current| {
                    let mut next = current.obj.clone();
                    next["spec"] = obj["spec"].clone();
                    Ok(next)
                })
                .await
                .map_err(|e| failed(e.message))?;
            }
            Err(WriteError::Failed(e)) => return Err(failed(e.message)),
        }
    }
    Ok(())
}

/// Creates the bootstrap ClusterRoles and ClusterRoleBindings that are missing, as
/// kube-apiserver's `rbac/bootstrap-roles` hook does (existing ones are kept).
async fn seed_rbac(shared: &Shared) -> Result<(), StartError> {
    use crate::api::kinds::builtin::rbac::bootstrap_policy;
    let opts = WriteOptions::server("kube-apiserver");
    let rbac = "rbac.authorization.k8s.io";
    use crate::api::kinds::builtin::rbac::{aggregate_policy, controller_policy};
    let roles = [
        bootstrap_policy::cluster_roles(),
        aggregate_policy::cluster_roles(),
        controller_policy::cluster_roles(),
    ];
    let bindings = [
        bootstrap_policy::cluster_role_bindings(),
        controller_policy::cluster_role_bindings(),
    ];
    for (resource, objects) in [
        ("clusterroles", roles.concat()),
        ("clusterrolebindings", bindings.concat()),
    ] {
        let res = builtin(shared, rbac, resource)?;
        for obj in objects {
            let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
            let what = format!("{resource} {name}");
            crate::bootstrap::create_missing(shared, &res, obj, &opts, &what).await?;
        }
    }
    Ok(())
}

/// The API as a service, without a listener: opens the store and seeds it. Tests and
/// the request fuzzer (`fuzz/`) call it with requests directly.
pub async fn app(config: &Config) -> Result<axum::Router, StartError> {
    let opened = open(config, config.listen).await?;
    Ok(router(opened.shared))
}

/// A store opened and seeded.
struct Opened {
    shared: Arc<Shared>,
    store_description: String,
    fanout: Arc<FanOut>,
    compactor: Option<tokio::task::AbortHandle>,
}

/// The service ranges of `config` (`--service-cluster-ip-range`,
/// `--service-node-port-range`).
fn service_ranges(config: &Config) -> Result<Ranges, StartError> {
    let cidr = Cidr::parse(&config.service_cluster_ip_range)
        .map_err(|e| StartError::Config(format!("--service-cluster-ip-range: {e}")))?;
    let ports = PortRange::parse(&config.service_node_port_range)
        .map_err(|e| StartError::Config(format!("--service-node-port-range: {e}")))?;
    Ok(Ranges { cidr, ports })
}

/// Checks `config`, opens and seeds its store (the `kubernetes` Service pointing at
/// `addr`): the server's state, the store's description, the watch cache and the
/// compactor.
async fn open(config: &Config, addr: SocketAddr) -> Result<Opened, StartError> {
    let ranges = service_ranges(config)?;
    let authenticates = config.token.is_some()
        || config.auth.token_auth_file.is_some()
        || config.auth.client_ca_file.is_some()
        || config.auth.token_webhook_config_file.is_some()
        || config.auth.request_header.client_ca_file.is_some();
    if !config.listen.ip().is_loopback() && (config.tls.is_none() || !authenticates) {
        return Err(StartError::Config(format!(
            "listening on {} (not loopback) requires --tls-cert-file, --tls-private-key-file and --token-file (or --token-auth-file or --client-ca-file)",
            config.listen
        )));
    }
    config
        .leader_election
        .validate()
        .map_err(|e| StartError::Config(format!("leader election: {e}")))?;
    if !config.engine.ratcheting && !config.engine.kube_version.ratcheting_can_be_disabled() {
        return Err(StartError::Config(format!(
            "CRDValidationRatcheting is GA and cannot be turned off in Kubernetes {}",
            config.engine.kube_version
        )));
    }
    let fanout = Arc::new(FanOut::new(open_store(&config.store).await?));
    let store: Arc<dyn Store> = fanout.clone();
    let store_description = store.describe();
    let registry = Registry::start(
        store.clone(),
        config.engine,
        config.conversion_webhooks.clone(),
    )
    .await?;
    let admission =
        crate::api::admission::Admission::start(store.clone(), config.engine.kube_version).await;
    let auth = crate::auth::Auth::start(
        &config.auth,
        config.token.as_deref(),
        store.clone(),
        crate::api::selectors::label::aggregation_matches,
    );
    let auth = Arc::new(auth.await.map_err(|e| StartError::Config(e.0))?);
    let aggregation = &config.aggregation;
    let proxy_identity =
        crate::api::aggregator::trust::identity(aggregation).map_err(StartError::Config)?;
    let trust_data = crate::api::aggregator::trust::config_map_data(&config.auth, aggregation)
        .map_err(StartError::Config)?;
    let aggregator = crate::api::aggregator::Aggregator::start(store.clone(), proxy_identity)
        .await
        .map_err(StartError::Config)?;
    let shared = Arc::new(Shared {
        store,
        registry,
        admission,
        token: config.token.clone(),
        auth,
        faults: Arc::new(Faults::new(config.faults.iter().cloned())),
        inflight: crate::api::inflight::Limits::new(
            config.max_requests_inflight,
            config.max_mutating_requests_inflight,
        ),
        aggregator,
    });
    seed(&shared, &config.crds).await?;
    // The authorizer reads the bootstrap policy just seeded before anyone is served or
    // a controller starts (kube-apiserver is not ready before its bootstrap roles).
    shared.auth.authz.refresh().await;
    crate::bootstrap::services(
        &shared,
        &ranges,
        addr,
        &WriteOptions::server("kube-apiserver"),
    )
    .await?;
    if let Some(data) = trust_data {
        crate::bootstrap::authentication_trust(
            &shared,
            data,
            &WriteOptions::server("kube-apiserver"),
        )
        .await?;
    }
    // The watch cache starts here, as kube-apiserver's starts from a list: a watch from
    // an earlier revision is expired.
    fanout.set_floor(shared.store.current_revision().await?);
    let compactor = compactor::spawn(
        Arc::downgrade(&shared.store),
        config.etcd_compaction_interval,
    );
    Ok(Opened {
        shared,
        store_description,
        fanout,
        compactor,
    })
}

/// Starts a server: opens the store, seeds it, binds, and serves in the background.
pub async fn start(config: Config) -> Result<RunningServer, StartError> {
    let mut config = config;
    let serving = config.tls.as_ref().map(|t| t.cert.clone());
    crate::controllers::check_root_ca(&mut config.workloads, serving.as_deref())
        .map_err(|e| StartError::Config(format!("--root-ca-file: {e}")))?;
    crate::controllers::check_cluster_cidr(&config.workloads.cluster_cidr)
        .map_err(|e| StartError::Config(format!("--cluster-cidr: {e}")))?;
    for (set, flag) in [
        (config.auth.client_ca_file.is_some(), "--client-ca-file"),
        (
            config.auth.request_header.client_ca_file.is_some(),
            "--requestheader-client-ca-file",
        ),
    ] {
        if set && config.tls.is_none() {
            return Err(StartError::Config(format!(
                "{flag} requires --tls-cert-file and --tls-private-key-file (client certificates are presented over TLS)"
            )));
        }
    }
    let cas = crate::auth::x509::ClientCas::load(
        config.auth.client_ca_file.as_deref(),
        config.auth.request_header.client_ca_file.as_deref(),
    )
    .map_err(|e| StartError::Config(e.0))?;
    let tls = (config.tls.as_ref())
        .map(|files| {
            crate::tls::load_with_clients(files, cas.as_ref().map(|c| c.handshake.clone()))
        })
        .transpose()?;
    // Bound first: the `kubernetes` Service's target port is the port bound.
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|source| StartError::Bind {
            addr: config.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind {
        addr: config.listen,
        source,
    })?;
    let Opened {
        shared,
        store_description,
        fanout,
        compactor,
    } = open(&config, addr).await?;
    // Only etcd is shared between processes: the embedded store's file is locked.
    let exclusive = !matches!(config.store, StoreConfig::Etcd(_));
    let controllers = crate::controllers::start(
        &shared,
        &config.controllers,
        &config.workloads,
        &config.leader_election,
        exclusive,
    );
    let app = router(shared.clone());
    let in_process = app.clone();
    let scheme = if tls.is_some() { "https" } else { "http" };
    let task = match tls {
        None => tokio::spawn(async move {
            use axum::serve::ListenerExt;
            // As Go's net package does: small API answers go out without Nagle's delay.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let _ = axum::serve(listener, app).await;
        }),
        Some(acceptor) => {
            tokio::spawn(crate::tls::serve_with_clients(listener, acceptor, app, cas))
        }
    };
    Ok(RunningServer {
        addr,
        scheme,
        store_description,
        shared,
        app: in_process,
        task,
        controllers,
        fanout,
        compactor,
    })
}

/// Reads CRDs from YAML/JSON files or directories (every `.yaml`, `.yml`, `.json`).
pub fn load_crd_files(paths: &[PathBuf]) -> Result<Vec<CustomResourceDefinition>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
                })
                .collect();
            entries.sort();
            files.extend(entries);
        } else {
            files.push(p.clone());
        }
    }
    let mut crds = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let loaded =
            crd_runtime::load_crds(&f.display().to_string(), &text).map_err(|e| e.to_string())?;
        crds.extend(loaded.crds.into_iter().map(|d| d.crd));
    }
    Ok(crds)
}

/// The JSON of a CRD as the API takes it.
pub fn crd_json(crd: &CustomResourceDefinition) -> Value {
    let mut v = serde_json::to_value(crd).unwrap_or(Value::Null);
    v["apiVersion"] = json!("apiextensions.k8s.io/v1");
    v["kind"] = json!("CustomResourceDefinition");
    v
}
