use std::sync::Arc;

use bytes::Bytes;

use super::*;
use crate::store::suite::create;
use crate::store::{ListOptions, MemoryStore};

async fn write(store: &dyn Store, key: &str) -> Revision {
    create(store, key, "{}").await.mod_revision
}

async fn readable_at(store: &dyn Store, revision: Revision) -> bool {
    let opts = ListOptions {
        revision: Some(revision),
        ..Default::default()
    };
    match store.list("/registry/", opts).await {
        Ok(_) => true,
        Err(StoreError::Compacted { .. }) => false,
        Err(e) => panic!("list at {revision}: {e}"),
    }
}

#[tokio::test]
async fn each_round_compacts_to_the_revision_of_the_round_before() {
    let store = MemoryStore::new();
    let before = write(&store, "/registry/a").await;
    let mut rounds = Rounds::default();
    assert_eq!(
        rounds.step(&store).await,
        Ok(None),
        "the first round only marks"
    );
    let marked = rounds.revision;
    assert!(readable_at(&store, before).await);
    let after = write(&store, "/registry/b").await;
    assert_eq!(rounds.step(&store).await, Ok(Some(marked)));
    assert!(
        !readable_at(&store, before).await,
        "older than the mark: gone"
    );
    assert!(readable_at(&store, marked).await && readable_at(&store, after).await);
    let value = store.get(COMPACT_REV_KEY).await.expect("get").expect("key");
    assert_eq!(value.value, Bytes::from(marked.to_string()));
}

#[tokio::test]
async fn replicas_take_turns_through_the_key() {
    let store = MemoryStore::new();
    let (mut a, mut b) = (Rounds::default(), Rounds::default());
    assert_eq!(a.step(&store).await, Ok(None));
    // b comes second: a holds the round, b learns a's clock and compacts nothing.
    assert_eq!(b.step(&store).await, Ok(None));
    assert_eq!(b.clock, a.clock);
    write(&store, "/registry/x").await;
    // b is in step now and wins the next round (as a would have, had it come first).
    let first_mark = b.revision;
    assert_eq!(b.step(&store).await, Ok(Some(first_mark)));
    assert_eq!(a.step(&store).await, Ok(None), "a lost: b wrote the key");
    assert_eq!(a.clock, b.clock);
}

#[tokio::test(start_paused = true)]
async fn the_task_compacts_every_interval_and_stops_with_the_store() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let old = write(store.as_ref(), "/registry/old").await;
    let task = spawn(Arc::downgrade(&store), Duration::from_secs(60)).expect("a task");
    // Two intervals: the first round marks, the second compacts to the mark.
    tokio::time::sleep(Duration::from_secs(121)).await;
    assert!(!readable_at(store.as_ref(), old).await);
    drop(store);
    tokio::time::sleep(Duration::from_secs(61)).await;
    assert!(task.is_finished(), "the task ends once the store is gone");
    assert!(
        spawn(
            Arc::downgrade(&(Arc::new(MemoryStore::new()) as Arc<dyn Store>)),
            Duration::ZERO
        )
        .is_none()
    );
}
