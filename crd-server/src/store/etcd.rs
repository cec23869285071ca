//! The etcd v3 backend, through etcd's JSON gateway (`/v3/kv/*`, `/v3/watch`) on the
//! client URLs: the same API as gRPC, without a protobuf toolchain at build time.
//!
//! Keys are kube-apiserver's (`/registry/...`), `resourceVersion` is etcd's `mod_revision`,
//! compare-and-swap is a transaction on `mod_revision` (`create_revision == 0` for create),
//! and watch is etcd's watch with `prev_kv`, so replicas sharing one etcd see each other's
//! writes as their own.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use bytes::Bytes;
use futures::{FutureExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};

use super::{
    EventKind, KeyValue, ListOptions, ListResult, Revision, Store, StoreError, StoreFuture,
    WatchEvent, WatchItem, WatchStream,
};
use crate::http_body::read_body;

/// A request that gets no answer in this time fails (and the next endpoint is tried).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Passes over the endpoints before a request fails, the pause growing by this much
/// each time (about the time etcd takes to elect a new leader).
const ROUNDS: u32 = 4;
const ROUND_PAUSE: Duration = Duration::from_millis(250);

/// What one member made of a request.
enum Answer {
    /// Its JSON answer (possibly an error).
    Json(Value),
    /// It was not reached: nothing was sent.
    Unreached(String),
    /// The request went out but no answer came back.
    Lost(String),
}

/// Errors another member, or the same one a moment later, may not give: no leader or
/// a leader changing, a member stopping, an overloaded or unreachable one.
fn transient(v: &Value) -> bool {
    let code = num(&v["code"]);
    let message = v["message"].as_str().or(v["error"].as_str()).unwrap_or("");
    // gRPC's UNAVAILABLE (14) and DEADLINE_EXCEEDED (4).
    code == 14
        || code == 4
        || [
            "no leader",
            "leader changed",
            "request timed out",
            "server stopped",
            "too many requests",
            "not capable",
        ]
        .iter()
        .any(|m| message.contains(m))
}

/// Errors that say the request was refused before it was proposed.
fn not_applied(v: &Value) -> bool {
    let message = v["message"].as_str().or(v["error"].as_str()).unwrap_or("");
    message.contains("no leader")
        || message.contains("server stopped")
        || message.contains("too many requests")
}

/// An etcd v3 [`Store`].
pub struct EtcdStore {
    client: Client<HttpConnector, Full<Bytes>>,
    endpoints: Vec<String>,
    /// The endpoint that answered last, tried first.
    preferred: AtomicUsize,
}

fn b64(s: &str) -> String {
    B64.encode(s.as_bytes())
}

/// The end of the range of keys starting with `prefix` (etcd's `range_end`).
fn prefix_end(prefix: &str) -> String {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return B64.encode(&end);
        }
    }
    B64.encode([0u8])
}

fn num(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.parse().unwrap_or(0),
        Value::Number(n) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}

fn kv_of(v: &Value) -> Result<KeyValue, StoreError> {
    let bad = |what: &str| {
        StoreError::Unavailable(format!("etcd answered a malformed key-value ({what})"))
    };
    let key = B64
        .decode(v["key"].as_str().unwrap_or(""))
        .map_err(|_| bad("key"))?;
    let value = B64
        .decode(v["value"].as_str().unwrap_or(""))
        .map_err(|_| bad("value"))?;
    Ok(KeyValue {
        key: String::from_utf8(key).map_err(|_| bad("key is not UTF-8"))?,
        value: Bytes::from(value),
        create_revision: num(&v["create_revision"]),
        mod_revision: num(&v["mod_revision"]),
    })
}

fn etcd_error(v: &Value, requested: Option<Revision>, current: Revision) -> StoreError {
    let message = v["message"]
        .as_str()
        .or(v["error"].as_str())
        .unwrap_or("unknown error");
    if message.contains("compacted") {
        return StoreError::Compacted {
            requested: requested.unwrap_or(0),
            oldest: 0,
        };
    }
    if message.contains("future revision") {
        return StoreError::FutureRevision {
            requested: requested.unwrap_or(0),
            current,
        };
    }
    StoreError::Unavailable(format!("etcd: {message}"))
}

impl EtcdStore {
    /// Connects to the first endpoint that answers (`http://127.0.0.1:2379`, ...).
    pub async fn connect(endpoints: &[String]) -> Result<EtcdStore, StoreError> {
        if endpoints.is_empty() {
            return Err(StoreError::Unavailable("no etcd endpoint given".into()));
        }
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(2)));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(64)
            .build(connector);
        let endpoints = endpoints
            .iter()
            .map(|e| e.trim_end_matches('/').to_string())
            .collect();
        let store = EtcdStore {
            client,
            endpoints,
            preferred: AtomicUsize::new(0),
        };
        store.call("/v3/maintenance/status", json!({})).await?;
        Ok(store)
    }

    /// POSTs `body` to `path`, trying each endpoint in turn from the one that answered
    /// last (what etcd's client balancer does: a dead member costs one refused
    /// connection, then the others serve). A read is tried again elsewhere whatever
    /// went wrong; a write only when it cannot have been applied — the member was not
    /// reached, or the cluster had no leader — since a write sent twice could be
    /// applied twice.
    async fn call(&self, path: &str, body: Value) -> Result<Value, StoreError> {
        let read = !path.ends_with("/txn");
        let bytes = Bytes::from(body.to_string());
        let mut last = String::new();
        for round in 0..ROUNDS {
            if round > 0 {
                // Between rounds: an election in progress (about a second by default).
                tokio::time::sleep(ROUND_PAUSE * round).await;
            }
            let first = self.preferred.load(Ordering::Relaxed);
            for i in 0..self.endpoints.len() {
                let at = (first + i) % self.endpoints.len();
                let endpoint = &self.endpoints[at];
                match self.post(endpoint, path, &bytes).await {
                    Answer::Json(v) => {
                        let transient = v.get("error").is_some() && transient(&v);
                        if !transient {
                            self.preferred.store(at, Ordering::Relaxed);
                            return Ok(v);
                        }
                        if !read && !not_applied(&v) {
                            return Ok(v);
                        }
                        last = format!("{endpoint}: {}", v["message"].as_str().unwrap_or(""));
                    }
                    Answer::Unreached(e) => last = format!("{endpoint}: {e}"),
                    Answer::Lost(e) if read => last = format!("{endpoint}: {e}"),
                    Answer::Lost(e) => {
                        return Err(StoreError::Unavailable(format!(
                            "etcd: the outcome of the write is unknown ({endpoint}: {e})"
                        )));
                    }
                }
            }
        }
        Err(StoreError::Unavailable(format!(
            "etcd unreachable ({last})"
        )))
    }

    /// One request to one member.
    async fn post(&self, endpoint: &str, path: &str, bytes: &Bytes) -> Answer {
        let url = format!("{endpoint}{path}");
        let req = match http::Request::post(&url)
            .header("content-type", "application/json")
            .body(Full::new(bytes.clone()))
        {
            Ok(r) => r,
            Err(e) => return Answer::Unreached(format!("bad etcd URL {url}: {e}")),
        };
        let answer = tokio::time::timeout(REQUEST_TIMEOUT, async {
            let resp = self.client.request(req).await.map_err(|e| {
                if e.is_connect() {
                    Answer::Unreached(e.to_string())
                } else {
                    Answer::Lost(e.to_string())
                }
            })?;
            let body = read_body(resp.into_body()).await.map_err(Answer::Lost)?;
            serde_json::from_slice::<Value>(&body)
                .map_err(|e| Answer::Lost(format!("not JSON: {e}")))
        })
        .await;
        match answer {
            Ok(Ok(v)) => Answer::Json(v),
            Ok(Err(a)) => a,
            Err(_) => Answer::Lost(format!("no answer in {}s", REQUEST_TIMEOUT.as_secs())),
        }
    }

    async fn txn(
        &self,
        compare: Value,
        success: Value,
        failure: Value,
    ) -> Result<Value, StoreError> {
        let v = self
            .call(
                "/v3/kv/txn",
                json!({"compare": [compare], "success": [success], "failure": [failure]}),
            )
            .await?;
        if v.get("error").is_some() {
            return Err(etcd_error(&v, None, 0));
        }
        Ok(v)
    }

    /// The key's current value after a failed transaction (its `failure` range).
    fn failed_range(v: &Value) -> Result<Option<KeyValue>, StoreError> {
        match v.pointer("/responses/0/response_range/kvs/0") {
            Some(kv) => kv_of(kv).map(Some),
            None => Ok(None),
        }
    }

    async fn compare_and_put(
        &self,
        key: &str,
        value: Bytes,
        expected: Revision,
    ) -> Result<KeyValue, StoreError> {
        let k = b64(key);
        let v = self
            .txn(
                json!({"target": "MOD", "key": k, "mod_revision": expected.to_string()}),
                json!({"request_put": {"key": k, "value": B64.encode(&value), "prev_kv": true}}),
                json!({"request_range": {"key": k}}),
            )
            .await?;
        if v["succeeded"].as_bool() != Some(true) {
            return match Self::failed_range(&v)? {
                Some(current) => Err(StoreError::Conflict {
                    key: key.into(),
                    expected,
                    current: current.mod_revision,
                }),
                None => Err(StoreError::NotFound { key: key.into() }),
            };
        }
        let revision = num(&v["header"]["revision"]);
        let create = v
            .pointer("/responses/0/response_put/prev_kv/create_revision")
            .map(num)
            .unwrap_or(revision);
        Ok(KeyValue {
            key: key.into(),
            value,
            create_revision: create,
            mod_revision: revision,
        })
    }
}

impl Store for EtcdStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<KeyValue>> {
        async move {
            let v = self.call("/v3/kv/range", json!({"key": b64(key)})).await?;
            if v.get("error").is_some() {
                return Err(etcd_error(&v, None, 0));
            }
            v.pointer("/kvs/0").map(kv_of).transpose()
        }
        .boxed()
    }

    fn list<'a>(&'a self, prefix: &'a str, opts: ListOptions) -> StoreFuture<'a, ListResult> {
        async move {
            let start = match &opts.start_after {
                Some(after) if after.as_str() >= prefix => format!("{after}\0"),
                _ => prefix.to_string(),
            };
            let mut req = json!({"key": b64(&start), "range_end": prefix_end(prefix)});
            if let Some(limit) = opts.limit {
                req["limit"] = json!(limit.to_string());
            }
            if let Some(rev) = opts.revision {
                req["revision"] = json!(rev.to_string());
            }
            let v = self.call("/v3/kv/range", req).await?;
            if v.get("error").is_some() {
                let current = self.current_revision().await.unwrap_or(0);
                return Err(etcd_error(&v, opts.revision, current));
            }
            let items = v["kvs"]
                .as_array()
                .map(|a| a.iter().map(kv_of).collect::<Result<Vec<_>, _>>())
                .transpose()?
                .unwrap_or_default();
            let count = num(&v["count"]);
            Ok(ListResult {
                remaining: count.saturating_sub(items.len() as u64),
                items,
                revision: opts
                    .revision
                    .unwrap_or_else(|| num(&v["header"]["revision"])),
            })
        }
        .boxed()
    }

    fn create<'a>(&'a self, key: &'a str, value: Bytes) -> StoreFuture<'a, KeyValue> {
        async move {
            let k = b64(key);
            let v = self
                .txn(
                    json!({"target": "CREATE", "key": k, "create_revision": "0"}),
                    json!({"request_put": {"key": k, "value": B64.encode(&value)}}),
                    json!({"request_range": {"key": k}}),
                )
                .await?;
            if v["succeeded"].as_bool() != Some(true) {
                return Err(StoreError::AlreadyExists { key: key.into() });
            }
            let revision = num(&v["header"]["revision"]);
            Ok(KeyValue {
                key: key.into(),
                value,
                create_revision: revision,
                mod_revision: revision,
            })
        }
        .boxed()
    }

    fn update<'a>(
        &'a self,
        key: &'a str,
        value: Bytes,
        expected: Revision,
    ) -> StoreFuture<'a, KeyValue> {
        self.compare_and_put(key, value, expected).boxed()
    }

    fn delete<'a>(&'a self, key: &'a str, expected: Option<Revision>) -> StoreFuture<'a, KeyValue> {
        async move {
            let k = b64(key);
            // Without an expected revision: "exists" (create_revision > 0) is the condition.
            let compare = match expected {
                Some(rev) => json!({"target": "MOD", "key": k, "mod_revision": rev.to_string()}),
                None => json!({"target": "CREATE", "key": k, "result": "GREATER", "create_revision": "0"}),
            };
            let v = self
                .txn(compare, json!({"request_delete_range": {"key": k, "prev_kv": true}}), json!({"request_range": {"key": k}}))
                .await?;
            if v["succeeded"].as_bool() != Some(true) {
                return match (Self::failed_range(&v)?, expected) {
                    (Some(current), Some(expected)) => {
                        Err(StoreError::Conflict { key: key.into(), expected, current: current.mod_revision })
                    }
                    _ => Err(StoreError::NotFound { key: key.into() }),
                };
            }
            let revision = num(&v["header"]["revision"]);
            let prev = v
                .pointer("/responses/0/response_delete_range/prev_kvs/0")
                .ok_or_else(|| StoreError::NotFound { key: key.into() })?;
            let mut kv = kv_of(prev)?;
            kv.mod_revision = revision;
            Ok(kv)
        }
        .boxed()
    }

    fn watch<'a>(&'a self, prefix: &'a str, after: Revision) -> StoreFuture<'a, WatchStream> {
        async move {
            let body = json!({"create_request": {
                "key": b64(prefix), "range_end": prefix_end(prefix),
                "start_revision": (after + 1).to_string(), "prev_kv": true, "progress_notify": true,
            }});
            let mut last = String::new();
            let first = self.preferred.load(Ordering::Relaxed);
            for i in 0..self.endpoints.len() {
                let at = (first + i) % self.endpoints.len();
                let endpoint = &self.endpoints[at];
                let url = format!("{endpoint}/v3/watch");
                let Ok(req) =
                    http::Request::post(&url).body(Full::new(Bytes::from(body.to_string())))
                else {
                    continue;
                };
                match tokio::time::timeout(REQUEST_TIMEOUT, self.client.request(req)).await {
                    Ok(Ok(resp)) => {
                        self.preferred.store(at, Ordering::Relaxed);
                        return Ok(watch_stream(resp.into_body(), after));
                    }
                    Ok(Err(e)) => last = format!("{endpoint}: {e}"),
                    Err(_) => last = format!("{endpoint}: no answer"),
                }
            }
            Err(StoreError::Unavailable(format!(
                "etcd watch failed ({last})"
            )))
        }
        .boxed()
    }

    fn current_revision(&self) -> StoreFuture<'_, Revision> {
        async move {
            let v = self
                .call(
                    "/v3/kv/range",
                    json!({"key": b64("\0"), "limit": "1", "count_only": true}),
                )
                .await?;
            Ok(num(&v["header"]["revision"]))
        }
        .boxed()
    }

    fn compact(&self, revision: Revision) -> StoreFuture<'_, ()> {
        async move {
            // Idempotent: sent again to another member after a lost answer, it either
            // compacts or finds the revision compacted already.
            let v = self
                .call(
                    "/v3/kv/compaction",
                    json!({"revision": revision.to_string()}),
                )
                .await?;
            if v.get("error").is_none() {
                return Ok(());
            }
            match etcd_error(&v, Some(revision), 0) {
                StoreError::Compacted { .. } => Ok(()),
                StoreError::FutureRevision { requested, .. } => {
                    let current = self.current_revision().await.unwrap_or(0);
                    Err(StoreError::FutureRevision { requested, current })
                }
                e => Err(e),
            }
        }
        .boxed()
    }

    fn describe(&self) -> String {
        format!("etcd {}", self.endpoints.join(","))
    }
}

/// Turns the gateway's stream of JSON lines into watch items.
fn watch_stream(body: hyper::body::Incoming, after: Revision) -> WatchStream {
    struct St {
        body: hyper::body::Incoming,
        buf: Vec<u8>,
        pending: std::collections::VecDeque<Result<WatchItem, StoreError>>,
        done: bool,
    }
    let st = St {
        body,
        buf: Vec::new(),
        pending: Default::default(),
        done: false,
    };
    futures::stream::unfold(st, move |mut st| async move {
        loop {
            if let Some(item) = st.pending.pop_front() {
                if item.is_err() {
                    st.done = true;
                }
                return Some((item, st));
            }
            if st.done {
                return None;
            }
            while let Some(pos) = st.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = st.buf.drain(..=pos).collect();
                if let Ok(msg) = serde_json::from_slice::<Value>(&line) {
                    parse_message(&msg, after, &mut st.pending);
                }
            }
            if !st.pending.is_empty() {
                continue;
            }
            match st.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        st.buf.extend_from_slice(&data);
                        // A message without a newline at the end of a chunk may still be
                        // complete JSON: try it.
                        if !st.buf.contains(&b'\n')
                            && let Ok(msg) = serde_json::from_slice::<Value>(&st.buf)
                        {
                            st.buf.clear();
                            parse_message(&msg, after, &mut st.pending);
                        }
                    }
                }
                Some(Err(e)) => st
                    .pending
                    .push_back(Err(StoreError::Unavailable(format!("etcd watch: {e}")))),
                None => return None,
            }
        }
    })
    .boxed()
}

fn parse_message(
    msg: &Value,
    after: Revision,
    out: &mut std::collections::VecDeque<Result<WatchItem, StoreError>>,
) {
    if msg.get("error").is_some() {
        out.push_back(Err(etcd_error(msg, Some(after), 0)));
        return;
    }
    let result = &msg["result"];
    if result["canceled"].as_bool() == Some(true) {
        let compacted = num(&result["compact_revision"]);
        out.push_back(Err(if compacted > 0 {
            StoreError::Compacted {
                requested: after,
                oldest: compacted,
            }
        } else {
            StoreError::Unavailable(format!(
                "etcd cancelled the watch: {}",
                result["cancel_reason"].as_str().unwrap_or("")
            ))
        }));
        return;
    }
    let events = result["events"].as_array();
    match events {
        Some(events) if !events.is_empty() => {
            for e in events {
                let prev = e.get("prev_kv").map(kv_of).transpose();
                let item = match (e["type"].as_str(), kv_of(&e["kv"]), prev) {
                    (_, Err(err), _) | (_, _, Err(err)) => Err(err),
                    (Some("DELETE"), Ok(kv), Ok(prev)) => {
                        let mut last = prev.clone().unwrap_or_else(|| kv.clone());
                        last.mod_revision = kv.mod_revision;
                        Ok(WatchItem::Event(WatchEvent {
                            kind: EventKind::Delete,
                            kv: last,
                            prev,
                        }))
                    }
                    (_, Ok(kv), Ok(prev)) => {
                        // etcd sends prev_kv for every update; none means a creation.
                        Ok(WatchItem::Event(WatchEvent {
                            kind: EventKind::Put,
                            kv,
                            prev,
                        }))
                    }
                };
                out.push_back(item);
            }
        }
        _ => {
            if result["created"].as_bool() != Some(true) {
                let rev = num(&result["header"]["revision"]);
                if rev > 0 {
                    out.push_back(Ok(WatchItem::Progress(rev)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_errors_another_member_may_not_give() {
        let no_leader = json!({"error": "etcdserver: no leader", "code": 14, "message": "etcdserver: no leader"});
        assert!(transient(&no_leader) && not_applied(&no_leader));
        // A timed-out proposal may still be applied: reads retry it, writes do not.
        let timed_out = json!({"error": "etcdserver: request timed out", "code": 14, "message": "etcdserver: request timed out"});
        assert!(transient(&timed_out) && !not_applied(&timed_out));
        let compacted = json!({"error": "etcdserver: mvcc: required revision has been compacted", "code": 11, "message": "etcdserver: mvcc: required revision has been compacted"});
        assert!(!transient(&compacted));
    }
}
