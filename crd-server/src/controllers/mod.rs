//! The lifecycle controllers crd-server runs itself, as kube-controller-manager and
//! apiextensions-apiserver do for a cluster: the garbage collector ([`gc`]), the
//! namespace controller ([`namespace`]) and the CRD finalizer ([`crd_cleanup`]).
//!
//! They act through the same verbs as any client (in-process, [`client`]), follow the
//! store with list-then-watch ([`informer`]) and keep no state that a restart or another
//! replica could not rebuild from the store, so whichever replica leads picks up where
//! another stopped.

pub mod client;
mod gc;
pub mod informer;
mod selection;

use std::sync::Arc;

use tokio::task::AbortHandle;

use crate::api::state::Shared;

pub use selection::{CONTROLLERS, Selection};

/// The running controllers of one server; they stop when this is dropped.
#[derive(Default)]
pub struct Running {
    tasks: Vec<AbortHandle>,
}

impl Drop for Running {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Starts the selected controllers in the background.
pub(crate) fn start(shared: &Arc<Shared>, selection: &Selection) -> Running {
    #[allow(unused_mut)]
    let mut running = Running::default();
    for name in CONTROLLERS.into_iter().filter(|n| selection.enabled(n)) {
        #[allow(clippy::match_single_binding, unreachable_code, unused_variables)]
        let task: tokio::task::JoinHandle<()> = match name {
            // One arm per controller: `"NAME" => tokio::spawn(module::run(shared.clone())),`
            "garbagecollector" => tokio::spawn(gc::run(shared.clone())),
            _ => continue,
        };
        running.tasks.push(task.abort_handle());
    }
    let _ = shared;
    running
}
