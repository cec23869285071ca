//! Leader election over a `coordination.k8s.io/v1` Lease, with kube-lease-manager (the
//! maintained crate for it on kube 5: server-side-applied leases, clock-skew grace,
//! release on shutdown). Only the holder runs the controller; losing the Lease stops it.

use std::future::Future;
use std::sync::Arc;

use kube::Client;
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::{oneshot, watch};

use super::controller::{self, Context};

/// The Lease the operator's replicas compete for.
pub const LEASE_NAME: &str = "site-operator";

/// Seconds a holder keeps the Lease without renewing it.
const LEASE_SECONDS: u64 = 15;

/// Seconds before expiry a holder renews.
const GRACE_SECONDS: u64 = 5;

/// Runs the controller while `identity` holds the Lease in `lease_namespace`, watching
/// `namespace` (or all), until `shutdown` completes; then releases the Lease.
pub async fn run_elected(
    ctx: Arc<Context>,
    lease_namespace: &str,
    identity: &str,
    namespace: Option<String>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), LeaseManagerError> {
    let manager = LeaseManagerBuilder::new(ctx.client.clone(), LEASE_NAME)
        .with_namespace(lease_namespace)
        .with_identity(identity)
        .with_duration(LEASE_SECONDS)
        .with_grace(GRACE_SECONDS)
        .build()
        .await?;
    let (mut leading, task) = manager.watch().await;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            lead = became_leader(&mut leading) => if !lead { break },
            () = &mut shutdown => break,
        }
        let (stop, stopped) = oneshot::channel::<()>();
        let running = tokio::spawn(controller::run(ctx.clone(), namespace.clone(), async {
            let _ = stopped.await;
        }));
        let done = tokio::select! {
            () = lost_lead(&mut leading) => false,
            () = &mut shutdown => true,
        };
        let _ = stop.send(());
        let _ = running.await;
        if done {
            break;
        }
    }
    // Closing the channel makes the manager release the Lease and end.
    drop(leading);
    match task.await {
        Ok(result) => result.map(|_| ()),
        Err(_) => Ok(()),
    }
}

/// Waits until this replica leads; `false` when the manager stopped.
async fn became_leader(leading: &mut watch::Receiver<bool>) -> bool {
    loop {
        if *leading.borrow_and_update() {
            return true;
        }
        if leading.changed().await.is_err() {
            return false;
        }
    }
}

/// Waits until this replica no longer leads (or the manager stopped).
async fn lost_lead(leading: &mut watch::Receiver<bool>) {
    loop {
        if leading.changed().await.is_err() || !*leading.borrow_and_update() {
            return;
        }
    }
}

/// Whether a client can reach the server (used by the example binary before it starts).
pub async fn reachable(client: &Client) -> bool {
    client.apiserver_version().await.is_ok()
}
