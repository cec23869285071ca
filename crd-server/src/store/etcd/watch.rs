//! etcd's Watch service: one bidirectional stream per store watch, opened on the first
//! member that answers, its responses turned into watch items.

use std::collections::VecDeque;

use futures::StreamExt;

use super::client::{MAX_ANSWER, Members, REQUEST_TIMEOUT};
use super::etcdserverpb::watch_client::WatchClient;
use super::etcdserverpb::watch_request::RequestUnion;
use super::etcdserverpb::{WatchCreateRequest, WatchRequest, WatchResponse};
use super::mvccpb::event::EventType;
use super::{etcd_error, header_revision, key_bytes, kv_of, prefix_end, signed, unsigned};
use crate::store::{EventKind, Revision, StoreError, WatchEvent, WatchItem, WatchStream};

/// Watches `prefix` from `after + 1` with previous values and progress notifications,
/// trying each member in turn until one opens the stream.
pub(super) async fn open(
    members: &Members,
    prefix: &str,
    after: Revision,
) -> Result<WatchStream, StoreError> {
    let create = WatchRequest {
        request_union: Some(RequestUnion::CreateRequest(WatchCreateRequest {
            key: key_bytes(prefix),
            range_end: prefix_end(prefix),
            start_revision: signed(after.saturating_add(1)),
            progress_notify: true,
            prev_kv: true,
        })),
    };
    let mut last = String::new();
    for (at, endpoint, channel) in members.in_turn() {
        // The request side stays open (etcd cancels nothing when it ends, but a
        // half-closed stream is one more state to reason about); dropping the
        // returned stream ends the call.
        let requests = futures::stream::once(std::future::ready(create.clone()))
            .chain(futures::stream::pending());
        let mut client = WatchClient::new(channel).max_decoding_message_size(MAX_ANSWER);
        match tokio::time::timeout(REQUEST_TIMEOUT, client.watch(requests)).await {
            Ok(Ok(response)) => {
                members.answered(at);
                return Ok(items(response.into_inner(), after));
            }
            Ok(Err(status)) => last = format!("{endpoint}: {}", status.message()),
            Err(_) => last = format!("{endpoint}: no answer"),
        }
    }
    Err(StoreError::Unavailable(format!(
        "etcd watch failed ({last})"
    )))
}

/// The stream's responses as watch items; it ends after its first error.
fn items(responses: tonic::Streaming<WatchResponse>, after: Revision) -> WatchStream {
    struct St {
        responses: tonic::Streaming<WatchResponse>,
        pending: VecDeque<Result<WatchItem, StoreError>>,
        done: bool,
    }
    let st = St {
        responses,
        pending: VecDeque::new(),
        done: false,
    };
    futures::stream::unfold(st, move |mut st| async move {
        loop {
            if let Some(item) = st.pending.pop_front() {
                if item.is_err() {
                    st.done = true;
                    st.pending.clear();
                }
                return Some((item, st));
            }
            if st.done {
                return None;
            }
            match st.responses.message().await {
                Ok(Some(response)) => parse(response, after, &mut st.pending),
                Ok(None) => return None,
                Err(status) => st.pending.push_back(Err(StoreError::Unavailable(format!(
                    "etcd watch: {}",
                    status.message()
                )))),
            }
        }
    })
    .boxed()
}

/// One watch response as items: its events, a cancellation (compaction: 410 above), or
/// a progress notification (no events, not the creation answer).
pub(super) fn parse(
    response: WatchResponse,
    after: Revision,
    out: &mut VecDeque<Result<WatchItem, StoreError>>,
) {
    if response.canceled {
        let compacted = unsigned(response.compact_revision);
        out.push_back(Err(if compacted > 0 {
            StoreError::Compacted {
                requested: after,
                oldest: compacted,
            }
        } else if response.cancel_reason.contains("compacted") {
            etcd_error(
                &tonic::Status::out_of_range(response.cancel_reason),
                Some(after),
                0,
            )
        } else {
            StoreError::Unavailable(format!(
                "etcd cancelled the watch: {}",
                response.cancel_reason
            ))
        }));
        return;
    }
    if response.events.is_empty() {
        if !response.created {
            let revision = header_revision(response.header.as_ref());
            if revision > 0 {
                out.push_back(Ok(WatchItem::Progress(revision)));
            }
        }
        return;
    }
    for event in response.events {
        let delete = event.r#type == EventType::Delete as i32;
        let kv = event.kv.map(kv_of).transpose();
        let prev = event.prev_kv.map(kv_of).transpose();
        let item = match (kv, prev) {
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(None), _) => Err(StoreError::Unavailable(
                "etcd answered a watch event without its key-value".into(),
            )),
            (Ok(Some(kv)), Ok(prev)) if delete => {
                let mut last = prev.clone().unwrap_or_else(|| kv.clone());
                last.mod_revision = kv.mod_revision;
                Ok(WatchItem::Event(WatchEvent {
                    kind: EventKind::Delete,
                    kv: last,
                    prev,
                }))
            }
            // etcd sends prev_kv for every update; none means a creation.
            (Ok(Some(kv)), Ok(prev)) => Ok(WatchItem::Event(WatchEvent {
                kind: EventKind::Put,
                kv,
                prev,
            })),
        };
        out.push_back(item);
    }
}
