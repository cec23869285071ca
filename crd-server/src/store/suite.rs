//! The contract every [`Store`] keeps, as one suite the backends' tests run (the memory
//! and embedded stores in unit tests, etcd in `tests/etcd_store.rs`). Each check uses keys
//! under its own `prefix`, so a shared backend (etcd) may hold other data.

use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;

use super::{EventKind, KeyValue, ListOptions, Store, StoreError, WatchItem, WatchStream};

/// Runs every check; panics (it is test code) with the failing step.
pub async fn check_contract(store: &dyn Store, prefix: &str) {
    create_get_conflict(store, &format!("{prefix}/a/")).await;
    list_pages_and_revisions(store, &format!("{prefix}/b/")).await;
    watch_from_revision(store, &format!("{prefix}/c/")).await;
    concurrent_writers_one_wins(store, &format!("{prefix}/d/")).await;
    compaction(store, &format!("{prefix}/e/")).await;
}

/// What a backend's compaction does to watches (a watch cache in front of it serves
/// what its window holds whatever the backend compacted): a watch from before the
/// compacted revision fails, at once or as its first item.
pub async fn check_watch_compaction(store: &dyn Store, prefix: &str) {
    let p = format!("{prefix}/f/");
    let kv = create(store, &format!("{p}k"), "1").await;
    let current = store.current_revision().await.expect("revision");
    store.compact(current).await.expect("compact");
    // Two revisions back: etcd still serves a watch from the revision just before the
    // compacted one (its first event is the compacted revision's), the local stores
    // do not; both refuse anything older.
    let before = kv.mod_revision - 2;
    match store.watch(&p, before).await {
        Err(StoreError::Compacted { requested, .. }) => {
            assert_eq!(requested, before);
        }
        Ok(mut watch) => {
            let first = tokio::time::timeout(Duration::from_secs(10), watch.next())
                .await
                .expect("an item within 10 s");
            assert!(
                matches!(first, Some(Err(StoreError::Compacted { .. }))),
                "a watch from a compacted revision fails: {first:?}"
            );
        }
        Err(e) => panic!("a watch from a compacted revision fails with Compacted, not {e}"),
    }
    let mut fresh = store.watch(&p, current).await.expect("from the compaction");
    let next = create(store, &format!("{p}n"), "2").await;
    assert_eq!(next_event(&mut fresh).await.kv, next);
}

/// Creates `key` holding `value`, a write the check builds on (panics when refused).
pub async fn create(store: &dyn Store, key: &str, value: &str) -> KeyValue {
    store.create(key, b(value)).await.expect("create")
}

fn b(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

async fn create_get_conflict(store: &dyn Store, p: &str) {
    let key = format!("{p}one");
    let before = store.current_revision().await.expect("revision");
    let kv = create(store, &key, "1").await;
    assert!(kv.mod_revision > before, "revisions increase");
    assert_eq!(kv.create_revision, kv.mod_revision);
    assert_eq!(store.get(&key).await.expect("get"), Some(kv.clone()));
    assert!(matches!(
        store.create(&key, b("x")).await,
        Err(StoreError::AlreadyExists { .. })
    ));
    let updated = store
        .update(&key, b("2"), kv.mod_revision)
        .await
        .expect("update");
    assert!(updated.mod_revision > kv.mod_revision);
    assert_eq!(updated.create_revision, kv.create_revision);
    match store.update(&key, b("3"), kv.mod_revision).await {
        Err(StoreError::Conflict {
            expected, current, ..
        }) => {
            assert_eq!((expected, current), (kv.mod_revision, updated.mod_revision));
        }
        other => panic!("stale update must conflict, got {other:?}"),
    }
    assert_eq!(
        store.get(&key).await.expect("get").expect("exists").value,
        b("2")
    );
    assert!(matches!(
        store.delete(&key, Some(kv.mod_revision)).await,
        Err(StoreError::Conflict { .. })
    ));
    let gone = store
        .delete(&key, Some(updated.mod_revision))
        .await
        .expect("delete");
    assert_eq!(gone.value, b("2"));
    assert!(gone.mod_revision > updated.mod_revision);
    assert_eq!(store.get(&key).await.expect("get"), None);
    assert!(matches!(
        store.delete(&key, None).await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.update(&key, b("4"), 1).await,
        Err(StoreError::NotFound { .. })
    ));
    let again = store.create(&key, b("5")).await.expect("re-create");
    store
        .delete(&key, None)
        .await
        .expect("unconditional delete");
    assert!(again.create_revision > gone.mod_revision);
}

async fn list_pages_and_revisions(store: &dyn Store, p: &str) {
    for i in 0..5 {
        create(store, &format!("{p}k{i}"), &i.to_string()).await;
    }
    // A key that only shares a textual prefix with `p` minus its slash stays out.
    create(store, &format!("{}x", p.trim_end_matches('/')), "out").await;
    let all = store.list(p, ListOptions::default()).await.expect("list");
    assert_eq!(all.items.len(), 5);
    assert_eq!(all.remaining, 0);
    let keys: Vec<_> = all.items.iter().map(|kv| kv.key.clone()).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "key order");
    let page = store
        .list(
            p,
            ListOptions {
                limit: Some(2),
                ..Default::default()
            },
        )
        .await
        .expect("page 1");
    assert_eq!((page.items.len(), page.remaining), (2, 3));
    let next = ListOptions {
        limit: Some(2),
        start_after: Some(page.items[1].key.clone()),
        revision: Some(page.revision),
    };
    let page2 = store.list(p, next).await.expect("page 2");
    assert_eq!(page2.items[0].key, format!("{p}k2"));
    assert_eq!(page2.remaining, 1);
    // The past stays readable: a delete and an update after `at` are not seen at `at`.
    let at = all.revision;
    store.delete(&format!("{p}k0"), None).await.expect("delete");
    let k1 = &all.items[1];
    store
        .update(&k1.key, b("changed"), k1.mod_revision)
        .await
        .expect("update");
    create(store, &format!("{p}k9"), "9").await;
    let old = store
        .list(
            p,
            ListOptions {
                revision: Some(at),
                ..Default::default()
            },
        )
        .await
        .expect("list at a past revision");
    assert_eq!(old.items, all.items);
    let now = store.list(p, ListOptions::default()).await.expect("list");
    assert_eq!(now.items.len(), 5);
    let future = ListOptions {
        revision: Some(now.revision + 1000),
        ..Default::default()
    };
    assert!(matches!(
        store.list(p, future).await,
        Err(StoreError::FutureRevision { .. })
    ));
}

async fn next_event(watch: &mut WatchStream) -> super::WatchEvent {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let item = tokio::time::timeout_at(deadline, watch.next())
            .await
            .expect("a watch event within 10 s")
            .expect("the watch is open")
            .expect("no watch error");
        if let WatchItem::Event(e) = item {
            return e;
        }
    }
}

async fn watch_from_revision(store: &dyn Store, p: &str) {
    let start = store.current_revision().await.expect("revision");
    let kv = create(store, &format!("{p}w"), "1").await;
    // Started after the write, from an earlier revision: the history comes first.
    let mut watch = store.watch(p, start).await.expect("watch");
    let updated = store
        .update(&kv.key, b("2"), kv.mod_revision)
        .await
        .expect("update");
    create(store, &format!("{}-other/w", p.trim_end_matches('/')), "x").await;
    let deleted = store.delete(&kv.key, None).await.expect("delete");
    let e1 = next_event(&mut watch).await;
    assert_eq!(
        (e1.kind, e1.kv.clone(), e1.prev.clone()),
        (EventKind::Put, kv.clone(), None)
    );
    let e2 = next_event(&mut watch).await;
    assert_eq!(
        (e2.kind, &e2.kv, e2.prev.as_ref()),
        (EventKind::Put, &updated, Some(&kv))
    );
    let e3 = next_event(&mut watch).await;
    assert_eq!(e3.kind, EventKind::Delete);
    assert_eq!(e3.kv.mod_revision, deleted.mod_revision);
    assert_eq!(e3.kv.value, b("2"));
    assert_eq!(
        e3.prev.as_ref().map(|p| p.mod_revision),
        Some(updated.mod_revision)
    );
    // From the latest revision: only what comes next.
    let mut later = store.watch(p, deleted.mod_revision).await.expect("watch");
    let fresh = create(store, &format!("{p}v"), "3").await;
    assert_eq!(next_event(&mut later).await.kv, fresh);
}

async fn compaction(store: &dyn Store, p: &str) {
    let kv = create(store, &format!("{p}k"), "1").await;
    let updated = store
        .update(&kv.key, b("2"), kv.mod_revision)
        .await
        .expect("update");
    store.compact(updated.mod_revision).await.expect("compact");
    let at = |revision| ListOptions {
        revision: Some(revision),
        ..Default::default()
    };
    assert!(
        matches!(
            store.list(p, at(kv.mod_revision)).await,
            Err(StoreError::Compacted { .. })
        ),
        "a read before the compacted revision fails"
    );
    let listed = store
        .list(p, at(updated.mod_revision))
        .await
        .expect("the state at the compacted revision stays readable");
    assert_eq!(listed.items, vec![updated.clone()]);
    store
        .compact(kv.mod_revision)
        .await
        .expect("compacting to an older revision is no error");
    let current = store.current_revision().await.expect("revision");
    assert!(
        matches!(
            store.compact(current + 1000).await,
            Err(StoreError::FutureRevision { .. })
        ),
        "a revision in the future cannot be compacted"
    );
}

async fn concurrent_writers_one_wins(store: &dyn Store, p: &str) {
    let key = format!("{p}contended");
    let mut kv = create(store, &key, "0").await;
    for round in 0..3 {
        let writes = (0..50).map(|i| {
            let value = b(&format!("{round}-{i}"));
            let key = key.clone();
            async move { store.update(&key, value, kv.mod_revision).await }
        });
        let results = futures::future::join_all(writes).await;
        let winners: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "exactly one writer wins round {round}");
        let conflicts = results
            .iter()
            .filter(|r| matches!(r, Err(StoreError::Conflict { .. })))
            .count();
        assert_eq!(conflicts, 49, "the others conflict");
        kv = winners[0].clone();
        assert_eq!(store.get(&key).await.expect("get"), Some(kv.clone()));
    }
}
