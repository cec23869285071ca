//! How a controller of an owning kind (a DaemonSet, a Job, a Deployment, …) is wired
//! to its informers, as kube-controller-manager's controllers are: a queue of the keys
//! of its own objects, fed too by the changes of the objects they own; its passes start
//! once every informer it reads has listed what exists.

use std::sync::Arc;

use super::{Api, Reconciler, each_key, queue_of, queue_owners, synced, work, work_with_clock};
use crate::controllers::cache::Informer;
use crate::controllers::queue::Queue;

/// The queue of one owning kind and the informers its passes wait for.
pub struct Wiring {
    api: Api,
    primary: Arc<Informer>,
    kind: &'static str,
    queue: Arc<Queue<String>>,
    /// Every informer to wait for, the primary first.
    informers: Vec<Arc<Informer>>,
}

impl Wiring {
    /// A queue of the key of every changed object of `primary` (the objects of `kind`),
    /// for a controller with `api`.
    pub fn new(api: &Api, primary: &Arc<Informer>, kind: &'static str) -> Self {
        Wiring {
            api: api.clone(),
            primary: primary.clone(),
            kind,
            queue: queue_of(primary),
            informers: vec![primary.clone()],
        }
    }

    /// Queues too the owner of every changed object of `dependents`; with
    /// `adopt_orphans`, an orphan queues every owner whose selector matches it.
    pub fn owns(mut self, dependents: &Arc<Informer>, adopt_orphans: bool) -> Self {
        queue_owners(
            &self.queue,
            dependents,
            &self.primary,
            self.kind,
            adopt_orphans,
        );
        self.informers.push(dependents.clone());
        self
    }

    /// Waits too for `informer`, which the passes read without following it.
    pub fn reads(mut self, informer: &Arc<Informer>) -> Self {
        self.informers.push(informer.clone());
        self
    }

    /// The queue, for a controller that queues keys on other changes too.
    pub fn queue(&self) -> &Arc<Queue<String>> {
        &self.queue
    }

    /// Once every informer has synced, `workers` workers run the passes of
    /// `controller` until aborted.
    pub async fn run<C: Reconciler>(self, workers: usize, controller: C) {
        synced(&self.informers.iter().collect::<Vec<_>>()).await;
        work(self.queue, workers, each_key(Arc::new(controller))).await;
    }

    /// [`Wiring::run`], every object of the primary queued again whenever the
    /// server's clock is moved (a deadline or a schedule may have passed).
    pub async fn run_with_clock<C: Reconciler>(self, workers: usize, controller: C) {
        synced(&self.informers.iter().collect::<Vec<_>>()).await;
        let sync = each_key(Arc::new(controller));
        work_with_clock(&self.api, self.primary, self.queue, workers, sync).await;
    }
}
