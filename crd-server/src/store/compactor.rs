//! Compaction on kube-apiserver's schedule (`--etcd-compaction-interval`, 5 minutes by
//! default): every interval, the history before the revision seen one interval earlier is
//! compacted, so the store keeps between one and two intervals of history — what a
//! watch or a paginated list can resume from.
//!
//! Replicas sharing a store take turns as kube-apiservers sharing an etcd do: a
//! compare-and-swap on the key `compact_rev_key` (outside `/registry`) decides which one
//! compacts each round; the others learn that it happened and try again an interval
//! later, so a cluster compacts once per interval whatever its size, and carries on when
//! the replica that compacted last goes away.

use std::sync::Weak;
use std::time::Duration;

use bytes::Bytes;

use super::{Revision, Store, StoreError};

/// kube-apiserver's default `--etcd-compaction-interval`.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// The key whose compare-and-swap elects the compactor of a round (kube-apiserver's).
pub const COMPACT_REV_KEY: &str = "compact_rev_key";

/// One compactor's view of the rounds: the revision of the key's last write it knows
/// (its logical clock; 0 before the key exists) and the revision to compact next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rounds {
    /// `mod_revision` of [`COMPACT_REV_KEY`] as last seen (0: absent).
    pub clock: Revision,
    /// The store's revision at the previous round: what this round compacts to
    /// (0 on the first round, which compacts nothing).
    pub revision: Revision,
}

impl Rounds {
    /// One round: when this compactor wins the compare-and-swap, compacts to the
    /// revision of the previous round and answers it; when another replica won, learns
    /// its clock and answers `None`.
    pub async fn step(&mut self, store: &dyn Store) -> Result<Option<Revision>, StoreError> {
        let value = Bytes::from(self.revision.to_string());
        let won = if self.clock == 0 {
            store.create(COMPACT_REV_KEY, value).await
        } else {
            store.update(COMPACT_REV_KEY, value, self.clock).await
        };
        match won {
            Ok(kv) => {
                let previous = self.revision;
                self.clock = kv.mod_revision;
                self.revision = kv.mod_revision;
                if previous == 0 {
                    // Nothing is compacted on the first round: the store keeps at least
                    // one interval of history.
                    return Ok(None);
                }
                store.compact(previous).await?;
                Ok(Some(previous))
            }
            Err(
                StoreError::AlreadyExists { .. }
                | StoreError::Conflict { .. }
                | StoreError::NotFound { .. },
            ) => {
                self.clock = store
                    .get(COMPACT_REV_KEY)
                    .await?
                    .map_or(0, |kv| kv.mod_revision);
                self.revision = store.current_revision().await?;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// Compacts `store` every `interval` until it is dropped (`None` for a zero interval:
/// compaction off, as kube-apiserver's `--etcd-compaction-interval=0`). The task holds
/// the store only while a round runs.
pub fn spawn(store: Weak<dyn Store>, interval: Duration) -> Option<tokio::task::AbortHandle> {
    if interval.is_zero() {
        return None;
    }
    let handle = tokio::runtime::Handle::try_current().ok()?;
    let task = handle.spawn(async move {
        let mut rounds = Rounds::default();
        loop {
            tokio::time::sleep(interval).await;
            let Some(store) = store.upgrade() else { return };
            if let Err(e) = rounds.step(store.as_ref()).await {
                crate::log::error(format_args!(
                    "compaction of {} failed: {e}",
                    store.describe()
                ));
            }
        }
    });
    Some(task.abort_handle())
}

#[cfg(test)]
#[path = "compactor_tests.rs"]
mod tests;
