//! WATCH: a stream of `{"type": ..., "object": ...}` lines — initial ADDED events for the
//! current state when no `resourceVersion` (or `0`) is given, then the store's changes
//! with selectors applied the way the server applies them (an object that stops matching
//! is DELETED, one that starts matching is ADDED), BOOKMARKs when asked (at the end of
//! the initial events of a streaming list, then about once a minute and two seconds
//! before the watch ends, as kube-apiserver's watch cache sends them), and an ERROR
//! event with a 410 Status when the history asked for is gone. A watch lasts
//! `timeoutSeconds`, or 30 to 60 minutes.

use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Scope;
use super::read::{Listed, Selectors, columns, list_objects, parse_rv};
use crate::api::kinds::Resource;
use crate::api::request::media::partial_metadata;
use crate::api::request::{Query, Representation};
use crate::api::status::ApiError;
use crate::api::storage;
use crate::api::table::{Column, table};
use crate::store::{EventKind, StoreError, WatchItem};

/// kube-apiserver's `--min-request-timeout`: a watch without `timeoutSeconds` lasts
/// between one and two of it, chosen at random (so that watches started together do not
/// all end together).
const MIN_REQUEST_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often a watch that asked for bookmarks gets one (the watch cache's cadence).
const BOOKMARK_FREQUENCY: Duration = Duration::from_secs(60);
/// How long before its end a watch gets its last bookmark.
const BOOKMARK_BEFORE_END: Duration = Duration::from_secs(2);
/// Encoded events buffered per watcher.
const BUFFER: usize = 256;

struct Encoder {
    res: Resource,
    repr: Representation,
    columns: Vec<Column>,
    include: Option<String>,
    first: bool,
}

impl Encoder {
    fn event(&mut self, type_: &str, object: Value) -> Bytes {
        let object = match (self.repr, type_) {
            (Representation::Table, "ADDED" | "MODIFIED" | "DELETED") => {
                let mut t = table(
                    &self.columns,
                    std::slice::from_ref(&object),
                    self.include.as_deref(),
                    json!({
                        "resourceVersion": object.pointer("/metadata/resourceVersion"),
                    }),
                );
                if !self.first {
                    t["columnDefinitions"] = json!([]);
                }
                self.first = false;
                t
            }
            (Representation::Metadata, "ADDED" | "MODIFIED" | "DELETED") => {
                partial_metadata(&object)
            }
            _ => object,
        };
        let mut line =
            serde_json::to_vec(&json!({"type": type_, "object": object})).unwrap_or_default();
        line.push(b'\n');
        Bytes::from(line)
    }

    fn bookmark(&mut self, revision: u64, initial_end: bool) -> Bytes {
        let mut meta = json!({"resourceVersion": revision.to_string()});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let info = self.res.info();
        let object =
            json!({"kind": info.q.kind, "apiVersion": info.api_version(), "metadata": meta});
        self.event("BOOKMARK", object)
    }
}

/// How long a watch lasts: `timeoutSeconds`, or (absent or 0) a random time between
/// one and two minimum request timeouts.
fn watch_timeout(seconds: Option<u64>) -> Duration {
    match seconds.filter(|s| *s > 0) {
        Some(s) => Duration::from_secs(s),
        None => {
            use std::hash::{BuildHasher, Hasher};
            let mut random = std::collections::hash_map::RandomState::new().build_hasher();
            random.write_u64(0);
            let fraction = (random.finish() % 10_000) as f64 / 10_000.0;
            MIN_REQUEST_TIMEOUT.mul_f64(1.0 + fraction)
        }
    }
}

/// When the next bookmark is due after `now`, as the watch cache schedules them: a
/// minute on, or two seconds before the watch ends if that comes first; none once even
/// that has passed.
fn next_bookmark(
    now: tokio::time::Instant,
    deadline: tokio::time::Instant,
) -> Option<tokio::time::Instant> {
    let heartbeat = now + BOOKMARK_FREQUENCY;
    let before_end = deadline.checked_sub(BOOKMARK_BEFORE_END)?;
    let at = heartbeat.min(before_end);
    (at > now).then_some(at)
}

/// Starts a watch and returns the streaming response.
pub async fn watch(scope: &Scope<'_>) -> Result<Response, ApiError> {
    let shared = scope.shared;
    let res = scope.res.clone();
    let ns = scope.ns();
    let q = &scope.req.query;
    let repr = scope.req.representation()?;
    let selectors = Selectors::parse(&res, q)?;
    let prefix = res.info().list_prefix(ns);
    let from = q
        .resource_version
        .as_deref()
        .filter(|rv| *rv != "0")
        .map(parse_rv)
        .transpose()?;
    let initial = from.is_none() || q.send_initial_events;
    let mut enc = Encoder {
        columns: columns(&res),
        res: res.clone(),
        repr,
        include: q.include_object.clone(),
        first: true,
    };
    let (tx, rx) = mpsc::channel::<Bytes>(BUFFER);
    let mut start = from.unwrap_or(0);
    let mut backlog = Vec::new();
    if initial {
        let listed: Listed = list_objects(
            shared,
            &res,
            ns,
            &Query {
                limit: None,
                continue_token: None,
                ..q.clone()
            },
        )
        .await?;
        start = listed.revision;
        for obj in listed.items {
            backlog.push(enc.event("ADDED", obj));
        }
        if q.send_initial_events && q.allow_watch_bookmarks {
            backlog.push(enc.bookmark(start, true));
        }
    }
    let stream = match shared.store.watch(&prefix, start).await {
        Ok(s) => Ok(s),
        // Answered as kube-apiserver's watch cache answers it: 200, then one ERROR event.
        Err(StoreError::Compacted { requested, oldest }) => {
            Err(ApiError::gone(requested, oldest.saturating_sub(1)))
        }
        Err(e) => return Err(ApiError::from_store(&res.info().q, "", e)),
    };
    let timeout = watch_timeout(q.timeout_seconds);
    let bookmarks = q.allow_watch_bookmarks;
    tokio::spawn(async move {
        let now = tokio::time::Instant::now();
        let deadline = now + timeout;
        for line in backlog {
            if tx.send(line).await.is_err() {
                return;
            }
        }
        let mut stream = match stream {
            Ok(s) => s,
            Err(gone) => {
                let _ = tx.send(enc.event("ERROR", gone.to_status())).await;
                return;
            }
        };
        // The revision every change up to which has been sent (what a bookmark says).
        let mut seen = start;
        let mut bookmark_at = next_bookmark(now, deadline).filter(|_| bookmarks);
        loop {
            let wake = bookmark_at.unwrap_or(deadline).min(deadline);
            let item = match tokio::time::timeout_at(wake, stream.next()).await {
                Ok(Some(item)) => item,
                Ok(None) => return,
                Err(_) if wake >= deadline => return,
                Err(_) => {
                    bookmark_at = next_bookmark(wake, deadline);
                    if tx.send(enc.bookmark(seen, false)).await.is_err() {
                        return;
                    }
                    continue;
                }
            };
            let line = match item {
                Ok(WatchItem::Event(e)) => {
                    seen = seen.max(e.kv.mod_revision);
                    // The new and the previous state, both in the watched version (one
                    // conversion call for the pair).
                    let kvs: Vec<_> = [Some(&e.kv), e.prev.as_ref()]
                        .into_iter()
                        .flatten()
                        .cloned()
                        .collect();
                    let mut converted = match storage::present(&enc.res, &kvs).await {
                        Ok(c) => c.into_iter(),
                        Err(err) => {
                            let _ = tx.send(enc.event("ERROR", err.to_status())).await;
                            return;
                        }
                    };
                    let new = converted.next();
                    let old = converted.next();
                    let was = old.as_ref().is_some_and(|o| selectors.matches(o));
                    match (e.kind, new) {
                        (EventKind::Delete, Some(obj)) if was => Some(enc.event("DELETED", obj)),
                        (EventKind::Put, Some(obj)) => match (was, selectors.matches(&obj)) {
                            (true, true) => Some(enc.event("MODIFIED", obj)),
                            (false, true) => Some(enc.event("ADDED", obj)),
                            (true, false) => Some(enc.event("DELETED", obj)),
                            (false, false) => None,
                        },
                        _ => None,
                    }
                }
                Ok(WatchItem::Progress(rev)) => {
                    if tx.is_closed() {
                        return;
                    }
                    seen = seen.max(rev);
                    None
                }
                // The store's watch was cut by a compaction (or this watcher fell too
                // far behind): kube-apiserver's words for an etcd watch cut that way.
                Err(StoreError::Compacted { .. }) => {
                    let expired =
                        ApiError::expired("The resourceVersion for the provided watch is too old.");
                    let _ = tx.send(enc.event("ERROR", expired.to_status())).await;
                    return;
                }
                Err(e) => {
                    let _ = tx
                        .send(enc.event("ERROR", ApiError::unavailable(e.to_string()).to_status()))
                        .await;
                    return;
                }
            };
            if let Some(line) = line
                && tx.send(line).await.is_err()
            {
                return;
            }
        }
    });
    let body = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), rx))
    });
    let content_type = repr.content_type(true);
    Response::builder()
        .header(http::header::CONTENT_TYPE, content_type)
        .header(http::header::CACHE_CONTROL, "no-cache, private")
        .body(Body::from_stream(body))
        .map_err(|e| ApiError::internal(e.to_string()))
}

#[cfg(test)]
mod cadence_tests {
    use super::*;

    #[test]
    fn a_bookmark_a_minute_or_two_seconds_before_the_end() {
        let now = tokio::time::Instant::now();
        let long = now + Duration::from_secs(600);
        assert_eq!(next_bookmark(now, long), Some(now + BOOKMARK_FREQUENCY));
        let short = now + Duration::from_secs(30);
        assert_eq!(next_bookmark(now, short), Some(short - BOOKMARK_BEFORE_END));
        // Within the last two seconds none is due any more.
        assert_eq!(next_bookmark(now, now + Duration::from_secs(1)), None);
    }
}
