use bytes::Bytes;
use futures::StreamExt;

use super::embedded::EmbeddedStore;
use super::memory::MemoryStore;
use super::suite::{check_contract, check_watch_compaction, create};
use super::{ListOptions, Store, StoreError, WatchItem};

#[tokio::test]
async fn memory_store_keeps_the_contract() {
    check_contract(&MemoryStore::new(), "/t").await;
    check_watch_compaction(&MemoryStore::new(), "/t").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_store_keeps_the_contract() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = EmbeddedStore::open(dir.path()).expect("open");
    check_contract(&store, "/t").await;
    check_watch_compaction(&store, "/t").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_store_keeps_everything_acknowledged_across_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (kept, revision) = {
        let store = EmbeddedStore::open(dir.path()).expect("open");
        let a = create(&store, "/r/a", "1").await;
        store
            .update("/r/a", Bytes::from_static(b"2"), a.mod_revision)
            .await
            .expect("update");
        create(&store, "/r/b", "3").await;
        store.delete("/r/b", None).await.expect("delete");
        let list = store
            .list("/r/", ListOptions::default())
            .await
            .expect("list");
        (
            list.items,
            store.current_revision().await.expect("revision"),
        )
    };
    // The writer thread lets go of the file once the store is dropped.
    let mut reopened = None;
    for _ in 0..100 {
        match EmbeddedStore::open(dir.path()) {
            Ok(store) => {
                reopened = Some(store);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
    let store = reopened.expect("reopened within 2 s");
    assert_eq!(
        store
            .list("/r/", ListOptions::default())
            .await
            .expect("list")
            .items,
        kept
    );
    assert_eq!(store.current_revision().await.expect("revision"), revision);
    let next = create(&store, "/r/c", "4").await;
    assert_eq!(
        next.mod_revision,
        revision + 1,
        "revisions continue after a restart"
    );
}

#[tokio::test]
async fn a_watch_from_a_compacted_revision_fails() {
    let store = MemoryStore::new();
    let first = create(&store, "/c/a", "1").await;
    create(&store, "/c/b", "2").await;
    store
        .compact(first.mod_revision + 1)
        .await
        .expect("compact");
    assert!(matches!(
        store.watch("/c/", first.mod_revision - 1).await.err(),
        Some(StoreError::Compacted { .. })
    ));
    let opts = ListOptions {
        revision: Some(first.mod_revision),
        ..Default::default()
    };
    assert!(matches!(
        store.list("/c/", opts).await,
        Err(StoreError::Compacted { .. })
    ));
}

#[tokio::test]
async fn idle_watches_get_progress_marks() {
    let store = MemoryStore::new();
    let kv = create(&store, "/p/a", "1").await;
    let mut watch = store.watch("/p/", kv.mod_revision).await.expect("watch");
    let item = tokio::time::timeout(std::time::Duration::from_secs(5), watch.next())
        .await
        .expect("a progress mark")
        .expect("open")
        .expect("no error");
    assert_eq!(item, WatchItem::Progress(kv.mod_revision));
}
