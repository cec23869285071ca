//! The etcd v3 backend, through etcd's gRPC API (the KV and Watch services) on the
//! client URLs, as kube-apiserver's client speaks it.
//!
//! Keys are kube-apiserver's (`/registry/...`), `resourceVersion` is etcd's `mod_revision`,
//! compare-and-swap is a transaction on `mod_revision` (`create_revision == 0` for create),
//! and watch is etcd's watch with `prev_kv`, so replicas sharing one etcd see each other's
//! writes as their own.
//!
//! The messages and client stubs (`etcdserverpb.rs`, `mvccpb.rs`) are generated from the
//! trimmed .proto files in `tools/etcd-proto/proto/` by `scripts/generate-etcd-proto.sh`
//! and checked in: the build runs no protobuf compiler.

mod client;
#[cfg(test)]
#[path = "client_tests.rs"]
mod client_tests;
#[allow(missing_docs, clippy::all, clippy::pedantic, unreachable_pub)]
mod etcdserverpb;
#[allow(missing_docs, clippy::all, clippy::pedantic, unreachable_pub)]
mod mvccpb;
mod watch;

use bytes::Bytes;
use futures::FutureExt;
use tonic::Status;

use self::client::{Kind, MAX_ANSWER, Members};
use self::etcdserverpb::compare::{CompareResult, CompareTarget, TargetUnion};
use self::etcdserverpb::kv_client::KvClient;
use self::etcdserverpb::maintenance_client::MaintenanceClient;
use self::etcdserverpb::request_op::Request;
use self::etcdserverpb::response_op::Response;
use self::etcdserverpb::{
    CompactionRequest, Compare, DeleteRangeRequest, PutRequest, RangeRequest, RequestOp,
    StatusRequest, TxnRequest, TxnResponse,
};
use super::{
    KeyValue, ListOptions, ListResult, Revision, Store, StoreError, StoreFuture, WatchStream,
};

/// An etcd v3 [`Store`].
pub struct EtcdStore {
    members: Members,
}

/// The end of the range of keys starting with `prefix` (etcd's `range_end`).
fn prefix_end(prefix: &str) -> Bytes {
    let mut end = prefix.as_bytes().to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Bytes::from(end);
        }
    }
    Bytes::from_static(&[0])
}

fn key_bytes(key: &str) -> Bytes {
    Bytes::copy_from_slice(key.as_bytes())
}

/// A revision as etcd's signed field.
fn signed(revision: Revision) -> i64 {
    i64::try_from(revision).unwrap_or(i64::MAX)
}

/// A revision etcd sent (never negative; 0 when absent).
fn unsigned(revision: i64) -> Revision {
    u64::try_from(revision).unwrap_or(0)
}

fn header_revision(header: Option<&etcdserverpb::ResponseHeader>) -> Revision {
    header.map_or(0, |h| unsigned(h.revision))
}

fn kv_of(kv: mvccpb::KeyValue) -> Result<KeyValue, StoreError> {
    let key = String::from_utf8(kv.key.to_vec()).map_err(|_| {
        StoreError::Unavailable("etcd answered a malformed key-value (key is not UTF-8)".into())
    })?;
    Ok(KeyValue {
        key,
        value: kv.value,
        create_revision: unsigned(kv.create_revision),
        mod_revision: unsigned(kv.mod_revision),
    })
}

/// etcd's refusal as the store's error.
fn etcd_error(status: &Status, requested: Option<Revision>, current: Revision) -> StoreError {
    let message = status.message();
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
    let message = if message.is_empty() {
        status.code().description()
    } else {
        message
    };
    StoreError::Unavailable(format!("etcd: {message}"))
}

fn compare(
    key: &Bytes,
    target: CompareTarget,
    result: CompareResult,
    value: TargetUnion,
) -> Compare {
    Compare {
        result: result as i32,
        target: target as i32,
        key: key.clone(),
        target_union: Some(value),
    }
}

fn op(request: Request) -> RequestOp {
    RequestOp {
        request: Some(request),
    }
}

/// A single-key range (a transaction's `failure` branch reads the key's current value).
fn range_of(key: &Bytes) -> RangeRequest {
    RangeRequest {
        key: key.clone(),
        ..Default::default()
    }
}

/// The answer to a transaction's first operation (each of ours has one).
fn first_response(txn: TxnResponse) -> Option<Response> {
    txn.responses.into_iter().next().and_then(|r| r.response)
}

/// The key's current value after a failed transaction (its `failure` range).
fn failed_range(txn: TxnResponse) -> Result<Option<KeyValue>, StoreError> {
    let range = first_response(txn).and_then(|r| match r {
        Response::ResponseRange(range) => Some(range),
        _ => None,
    });
    range
        .and_then(|r| r.kvs.into_iter().next())
        .map(kv_of)
        .transpose()
}

/// Why a transaction whose compare failed did nothing: the key is at another revision
/// than `expected` (a conflict), or it is not there.
fn refused(txn: TxnResponse, key: &str, expected: Option<Revision>) -> StoreError {
    match (failed_range(txn), expected) {
        (Err(e), _) => e,
        (Ok(Some(current)), Some(expected)) => StoreError::Conflict {
            key: key.into(),
            expected,
            current: current.mod_revision,
        },
        _ => StoreError::NotFound { key: key.into() },
    }
}

impl EtcdStore {
    /// Connects to the first endpoint that answers (`http://127.0.0.1:2379`, ...).
    pub async fn connect(endpoints: &[String]) -> Result<EtcdStore, StoreError> {
        let store = EtcdStore {
            members: Members::new(endpoints)?,
        };
        store
            .members
            .call(Kind::Read, |ch| async move {
                MaintenanceClient::new(ch).status(StatusRequest {}).await
            })
            .await?
            .map_err(|status| etcd_error(&status, None, 0))?;
        Ok(store)
    }

    /// An unconditional put, no transaction: what the load benchmark measures as etcd's
    /// raw write rate through this same client (`benches/load.rs`). The store itself
    /// writes only through compare-and-swap transactions.
    #[doc(hidden)]
    pub async fn raw_put(&self, key: &str, value: Bytes) -> Result<Revision, StoreError> {
        let request = PutRequest {
            key: key_bytes(key),
            value,
            ..Default::default()
        };
        let answer = self
            .members
            .call(Kind::Write, |ch| {
                let request = request.clone();
                async move { Self::kv(ch).put(request).await }
            })
            .await?
            .map_err(|status| etcd_error(&status, None, 0))?;
        Ok(header_revision(answer.header.as_ref()))
    }

    fn kv(channel: tonic::transport::Channel) -> KvClient<tonic::transport::Channel> {
        KvClient::new(channel).max_decoding_message_size(MAX_ANSWER)
    }

    async fn range(
        &self,
        request: RangeRequest,
    ) -> Result<Result<etcdserverpb::RangeResponse, Status>, StoreError> {
        self.members
            .call(Kind::Read, |ch| {
                let request = request.clone();
                async move { Self::kv(ch).range(request).await }
            })
            .await
    }

    /// A one-key transaction: `success` if `cmp` holds, else a range of the key.
    async fn txn(
        &self,
        key: &Bytes,
        cmp: Compare,
        success: Request,
    ) -> Result<TxnResponse, StoreError> {
        let request = TxnRequest {
            compare: vec![cmp],
            success: vec![op(success)],
            failure: vec![op(Request::RequestRange(range_of(key)))],
        };
        self.members
            .call(Kind::Write, |ch| {
                let request = request.clone();
                async move { Self::kv(ch).txn(request).await }
            })
            .await?
            .map_err(|status| etcd_error(&status, None, 0))
    }
}

impl Store for EtcdStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<KeyValue>> {
        async move {
            let answer = self
                .range(range_of(&key_bytes(key)))
                .await?
                .map_err(|status| etcd_error(&status, None, 0))?;
            answer.kvs.into_iter().next().map(kv_of).transpose()
        }
        .boxed()
    }

    fn list<'a>(&'a self, prefix: &'a str, opts: ListOptions) -> StoreFuture<'a, ListResult> {
        async move {
            let start = match &opts.start_after {
                Some(after) if after.as_str() >= prefix => format!("{after}\0"),
                _ => prefix.to_string(),
            };
            let request = RangeRequest {
                key: Bytes::from(start),
                range_end: prefix_end(prefix),
                limit: opts
                    .limit
                    .map_or(0, |l| i64::try_from(l).unwrap_or(i64::MAX)),
                revision: opts.revision.map_or(0, signed),
                ..Default::default()
            };
            let answer = match self.range(request).await? {
                Ok(answer) => answer,
                Err(status) => {
                    let current = self.current_revision().await.unwrap_or(0);
                    return Err(etcd_error(&status, opts.revision, current));
                }
            };
            let revision = header_revision(answer.header.as_ref());
            let items = answer
                .kvs
                .into_iter()
                .map(kv_of)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(ListResult {
                remaining: unsigned(answer.count).saturating_sub(items.len() as u64),
                items,
                revision: opts.revision.unwrap_or(revision),
            })
        }
        .boxed()
    }

    fn create<'a>(&'a self, key: &'a str, value: Bytes) -> StoreFuture<'a, KeyValue> {
        async move {
            let k = key_bytes(key);
            let put = PutRequest {
                key: k.clone(),
                value: value.clone(),
                ..Default::default()
            };
            let cmp = compare(
                &k,
                CompareTarget::Create,
                CompareResult::Equal,
                TargetUnion::CreateRevision(0),
            );
            let txn = self.txn(&k, cmp, Request::RequestPut(put)).await?;
            if !txn.succeeded {
                return Err(StoreError::AlreadyExists { key: key.into() });
            }
            let revision = header_revision(txn.header.as_ref());
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
        async move {
            let k = key_bytes(key);
            let put = PutRequest {
                key: k.clone(),
                value: value.clone(),
                prev_kv: true,
                ..Default::default()
            };
            let cmp = compare(
                &k,
                CompareTarget::Mod,
                CompareResult::Equal,
                TargetUnion::ModRevision(signed(expected)),
            );
            let txn = self.txn(&k, cmp, Request::RequestPut(put)).await?;
            if !txn.succeeded {
                return Err(refused(txn, key, Some(expected)));
            }
            let revision = header_revision(txn.header.as_ref());
            let create = first_response(txn)
                .and_then(|r| match r {
                    Response::ResponsePut(put) => put.prev_kv,
                    _ => None,
                })
                .map_or(revision, |prev| unsigned(prev.create_revision));
            Ok(KeyValue {
                key: key.into(),
                value,
                create_revision: create,
                mod_revision: revision,
            })
        }
        .boxed()
    }

    fn delete<'a>(&'a self, key: &'a str, expected: Option<Revision>) -> StoreFuture<'a, KeyValue> {
        async move {
            let k = key_bytes(key);
            // Without an expected revision: "exists" (create_revision > 0) is the condition.
            let cmp = match expected {
                Some(rev) => compare(
                    &k,
                    CompareTarget::Mod,
                    CompareResult::Equal,
                    TargetUnion::ModRevision(signed(rev)),
                ),
                None => compare(
                    &k,
                    CompareTarget::Create,
                    CompareResult::Greater,
                    TargetUnion::CreateRevision(0),
                ),
            };
            let delete = DeleteRangeRequest {
                key: k.clone(),
                prev_kv: true,
                ..Default::default()
            };
            let txn = self
                .txn(&k, cmp, Request::RequestDeleteRange(delete))
                .await?;
            if !txn.succeeded {
                return Err(refused(txn, key, expected));
            }
            let revision = header_revision(txn.header.as_ref());
            let prev = first_response(txn)
                .and_then(|r| match r {
                    Response::ResponseDeleteRange(d) => d.prev_kvs.into_iter().next(),
                    _ => None,
                })
                .ok_or_else(|| StoreError::NotFound { key: key.into() })?;
            let mut kv = kv_of(prev)?;
            kv.mod_revision = revision;
            Ok(kv)
        }
        .boxed()
    }

    fn watch<'a>(&'a self, prefix: &'a str, after: Revision) -> StoreFuture<'a, WatchStream> {
        watch::open(&self.members, prefix, after).boxed()
    }

    fn current_revision(&self) -> StoreFuture<'_, Revision> {
        async move {
            let request = RangeRequest {
                key: Bytes::from_static(&[0]),
                limit: 1,
                count_only: true,
                ..Default::default()
            };
            let answer = self
                .range(request)
                .await?
                .map_err(|status| etcd_error(&status, None, 0))?;
            Ok(header_revision(answer.header.as_ref()))
        }
        .boxed()
    }

    fn compact(&self, revision: Revision) -> StoreFuture<'_, ()> {
        async move {
            // Idempotent: sent again to another member after a lost answer, it either
            // compacts or finds the revision compacted already; so it goes as a read.
            let request = CompactionRequest {
                revision: signed(revision),
                physical: false,
            };
            let answer = self
                .members
                .call(Kind::Read, |ch| async move {
                    Self::kv(ch).compact(request).await
                })
                .await?;
            let Err(status) = answer else {
                return Ok(());
            };
            match etcd_error(&status, Some(revision), 0) {
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
        format!("etcd {}", self.members.endpoints().join(","))
    }
}
