//! The lifecycle controllers crd-server runs itself, as kube-controller-manager and
//! apiextensions-apiserver do for a cluster: the garbage collector ([`gc`]), the
//! namespace controller ([`namespace`]) and the CRD finalizer ([`crd_cleanup`]).
//!
//! They act through the same verbs as any client (in-process, [`client`]), follow the
//! store with list-then-watch ([`informer`]) and keep no state that a restart or another
//! replica could not rebuild from the store, so whichever replica leads picks up where
//! another stopped. With leader election ([`leader`]) only the replica holding the Lease
//! runs them.

pub mod client;
mod crd_cleanup;
mod election;
mod gc;
pub mod informer;
mod leader;
mod namespace;
mod policy_status;
mod queue;
mod selection;

use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::AbortHandle;

use crate::api::state::Shared;

pub use election::LeaderElection;
pub use selection::{CONTROLLERS, Selection};

/// The running controllers of one server (or its part in the leader election); they
/// stop when this is dropped.
#[derive(Default)]
pub struct Running {
    tasks: Vec<AbortHandle>,
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

/// Starts the selected controllers in the background: at once, or whenever this
/// replica leads when `election` is on. `exclusive`: no other process can open the
/// store (embedded or in memory), so a Lease left there by a previous process is taken
/// over at once.
pub(crate) fn start(
    shared: &Arc<Shared>,
    selection: &Selection,
    election: &LeaderElection,
    exclusive: bool,
) -> Running {
    if !election.leader_elect {
        return spawn(shared, selection);
    }
    let election = leader::start(
        shared.clone(),
        selection.clone(),
        election.clone(),
        exclusive,
    );
    Running {
        tasks: Vec::new(),
        election: Some(election),
    }
}

/// Spawns the selected controllers.
fn spawn(shared: &Arc<Shared>, selection: &Selection) -> Running {
    #[allow(unused_mut)]
    let mut running = Running::default();
    for name in CONTROLLERS.into_iter().filter(|n| selection.enabled(n)) {
        #[allow(clippy::match_single_binding, unreachable_code, unused_variables)]
        let task: tokio::task::JoinHandle<()> = match name {
            // One arm per controller: `"NAME" => tokio::spawn(module::run(shared.clone())),`
            "garbagecollector" => tokio::spawn(gc::run(shared.clone())),
            "namespace" => tokio::spawn(namespace::run(shared.clone())),
            "customresourcecleanup" => tokio::spawn(crd_cleanup::run(shared.clone())),
            "validatingadmissionpolicy-status-controller" => {
                tokio::spawn(policy_status::run(shared.clone()))
            }
            _ => continue,
        };
        running.tasks.push(task.abort_handle());
    }
    let _ = shared;
    running
}
