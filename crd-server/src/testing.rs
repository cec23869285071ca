//! A server for tests, in the spirit of envtest: a free loopback port, an in-memory (or
//! temporary-directory) store, every built-in kind, given CRDs (derived ones included)
//! and seed objects, a fresh namespace per test, stopped on drop — or one server shared
//! by every test of a binary ([`TestServerBuilder::start_shared`]).
//!
//! ```no_run
//! # async fn demo() {
//! let server = crd_server::TestServer::builder()
//!     .crd_yaml(include_str!("../../../shared/fixtures/crontab/crd-full.yaml"))
//!     .start()
//!     .await
//!     .unwrap();
//! println!("kubectl -s {} get crontabs", server.url());
//! # }
//! ```

mod identities;
mod objects;
mod shared;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use http::Method;
use serde_json::{Value, json};

use crd_runtime::engine::EngineOptions;
use crd_runtime::{CustomResourceDefinition, KubeVersion};

use crate::config::{Config, StartError, StoreConfig};
use crate::server::{RunningServer, start};

pub use objects::{FIELD_MANAGER, RequestError};

/// A running test server.
pub struct TestServer {
    server: RunningServer,
    /// The next number [`TestServer::namespace`] tries.
    namespaces: AtomicU64,
    /// The workload controllers' clock.
    clock: crate::Clock,
    // Kept for the server's lifetime: the data directory of a durable test store.
    _dir: Option<tempfile::TempDir>,
    /// The admin client's bearer token.
    admin_token: String,
    /// The front proxy of [`TestServerBuilder::front_proxy`].
    front_proxy: Option<crate::FrontProxy>,
}

/// Builds a [`TestServer`].
#[derive(Default)]
pub struct TestServerBuilder {
    crds: Vec<CustomResourceDefinition>,
    objects: Vec<Value>,
    durable: bool,
    errors: Vec<String>,
    engine: EngineOptions,
    service_cluster_ip_range: Option<String>,
    service_node_port_range: Option<String>,
    controllers: Option<crate::Controllers>,
    leader_election: Option<crate::LeaderElection>,
    auth: crate::auth::AuthConfig,
    faults: Vec<crate::faults::FaultRule>,
    etcd_compaction_interval: Option<std::time::Duration>,
    max_inflight: Option<(usize, usize)>,
    workloads: crate::Workloads,
    conversion_webhooks: crate::ConversionWebhooks,
    front_proxy: Option<crate::FrontProxy>,
}

impl TestServerBuilder {
    /// Installs a CRD at start (e.g. `CronTab::crd()` of a derived type).
    pub fn crd(mut self, crd: CustomResourceDefinition) -> Self {
        self.crds.push(crd);
        self
    }

    /// Installs every CRD of a YAML or JSON text.
    pub fn crd_yaml(mut self, text: &str) -> Self {
        match crd_runtime::load_crds("crd_yaml", text) {
            Ok(loaded) => self.crds.extend(loaded.crds.into_iter().map(|d| d.crd)),
            Err(e) => self.errors.push(e.to_string()),
        }
        self
    }

    /// Serves the conversion webhook of `H`'s CRD in process with `converter`: a CRD of
    /// that name whose `spec.conversion.strategy` is `Webhook` is converted through
    /// [`crd_runtime::conversion::review`] without HTTPS (its `clientConfig` is not
    /// dialed), with every check and message of a real webhook call. The CRD is
    /// installed as given (e.g. with [`crd`](Self::crd)); strategy `None` stays `None`.
    pub fn converter<H>(mut self, converter: crd_runtime::conversion::Converter<H>) -> Self
    where
        H: crd_runtime::CustomResourceExt + 'static,
    {
        self.conversion_webhooks.insert_converter(converter);
        self
    }

    /// Serves the conversion webhook of the CRD `crd_name` (`plural.group`) in process
    /// with `handler`: a `ConversionReview` body in, the answer's body out (`Err`: what
    /// an HTTP 400 would say). For a webhook that is not a
    /// [`Converter`](crd_runtime::conversion::Converter), or one that misbehaves.
    pub fn conversion_webhook(
        mut self,
        crd_name: &str,
        handler: impl Fn(&[u8]) -> Result<Vec<u8>, String> + Send + Sync + 'static,
    ) -> Self {
        self.conversion_webhooks
            .insert(crd_name, std::sync::Arc::new(handler));
        self
    }

    /// Server-side applies every object of a YAML or JSON text (several documents) once
    /// the server is up: CRDs first, then namespaces, then the rest; custom objects of
    /// the CRDs among them included. A refused object fails [`start`](Self::start).
    pub fn objects_yaml(mut self, text: &str) -> Self {
        match crd_runtime::parse_documents("objects_yaml", text) {
            Ok(docs) => self.objects.extend(docs),
            Err(e) => self.errors.push(e.to_string()),
        }
        self
    }

    /// Validates like Kubernetes `version` (messages, formats, CEL, ratcheting).
    pub fn kube_version(mut self, version: KubeVersion) -> Self {
        self.engine = EngineOptions::for_version(version);
        self
    }

    /// Turns validation ratcheting off (`CRDValidationRatcheting=false`); starting
    /// fails for a release where it is GA (1.33 and later).
    pub fn ratcheting(mut self, on: bool) -> Self {
        self.engine.ratcheting = on;
        self
    }

    /// Allocates Services' cluster IPs from this CIDR (`--service-cluster-ip-range`,
    /// default `10.96.0.0/12`).
    pub fn service_cluster_ip_range(mut self, cidr: &str) -> Self {
        self.service_cluster_ip_range = Some(cidr.into());
        self
    }

    /// Allocates node ports from this range (`--service-node-port-range`, default
    /// `30000-32767`).
    pub fn service_node_port_range(mut self, range: &str) -> Self {
        self.service_node_port_range = Some(range.into());
        self
    }

    /// Chooses the controllers that run, as `--controllers` does (by default the
    /// lifecycle controllers only — garbage collector, namespace, CRD cleanup, policy
    /// status; `*` for all of them and the workloads', `*,-deployment` to play the
    /// deployment controller's part in a test).
    pub fn controllers(mut self, list: &str) -> Self {
        match list.parse() {
            Ok(c) => self.controllers = Some(c),
            Err(e) => self.errors.push(format!("--controllers: {e}")),
        }
        self
    }

    /// Elects a leader among replicas as `--leader-elect` does (e.g. shorter durations
    /// for tests of a failover). A test server has no replicas and runs its controllers
    /// at once without election unless given one here.
    pub fn leader_election(mut self, election: crate::LeaderElection) -> Self {
        self.leader_election = Some(election);
        self
    }

    /// Injects a fault from the start, as `--fault RULE` does (see
    /// `docs/testing-faults.md`); a bad rule fails [`start`](Self::start) with the key
    /// at fault. Rules can also come and go at run time ([`TestServer::add_fault`]).
    pub fn fault(mut self, rule: &str) -> Self {
        match rule.parse() {
            Ok(rule) => self.faults.push(rule),
            Err(e) => self.errors.push(format!("--fault: {e}")),
        }
        self
    }

    /// Compacts the store's history every `interval`, as `--etcd-compaction-interval`
    /// (5 minutes by default; zero: never). [`TestServer::compact`] compacts on demand.
    pub fn etcd_compaction_interval(mut self, interval: std::time::Duration) -> Self {
        self.etcd_compaction_interval = Some(interval);
        self
    }

    /// Serves at most `read_only` get/list and `mutating` other requests at once, as
    /// `--max-requests-inflight` and `--max-mutating-requests-inflight` (400 and 200 by
    /// default; 0: no limit); more are answered 429 with `Retry-After: 1`.
    pub fn max_inflight(mut self, read_only: usize, mutating: usize) -> Self {
        self.max_inflight = Some((read_only, mutating));
        self
    }

    /// Runs the workloads as the binary does by default: every controller (`*`) —
    /// the workload controllers, the scheduler and the simulated nodes and kubelet —
    /// with one simulated node unless [`nodes`](Self::nodes) says otherwise.
    pub fn workloads(mut self) -> Self {
        self.controllers = Some(crate::Controllers::default());
        self
    }

    /// How many simulated nodes are created at start (`--nodes`, default 1).
    pub fn nodes(mut self, count: u32) -> Self {
        self.workloads.nodes = count;
        self
    }

    /// The range nodes' `podCIDR`s and Pod IPs come from (`--cluster-cidr`, default
    /// `10.244.0.0/16`).
    pub fn cluster_cidr(mut self, cidr: &str) -> Self {
        self.workloads.cluster_cidr = cidr.into();
        self
    }

    /// The simulated kubelet's pod stages (`--stages`): kwok Stages loaded with
    /// [`StageSet::load`](crate::StageSet::load), replacing kwok's default ones.
    pub fn stages(mut self, stages: crate::StageSet) -> Self {
        self.workloads.stages = stages;
        self
    }

    /// Gives the server a front proxy of its own, as kubeadm sets one up for API
    /// aggregation: a fresh CA and a `front-proxy-client` certificate its proxy shows to
    /// extension API servers, the CA published in `kube-system`'s
    /// `extension-apiserver-authentication` ConfigMap with the `X-Remote-*` headers.
    pub fn front_proxy(mut self) -> Self {
        match crate::FrontProxy::generate() {
            Ok(fp) => self.front_proxy = Some(fp),
            Err(e) => self.errors.push(e),
        }
        self
    }

    /// Uses the embedded durable store in a temporary directory instead of memory.
    pub fn durable(mut self) -> Self {
        self.durable = true;
        self
    }

    /// Starts the server on a free port of 127.0.0.1.
    pub async fn start(self) -> Result<TestServer, StartError> {
        if let Some(e) = self.errors.first() {
            return Err(StartError::Config(e.clone()));
        }
        let (store, dir) = if self.durable {
            let dir = tempfile::tempdir()
                .map_err(|e| StartError::Config(format!("temporary directory: {e}")))?;
            (StoreConfig::DataDir(dir.path().to_path_buf()), Some(dir))
        } else {
            (StoreConfig::InMemory, None)
        };
        let admin_token = uuid::Uuid::new_v4().simple().to_string();
        let mut auth = self.auth;
        auth.admin_tokens.push(admin_token.clone());
        let config = Config {
            auth,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            store,
            crds: self.crds,
            tls: None,
            token: None,
            engine: self.engine,
            service_cluster_ip_range: self
                .service_cluster_ip_range
                .unwrap_or_else(|| crate::config::DEFAULT_SERVICE_CLUSTER_IP_RANGE.into()),
            service_node_port_range: self
                .service_node_port_range
                .unwrap_or_else(|| crate::config::DEFAULT_SERVICE_NODE_PORT_RANGE.into()),
            controllers: self
                .controllers
                .unwrap_or_else(crate::Controllers::lifecycle),
            workloads: self.workloads.clone(),
            conversion_webhooks: self.conversion_webhooks,
            aggregation: crate::AggregationConfig {
                proxy_client: None,
                front_proxy: self.front_proxy.clone(),
            },
            leader_election: self
                .leader_election
                .unwrap_or_else(crate::LeaderElection::disabled),
            etcd_compaction_interval: self
                .etcd_compaction_interval
                .unwrap_or(crate::store::compactor::DEFAULT_INTERVAL),
            faults: self.faults,
            max_requests_inflight: self
                .max_inflight
                .map_or(crate::config::DEFAULT_MAX_REQUESTS_INFLIGHT, |m| m.0),
            max_mutating_requests_inflight: self
                .max_inflight
                .map_or(crate::config::DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT, |m| {
                    m.1
                }),
        };
        let server = TestServer {
            front_proxy: self.front_proxy,
            server: start(config).await?,
            namespaces: AtomicU64::new(1),
            clock: self.workloads.clock,
            _dir: dir,
            admin_token,
        };
        objects::apply_all(&server.server, self.objects)
            .await
            .map_err(|e| StartError::Config(format!("seed object: {e}")))?;
        Ok(server)
    }

    /// Starts (on the first call in this process) one server for every test of the
    /// binary, on its own runtime thread, so that it outlives each test's runtime; later
    /// calls answer the same server whatever their builder (give every test the same
    /// one, e.g. from a helper function). Tests keep apart with
    /// [`TestServer::namespace`]. Blocks the caller while the server starts (milliseconds).
    pub fn start_shared(self) -> Result<&'static TestServer, StartError> {
        shared::get_or_start(self)
    }
}

impl TestServer {
    /// A builder.
    pub fn builder() -> TestServerBuilder {
        TestServerBuilder::default()
    }

    /// Starts a server with these CRDs and an in-memory store.
    pub async fn with_crds(
        crds: impl IntoIterator<Item = CustomResourceDefinition>,
    ) -> Result<TestServer, StartError> {
        crds.into_iter()
            .fold(Self::builder(), |b, c| b.crd(c))
            .start()
            .await
    }

    /// The clock the workload controllers read (a test moves it forward to reach a
    /// deadline at once).
    pub fn clock(&self) -> &crate::Clock {
        &self.clock
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The front proxy its aggregation proxy shows itself with
    /// ([`TestServerBuilder::front_proxy`]): what an extension API server trusts.
    pub fn front_proxy(&self) -> Option<&crate::FrontProxy> {
        self.front_proxy.as_ref()
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The running server.
    pub fn server(&self) -> &RunningServer {
        &self.server
    }

    /// Injects a fault from now on (a rule as `--fault` takes it, see
    /// `docs/testing-faults.md`) and answers its handle, for [`remove_fault`](Self::remove_fault).
    pub fn add_fault(
        &self,
        rule: &str,
    ) -> Result<crate::faults::FaultId, crate::faults::FaultRuleError> {
        Ok(self.server.faults().add(rule.parse()?))
    }

    /// Stops injecting a fault; `false` when it was removed already.
    pub fn remove_fault(&self, id: crate::faults::FaultId) -> bool {
        self.server.faults().remove(id)
    }

    /// The server's fault rules (to list or clear them, or count what one injected).
    pub fn faults(&self) -> &crate::faults::Faults {
        self.server.faults()
    }

    /// Compacts the history now (see [`RunningServer::compact`]): open watches end, and
    /// a client resuming from an earlier resourceVersion gets 410 Expired and lists again.
    pub async fn compact(&self) -> Result<crate::store::Revision, crate::store::StoreError> {
        self.server.compact().await
    }

    /// Creates a fresh namespace (`test-1`, `test-2`, … skipping names taken) and
    /// answers its name: one per test keeps tests on a shared server apart.
    pub async fn namespace(&self) -> Result<String, RequestError> {
        loop {
            let n = self.namespaces.fetch_add(1, Ordering::Relaxed);
            let name = format!("test-{n}");
            let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
            let created = objects::send(
                &self.server,
                Method::POST,
                "/api/v1/namespaces",
                "application/json",
                body.to_string().into_bytes(),
            )
            .await;
            match created {
                Ok(_) => return Ok(name),
                Err(e) if e.code == 409 => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Server-side applies every object of a YAML or JSON text (see
    /// [`TestServerBuilder::objects_yaml`]) and answers them as stored.
    pub async fn apply_yaml(&self, text: &str) -> Result<Vec<Value>, RequestError> {
        let docs = crd_runtime::parse_documents("apply_yaml", text).map_err(|e| RequestError {
            method: "PATCH".into(),
            path: String::new(),
            code: 400,
            message: e.to_string(),
        })?;
        objects::apply_all(&self.server, docs).await
    }

    /// A `kube::Client` for this server (default namespace `default`), as the admin
    /// (`system:admin`, in `system:masters`).
    #[cfg(feature = "kube")]
    pub fn client(&self) -> kube::Client {
        self.client_with_token(Some(self.admin_token.clone()))
    }
}
