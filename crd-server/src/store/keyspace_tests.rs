use futures::StreamExt;

use super::*;

fn put(state: &mut State, key: &str) {
    let op = Op::Create {
        key: key.into(),
        value: Bytes::from_static(b"{}"),
    };
    let event = state.prepare(&[], op).expect("prepare");
    state.apply(vec![event]);
}

fn next_key(item: Option<Result<WatchItem, StoreError>>) -> String {
    match item {
        Some(Ok(WatchItem::Event(e))) => e.kv.key,
        other => panic!("expected an event, got {other:?}"),
    }
}

#[tokio::test]
async fn a_write_reaches_only_the_watches_whose_prefix_holds_it() {
    let mut state = State::new(Keys::default(), 1);
    let mut pods = state.watch("/registry/pods/", 1).expect("watch");
    let mut everything = state.watch("/registry/", 1).expect("watch");
    let mut pods_too = state.watch("/registry/pods/", 1).expect("watch");
    // Two prefixes, two channels: the second pod watcher joins the first's.
    assert_eq!(state.routes().len(), 2);
    put(&mut state, "/registry/secrets/default/a");
    put(&mut state, "/registry/pods/default/b");
    state.progress();
    assert_eq!(
        next_key(everything.next().await),
        "/registry/secrets/default/a"
    );
    assert_eq!(
        next_key(everything.next().await),
        "/registry/pods/default/b"
    );
    for watch in [&mut pods, &mut pods_too] {
        assert_eq!(next_key(watch.next().await), "/registry/pods/default/b");
        // The progress mark comes next: the secret never reached this channel.
        assert!(matches!(
            watch.next().await,
            Some(Ok(WatchItem::Progress(3)))
        ));
    }
}

#[tokio::test]
async fn a_prefix_with_no_watcher_left_loses_its_channel_at_the_next_write() {
    let mut state = State::new(Keys::default(), 1);
    let pods = state.watch("/registry/pods/", 1).expect("watch");
    let _nodes = state.watch("/registry/nodes/", 1).expect("watch");
    drop(pods);
    assert_eq!(state.routes().len(), 2);
    put(&mut state, "/registry/pods/default/a");
    let left: Vec<String> = state.routes().iter().map(|r| r.prefix.clone()).collect();
    assert_eq!(left, vec!["/registry/nodes/".to_string()]);
}

#[tokio::test]
async fn a_watcher_that_falls_a_whole_buffer_behind_is_ended_as_compacted() {
    let mut state = State::new(Keys::default(), 1);
    let mut slow = state.watch("/k/", 1).expect("watch");
    for i in 0..=WATCH_BUFFER {
        put(&mut state, &format!("/k/{i}"));
    }
    assert!(matches!(
        slow.next().await,
        Some(Err(StoreError::Compacted { requested: 1, .. }))
    ));
    assert!(slow.next().await.is_none());
}
