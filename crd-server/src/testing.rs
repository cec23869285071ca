//! A server for tests, in the spirit of envtest: a free loopback port, an in-memory (or
//! temporary-directory) store, given CRDs (derived ones included), stopped on drop.
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

use std::net::SocketAddr;

use crd_runtime::engine::EngineOptions;
use crd_runtime::{CustomResourceDefinition, KubeVersion};

use crate::config::{Config, StartError, StoreConfig};
use crate::server::{RunningServer, start};

/// A running test server.
pub struct TestServer {
    server: RunningServer,
    // Kept for the server's lifetime: the data directory of a durable test store.
    _dir: Option<tempfile::TempDir>,
}

/// Builds a [`TestServer`].
#[derive(Default)]
pub struct TestServerBuilder {
    crds: Vec<CustomResourceDefinition>,
    durable: bool,
    errors: Vec<String>,
    engine: EngineOptions,
    service_cluster_ip_range: Option<String>,
    service_node_port_range: Option<String>,
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
    /// default `10.0.0.0/24`).
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
        let config = Config {
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
        };
        Ok(TestServer {
            server: start(config).await?,
            _dir: dir,
        })
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

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// The running server.
    pub fn server(&self) -> &RunningServer {
        &self.server
    }

    /// A `kube::Client` for this server (default namespace `default`).
    #[cfg(feature = "kube")]
    pub fn client(&self) -> kube::Client {
        let uri: http::Uri = self.url().parse().expect("the server's URL is a valid URI");
        let config = kube::Config::new(uri);
        kube::Client::try_from(config).expect("a plain-HTTP kube client needs no TLS")
    }
}
