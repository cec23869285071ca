//! The lifecycle controllers crd-server runs itself, as kube-controller-manager and
//! apiextensions-apiserver do for a cluster: the garbage collector ([`gc`]), the
//! namespace controller ([`namespace`]) and the CRD finalizer ([`crd_cleanup`]).
//!
//! They act through the same verbs as any client (in-process, [`client`]), follow the
//! store with list-then-watch ([`informer`]) and keep no state that a restart or another
//! replica could not rebuild from the store, so whichever replica leads picks up where
//! another stopped. With leader election ([`leader`]) only the replica holding the Lease
//! runs them.

mod apiservice_autoregister;
mod apiservice_available;
mod cache;
pub mod client;
mod clock;
mod clusterrole_aggregation;
mod crd_cleanup;
mod cronjob;
mod daemonset;
mod defaults;
mod deployment;
mod disruption;
mod election;
mod endpoints;
mod gc;
pub mod identity;
pub mod informer;
mod job;
mod leader;
mod namespace;
mod nodes;
mod options;
mod podgc;
mod policy_status;
mod queue;
mod replicaset;
mod scheduler;
mod selection;
mod statefulset;
mod storage_migration;
mod ttl_after_finished;
#[cfg(test)]
mod ttl_after_finished_tests;
mod volumes;
mod workload;

use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::AbortHandle;

use crate::api::state::Shared;

pub use clock::Clock;
pub use election::LeaderElection;
pub use options::{DEFAULT_CLUSTER_CIDR, Workloads};
pub use selection::{CONTROLLERS, Selection};

/// Aborts a controller's background task (an informer's follower) when dropped, so
/// the task ends with the controller that started it.
struct AbortOnDrop(AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The running controllers of one server (or its part in the leader election); they
/// stop when this is dropped.
#[derive(Default)]
pub struct Running {
    tasks: Vec<AbortHandle>,
    /// The workload controllers' informers (stopped with them).
    cache: Option<Arc<cache::Cache>>,
    election: Option<leader::Election>,
}

impl Running {
    /// The identity this replica holds the Lease as; `None` without leader election.
    pub fn identity(&self) -> Option<&str> {
        self.election.as_ref().map(|e| e.identity())
    }

    /// Whether the controllers run here now, and its changes (always true without
    /// leader election).
    pub fn leading(&self) -> watch::Receiver<bool> {
        match &self.election {
            Some(e) => e.status(),
            None => watch::channel(true).1,
        }
    }

    /// Stops the controllers and gives the Lease up (bounded by the renew deadline).
    pub async fn shutdown(mut self) {
        if let Some(e) = self.election.take() {
            e.shutdown().await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Checks a `--cluster-cidr` value: a CIDR large enough for one node's range.
pub fn check_cluster_cidr(text: &str) -> Result<(), String> {
    let cidr = nodes::cidr::Cidr::parse(text)?;
    if cidr.subnets(cidr.node_mask()).is_none() {
        return Err(format!(
            "the cluster CIDR {text} is smaller than a node's range (/{})",
            cidr.node_mask()
        ));
    }
    Ok(())
}

/// Checks that the CA bundle `root-ca-cert-publisher` publishes can be read: the
/// certificates of `--root-ca-file`, or else of `--tls-cert-file` (`serving`).
pub fn check_root_ca(
    workloads: &mut Workloads,
    serving: Option<&std::path::Path>,
) -> Result<(), String> {
    if workloads.root_ca_file.is_none() {
        workloads.root_ca_file = serving.map(std::path::Path::to_path_buf);
    }
    match &workloads.root_ca_file {
        Some(path) => defaults::root_ca::read(path).map(|_| ()),
        None => Ok(()),
    }
}

/// The bundle `root-ca-cert-publisher` publishes (empty without a file).
fn root_ca_bundle(workloads: &Workloads) -> String {
    (workloads.root_ca_file.as_deref())
        .and_then(|p| defaults::root_ca::read(p).ok())
        .unwrap_or_default()
}

/// Starts the selected controllers in the background: at once, or whenever this
/// replica leads when `election` is on. `exclusive`: no other process can open the
/// store (embedded or in memory), so a Lease left there by a previous process is taken
/// over at once.
pub(crate) fn start(
    shared: &Arc<Shared>,
    selection: &Selection,
    workloads: &Workloads,
    election: &LeaderElection,
    exclusive: bool,
) -> Running {
    let workloads = Arc::new(workloads.clone());
    if !election.leader_elect {
        return spawn(shared, selection, &workloads);
    }
    let election = leader::start(
        shared.clone(),
        selection.clone(),
        workloads,
        election.clone(),
        exclusive,
    );
    Running {
        tasks: Vec::new(),
        cache: None,
        election: Some(election),
    }
}

/// Spawns the selected controllers.
fn spawn(shared: &Arc<Shared>, selection: &Selection, workloads: &Arc<Workloads>) -> Running {
    let mut running = Running::default();
    // The workload controllers share one set of informers (and the server's clock).
    let api = workload::Api {
        client: client::Client::new(shared.clone(), "kube-controller-manager"),
        cache: cache::Cache::new(shared.clone()),
        clock: workloads.clock.clone(),
        workloads: workloads.clone(),
    };
    let with = |manager: &'static str| workload::Api {
        client: client::Client::new(shared.clone(), manager),
        ..api.clone()
    };
    for name in CONTROLLERS.iter().copied().filter(|n| selection.enabled(n)) {
        #[allow(clippy::match_single_binding, unreachable_code, unused_variables)]
        let task: tokio::task::JoinHandle<()> = match name {
            // One arm per controller: `"NAME" => tokio::spawn(module::run(shared.clone())),`
            "garbagecollector" => tokio::spawn(gc::run(shared.clone())),
            "namespace" => tokio::spawn(namespace::run(shared.clone())),
            "customresourcecleanup" => tokio::spawn(crd_cleanup::run(shared.clone())),
            "validatingadmissionpolicy-status-controller" => {
                tokio::spawn(policy_status::run(shared.clone()))
            }
            "clusterrole-aggregation" => tokio::spawn(clusterrole_aggregation::run(shared.clone())),
            "deployment" => tokio::spawn(deployment::run(with(deployment::COMPONENT))),
            "replicaset" => tokio::spawn(replicaset::run(with(replicaset::COMPONENT))),
            "job" => tokio::spawn(job::run(with(job::COMPONENT))),
            "daemonset" => tokio::spawn(daemonset::run(with(daemonset::COMPONENT))),
            "cronjob" => tokio::spawn(cronjob::run(with(cronjob::COMPONENT))),
            "statefulset" => tokio::spawn(statefulset::run(with(statefulset::COMPONENT))),
            "nodeipam" => tokio::spawn(nodes::ipam(with("node-ipam-controller"))),
            "scheduler" => tokio::spawn(scheduler::run(with(scheduler::COMPONENT))),
            "kwok" => tokio::spawn(nodes::kwok(with(nodes::COMPONENT))),
            "endpoint" => {
                tokio::spawn(endpoints::subsets::run(with(endpoints::subsets::COMPONENT)))
            }
            "serviceaccount" => tokio::spawn(defaults::serviceaccount::run(with(
                defaults::serviceaccount::COMPONENT,
            ))),
            "root-ca-cert-publisher" => tokio::spawn(defaults::root_ca::run(
                with(defaults::root_ca::COMPONENT),
                root_ca_bundle(workloads),
            )),
            "ttl-after-finished" => {
                tokio::spawn(ttl_after_finished::run(with(ttl_after_finished::COMPONENT)))
            }
            "podgc" => tokio::spawn(podgc::run(
                with(podgc::COMPONENT),
                workloads.terminated_pod_gc_threshold,
            )),
            "disruption" => tokio::spawn(disruption::run(with(disruption::COMPONENT))),
            "endpointslice" => {
                tokio::spawn(endpoints::slices::run(with(endpoints::slices::COMPONENT)))
            }
            "persistentvolume-binder" => tokio::spawn(volumes::run(with(volumes::COMPONENT))),
            "apiservice-status-available-controller" => {
                tokio::spawn(apiservice_available::run(shared.clone()))
            }
            "kube-apiserver-autoregistration" => {
                tokio::spawn(apiservice_autoregister::run(shared.clone()))
            }
            "storage-version-migrator-controller" => {
                tokio::spawn(storage_migration::run(shared.clone()))
            }
            "storage-version-migration-trigger" => {
                tokio::spawn(storage_migration::trigger(shared.clone()))
            }
            _ => continue,
        };
        running.tasks.push(task.abort_handle());
    }
    running.cache = Some(api.cache);
    running
}
