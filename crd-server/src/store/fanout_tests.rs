use std::time::Duration;

use futures::StreamExt;

use super::*;
use crate::store::MemoryStore;
use crate::store::suite::{check_contract, create};

#[tokio::test]
async fn fan_out_keeps_the_contract() {
    check_contract(&FanOut::new(Arc::new(MemoryStore::new())), "/registry/g/r").await;
}

#[test]
fn watches_share_the_resource_hub() {
    assert_eq!(
        hub_prefix("/registry/stable.example.com/crontabs/default/"),
        "/registry/stable.example.com/crontabs/"
    );
    assert_eq!(hub_prefix("/registry/namespaces/"), "/registry/namespaces/");
}

async fn put(store: &dyn Store, key: &str) -> Revision {
    create(store, key, "{}").await.mod_revision
}

async fn next(watch: &mut WatchStream) -> Option<Result<WatchItem, StoreError>> {
    tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .expect("an item within 5 s")
}

/// The next change, skipping progress marks.
async fn next_event(watch: &mut WatchStream) -> Revision {
    loop {
        match next(watch).await {
            Some(Ok(WatchItem::Event(e))) => return e.kv.mod_revision,
            Some(Ok(WatchItem::Progress(_))) => continue,
            other => panic!("expected an event, got {other:?}"),
        }
    }
}

const P: &str = "/registry/g/r/";

#[tokio::test]
async fn a_watch_from_before_the_floor_is_expired() {
    let fan = FanOut::new(Arc::new(MemoryStore::new()));
    let first = put(&fan, "/registry/g/r/ns/a").await;
    let started = put(&fan, "/registry/g/r/ns/b").await;
    fan.set_floor(started);
    match fan.watch(P, first).await.err() {
        Some(StoreError::Compacted { requested, oldest }) => {
            assert_eq!((requested, oldest), (first, started + 1));
        }
        other => panic!("expected Compacted, got {other:?}"),
    }
    let mut w = fan.watch(P, started).await.expect("from the floor");
    let later = put(&fan, "/registry/g/r/ns/c").await;
    assert_eq!(next_event(&mut w).await, later);
}

#[tokio::test]
async fn a_revision_the_window_dropped_is_expired_one_it_covers_is_served() {
    let fan = FanOut::with_window(Arc::new(MemoryStore::new()), 4);
    let start = fan.current_revision().await.expect("revision");
    // The first watch makes the hub; then six changes overflow its window of four.
    let mut live = fan.watch(P, start).await.expect("watch");
    let mut revs = Vec::new();
    for i in 0..6 {
        revs.push(put(&fan, &format!("/registry/g/r/ns/o{i}")).await);
        assert_eq!(next_event(&mut live).await, revs[i]);
    }
    match fan.watch(P, revs[0]).await.err() {
        Some(StoreError::Compacted { requested, oldest }) => {
            assert_eq!((requested, oldest), (revs[0], revs[2]));
        }
        other => panic!("expected Compacted, got {other:?}"),
    }
    let mut resumed = fan.watch(P, revs[1]).await.expect("covered");
    for r in &revs[2..] {
        assert_eq!(next_event(&mut resumed).await, *r);
    }
}

#[tokio::test]
async fn another_namespaces_change_is_progress_for_a_namespace_watch() {
    let fan = FanOut::new(Arc::new(MemoryStore::new()));
    let start = fan.current_revision().await.expect("revision");
    let _hub = fan.watch(P, start).await.expect("watch");
    let mut ns = fan.watch("/registry/g/r/a/", start).await.expect("watch");
    let elsewhere = put(&fan, "/registry/g/r/b/x").await;
    let here = put(&fan, "/registry/g/r/a/x").await;
    assert_eq!(
        next(&mut ns).await,
        Some(Ok(WatchItem::Progress(elsewhere)))
    );
    assert_eq!(next_event(&mut ns).await, here);
}

#[tokio::test]
async fn a_restart_ends_open_watches_and_expires_what_came_before() {
    let fan = FanOut::new(Arc::new(MemoryStore::new()));
    let before = put(&fan, "/registry/g/r/ns/0").await;
    let start = fan.current_revision().await.expect("revision");
    let mut hub_watch = fan.watch(P, start).await.expect("watch");
    let a = put(&fan, "/registry/g/r/ns/a").await;
    assert_eq!(next_event(&mut hub_watch).await, a);
    // A watch from before the hub existed: the backend's own.
    let mut own = fan.watch(P, before - 1).await.expect("watch");
    let b = put(&fan, "/registry/g/r/ns/b").await;
    fan.restart(b);
    let drained = |w: &mut WatchStream| {
        let mut w = std::mem::replace(w, futures::stream::empty().boxed());
        async move {
            loop {
                match next(&mut w).await {
                    None => return,
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => panic!("ended with {e}"),
                }
            }
        }
    };
    drained(&mut hub_watch).await;
    drained(&mut own).await;
    assert!(matches!(
        fan.watch(P, a).await.err(),
        Some(StoreError::Compacted { .. })
    ));
    let mut after = fan.watch(P, b).await.expect("from the restart");
    let c = put(&fan, "/registry/g/r/ns/c").await;
    assert_eq!(next_event(&mut after).await, c);
}

#[tokio::test]
async fn a_watch_of_every_resource_reads_the_backend() {
    let fan = FanOut::with_window(Arc::new(MemoryStore::new()), 1_000);
    let start = fan.current_revision().await.expect("revision");
    let mut everything = fan.watch("/registry/", start).await.expect("watch");
    let mut resource = fan.watch(P, start).await.expect("watch");
    for i in 0..150 {
        let rev = put(&fan, &format!("/registry/g/r/ns/o{i}")).await;
        assert_eq!(next_event(&mut everything).await, rev);
        assert_eq!(next_event(&mut resource).await, rev);
    }
    // No hub (and no window) for it; a restart ends it as it ends the others.
    assert_eq!(fan.window_sizes(), [(P.to_string(), 150)]);
    fan.restart(fan.current_revision().await.expect("revision"));
    let ended = tokio::time::timeout(Duration::from_secs(5), everything.next());
    assert!(matches!(ended.await, Ok(None)), "the restart ends it");
}
