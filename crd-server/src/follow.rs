//! Following a store prefix as an informer does: list, watch from the list's revision,
//! and after a pause list again when the list fails, the watch cannot start or it
//! breaks (compaction, an etcd restart). What is done with each list and event is the
//! caller's; the RBAC authorizer and the admission policies follow their objects so.

use std::ops::ControlFlow;
use std::time::Duration;

use futures::StreamExt;

use crate::store::{Store, WatchEvent, WatchItem};

/// How long a follower waits before it retries a failed list or watch.
pub const RETRY: Duration = Duration::from_millis(200);

/// What a follower does with what it reads. Either method ends the follow with
/// `Break` (its owner is gone).
pub trait Follower: Send {
    /// Reads the whole prefix; answers the revision to watch from (`None`: the read
    /// failed, retried after [`RETRY`]).
    fn relist(&mut self) -> impl Future<Output = ControlFlow<(), Option<u64>>> + Send;

    /// Takes one change watched.
    fn on_event(&mut self, event: WatchEvent) -> ControlFlow<()>;
}

/// Follows `prefix` from `revision` (0: list first) into `follower`, until it says
/// `Break` or the task is aborted.
pub async fn list_and_watch(
    store: &dyn Store,
    prefix: &str,
    mut revision: u64,
    follower: &mut impl Follower,
) {
    loop {
        if revision == 0 {
            match follower.relist().await {
                ControlFlow::Break(()) => return,
                ControlFlow::Continue(Some(listed)) => revision = listed,
                ControlFlow::Continue(None) => {
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
            }
        }
        let Ok(mut events) = store.watch(prefix, revision).await else {
            revision = 0;
            tokio::time::sleep(RETRY).await;
            continue;
        };
        while let Some(Ok(item)) = events.next().await {
            let WatchItem::Event(e) = item else { continue };
            if follower.on_event(e).is_break() {
                return;
            }
        }
        // The watch broke: list again (what changed meanwhile is in the new list).
        revision = 0;
        tokio::time::sleep(RETRY).await;
    }
}
