use std::collections::VecDeque;

use bytes::Bytes;
use tonic::{Code, Status};

use super::client::{Answer, classify, not_applied, transient};
use super::etcdserverpb::{ResponseHeader, WatchResponse};
use super::mvccpb::{Event, KeyValue as PbKeyValue, event::EventType};
use super::watch::parse;
use super::{etcd_error, prefix_end};
use crate::store::{EventKind, StoreError, WatchItem};

#[test]
fn which_errors_another_member_may_not_give() {
    let no_leader = "etcdserver: no leader";
    assert!(transient(Code::Unavailable, no_leader) && not_applied(no_leader));
    // A timed-out proposal may still be applied: reads retry it, writes do not.
    let timed_out = "etcdserver: request timed out";
    assert!(transient(Code::Unavailable, timed_out) && !not_applied(timed_out));
    let overloaded = "etcdserver: too many requests";
    assert!(transient(Code::ResourceExhausted, overloaded) && not_applied(overloaded));
    let compacted = "etcdserver: mvcc: required revision has been compacted";
    assert!(!transient(Code::OutOfRange, compacted));
}

#[test]
fn a_status_etcd_sent_is_its_answer_a_local_one_is_not() {
    // Built from grpc-status/grpc-message: no source error.
    let sent = Status::new(Code::FailedPrecondition, "etcdserver: key not found");
    assert!(
        matches!(classify::<()>(sent), Answer::Refused(s) if s.code() == Code::FailedPrecondition)
    );
    // Could not connect: nothing was sent.
    let refused = Status::from_error(Box::new(tonic::ConnectError(
        std::io::Error::from(std::io::ErrorKind::ConnectionRefused).into(),
    )));
    assert!(matches!(classify::<()>(refused), Answer::Unreached(_)));
    // Any other local failure (the connection dropped mid-call): the answer is lost.
    let mut dropped = Status::unavailable("connection reset");
    dropped.set_source(std::sync::Arc::new(std::io::Error::from(
        std::io::ErrorKind::ConnectionReset,
    )));
    assert!(matches!(classify::<()>(dropped), Answer::Lost(_)));
}

#[test]
fn refusals_map_to_store_errors() {
    let compacted = Status::out_of_range("etcdserver: mvcc: required revision has been compacted");
    assert!(matches!(
        etcd_error(&compacted, Some(5), 0),
        StoreError::Compacted { requested: 5, .. }
    ));
    let future = Status::out_of_range("etcdserver: mvcc: required revision is a future revision");
    assert_eq!(
        etcd_error(&future, Some(90), 12),
        StoreError::FutureRevision {
            requested: 90,
            current: 12
        }
    );
    let other = Status::invalid_argument("etcdserver: request is too large");
    assert_eq!(
        etcd_error(&other, None, 0),
        StoreError::Unavailable("etcd: etcdserver: request is too large".into())
    );
}

#[test]
fn prefix_end_is_the_next_key_after_the_prefix() {
    assert_eq!(
        prefix_end("/registry/a/"),
        Bytes::from_static(b"/registry/a0")
    );
    assert_eq!(prefix_end(""), Bytes::from_static(&[0]));
}

fn kv(key: &str, value: &str, create: i64, modified: i64) -> PbKeyValue {
    PbKeyValue {
        key: Bytes::copy_from_slice(key.as_bytes()),
        value: Bytes::copy_from_slice(value.as_bytes()),
        create_revision: create,
        mod_revision: modified,
        version: 1,
    }
}

fn header(revision: i64) -> Option<ResponseHeader> {
    Some(ResponseHeader {
        revision,
        ..Default::default()
    })
}

#[test]
fn watch_responses_become_items() {
    let mut out = VecDeque::new();
    // The creation answer says nothing; a later empty answer is a progress notification.
    parse(
        WatchResponse {
            created: true,
            header: header(7),
            ..Default::default()
        },
        6,
        &mut out,
    );
    assert!(out.is_empty());
    parse(
        WatchResponse {
            header: header(9),
            ..Default::default()
        },
        6,
        &mut out,
    );
    assert_eq!(out.pop_front(), Some(Ok(WatchItem::Progress(9))));

    let events = vec![
        Event {
            r#type: EventType::Put as i32,
            kv: Some(kv("/a", "1", 10, 10)),
            prev_kv: None,
        },
        Event {
            r#type: EventType::Delete as i32,
            kv: Some(kv("/a", "", 0, 11)),
            prev_kv: Some(kv("/a", "1", 10, 10)),
        },
    ];
    parse(
        WatchResponse {
            header: header(11),
            events,
            ..Default::default()
        },
        9,
        &mut out,
    );
    let Some(Ok(WatchItem::Event(put))) = out.pop_front() else {
        panic!("no put event")
    };
    assert_eq!(
        (put.kind, put.kv.mod_revision, put.prev),
        (EventKind::Put, 10, None)
    );
    let Some(Ok(WatchItem::Event(delete))) = out.pop_front() else {
        panic!("no delete event")
    };
    // A deletion carries the last value at the deletion's revision.
    assert_eq!(delete.kind, EventKind::Delete);
    assert_eq!(
        (delete.kv.value.as_ref(), delete.kv.mod_revision),
        (&b"1"[..], 11)
    );
    assert_eq!(delete.prev.map(|p| p.mod_revision), Some(10));
}

#[test]
fn a_watch_cancelled_for_compaction_is_compacted() {
    let mut out = VecDeque::new();
    let cancelled = WatchResponse {
        created: true,
        canceled: true,
        compact_revision: 40,
        header: header(50),
        ..Default::default()
    };
    parse(cancelled, 3, &mut out);
    assert_eq!(
        out.pop_front(),
        Some(Err(StoreError::Compacted {
            requested: 3,
            oldest: 40
        }))
    );
}
