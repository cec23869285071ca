//! attemptToOrphan (upstream's `attemptToOrphanWorker`): an owner deleted with the
//! `orphan` finalizer has its references removed from every dependent the graph knows,
//! then loses the finalizer (and goes, when it was the last).

use futures::{StreamExt, stream};

use super::attempt::{Object, remove_finalizer, remove_owner_refs};
use super::refs::Identity;
use super::{Gc, Outcome};
use crate::api::write::delete::ORPHAN_FINALIZER;

/// Dependents updated at once.
const CONCURRENCY: usize = 16;

/// Orphans the dependents of `uid`.
pub(super) async fn orphan(gc: &Gc, uid: &str) -> Outcome {
    let (owner, dependents) = {
        let g = gc.graph();
        let Some(node) = g.node(uid) else {
            return Outcome::Done;
        };
        let dependents: Vec<Identity> = node
            .dependents()
            .filter_map(|d| g.node(d))
            .map(|d| d.identity.clone())
            .collect();
        (node.identity.clone(), dependents)
    };
    let owner_uid = [owner.uid.to_string()];
    let failed = stream::iter(dependents)
        .map(|dep| {
            let owner_uid = &owner_uid;
            async move {
                match gc.resource(&dep) {
                    Some((res, ns)) => {
                        let ns = ns.as_deref();
                        let obj = Object {
                            id: &dep,
                            res: &res,
                            ns,
                        };
                        remove_owner_refs(gc, obj, owner_uid).await
                    }
                    None => Err(()),
                }
            }
        })
        .buffer_unordered(CONCURRENCY)
        .filter(|r| std::future::ready(r.is_err()))
        .count()
        .await;
    if failed > 0 {
        return Outcome::Retry;
    }
    let Some((res, ns)) = gc.resource(&owner) else {
        return Outcome::Retry;
    };
    let obj = Object {
        id: &owner,
        res: &res,
        ns: ns.as_deref(),
    };
    match remove_finalizer(gc, obj, ORPHAN_FINALIZER).await {
        Ok(()) => Outcome::Done,
        Err(()) => Outcome::Retry,
    }
}
