//! The generic storage of every kind, as kube-apiserver's generic registry store over
//! `storage.Interface`: objects read through the kind's codec (stored version →
//! addressed version), written in their stored form, and [`guaranteed_update`]: read,
//! mutate, compare-and-swap, and again on a concurrent write.

use bytes::Bytes;
use serde_json::Value;

use crate::api::kinds::Resource;
use crate::api::object::{encode, set_resource_version};
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::store::{KeyValue, Revision, StoreError};

/// Attempts of an update that races with other writers before it gives up with 409.
pub const UPDATE_ATTEMPTS: usize = 8;

/// One object of a kind: where it is stored and how errors name it.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    pub res: &'a Resource,
    pub ns: Option<&'a str>,
    pub name: &'a str,
}

impl Target<'_> {
    /// The object's storage key.
    pub fn key(&self) -> String {
        self.res.info().key(self.ns, self.name)
    }

    /// A store failure in the API's words for this object.
    pub fn error(&self, e: StoreError) -> ApiError {
        ApiError::from_store(&self.res.info().q, self.name, e)
    }
}

/// An object as the addressed version shows it, with the revision it was read at.
pub struct Current {
    pub obj: Value,
    pub revision: Revision,
    /// Stored in another version than the kind's storage version (`obj` is in the
    /// addressed version).
    pub stored_elsewhere: bool,
}

/// Why a write did not happen.
pub enum WriteError {
    /// Another writer got there first (the key moved, or was created): read and retry,
    /// or answer this error.
    Raced(ApiError),
    /// Anything else.
    Failed(ApiError),
}

impl From<ApiError> for WriteError {
    fn from(e: ApiError) -> WriteError {
        WriteError::Failed(e)
    }
}

impl WriteError {
    /// The error to answer.
    pub fn into_api(self) -> ApiError {
        match self {
            WriteError::Raced(e) | WriteError::Failed(e) => e,
        }
    }
}

pub use crate::api::stored::{decode, present};

async fn present_one(res: &Resource, obj: Value) -> Result<Value, ApiError> {
    res.read_stored(vec![obj])
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal("the conversion returned no object"))
}

/// An object as answered after a write, with its JSON when the kind keeps answers
/// ([`crate::api::read_cache`]): the bytes sent are the bytes kept.
pub struct Answer {
    pub obj: Value,
    pub json: Option<Bytes>,
}

/// The JSON of an object at `revision` (in a kind that keeps answers, kept too).
fn keep(t: Target<'_>, obj: &Value, revision: Revision) -> Option<Bytes> {
    let cache = t.res.read_cache()?;
    let json = Bytes::from(serde_json::to_vec(obj).ok()?);
    cache.put(&t.key(), revision, json.clone());
    Some(json)
}

/// GET of one object as JSON: the kept answer while the object is at its revision.
pub async fn get_json(shared: &Shared, t: Target<'_>) -> Result<Bytes, ApiError> {
    let key = t.key();
    let kv = shared
        .store
        .get(&key)
        .await
        .map_err(|e| t.error(e))?
        .ok_or_else(|| ApiError::not_found(&t.res.info().q, t.name))?;
    if let Some(json) = t
        .res
        .read_cache()
        .and_then(|c| c.get(&key, kv.mod_revision))
    {
        return Ok(json);
    }
    let obj = present_one(t.res, decode(&kv)?).await?;
    match keep(t, &obj, kv.mod_revision) {
        Some(json) => Ok(json),
        None => serde_json::to_vec(&obj)
            .map(Bytes::from)
            .map_err(|e| ApiError::internal(format!("encoding {key}: {e}"))),
    }
}

/// GET of one object.
pub async fn get(shared: &Shared, t: Target<'_>) -> Result<Current, ApiError> {
    find(shared, t)
        .await?
        .ok_or_else(|| ApiError::not_found(&t.res.info().q, t.name))
}

/// One object, if it exists.
pub async fn find(shared: &Shared, t: Target<'_>) -> Result<Option<Current>, ApiError> {
    let Some(kv) = shared.store.get(&t.key()).await.map_err(|e| t.error(e))? else {
        return Ok(None);
    };
    let stored = decode(&kv)?;
    let stored_elsewhere = t.res.stored_in_other_version(
        stored
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default(),
    );
    Ok(Some(Current {
        obj: present_one(t.res, stored).await?,
        revision: kv.mod_revision,
        stored_elsewhere,
    }))
}

/// The bytes `obj` is stored as, and the answer to send: `obj` itself when it is stored
/// in the addressed version, else what reading the stored form back gives.
async fn stored_form(
    res: &Resource,
    obj: Value,
) -> Result<(Bytes, Option<Value>, Value), ApiError> {
    match res.storage_form(&obj).await? {
        None => Ok((encode(&obj), None, obj)),
        Some(stored) => Ok((encode(&stored), Some(stored), obj)),
    }
}

/// The answer after a write at `revision`.
async fn answer(
    t: Target<'_>,
    stored: Option<Value>,
    mut obj: Value,
    revision: Revision,
) -> Result<Answer, ApiError> {
    if let Some(mut stored) = stored {
        set_resource_version(&mut stored, revision);
        obj = present_one(t.res, stored).await?;
    }
    set_resource_version(&mut obj, revision);
    let json = keep(t, &obj, revision);
    Ok(Answer { obj, json })
}

/// Creates an admitted object; the answer is the object as stored.
pub async fn create(shared: &Shared, t: Target<'_>, obj: Value) -> Result<Answer, WriteError> {
    let (bytes, stored, obj) = stored_form(t.res, obj).await?;
    let written = shared.store.create(&t.key(), bytes).await;
    stored_answer(shared, t, stored, obj, written).await
}

/// Replaces an object if it is still at `expected`.
pub async fn update(
    shared: &Shared,
    t: Target<'_>,
    obj: Value,
    expected: Revision,
) -> Result<Answer, WriteError> {
    let (bytes, stored, obj) = stored_form(t.res, obj).await?;
    let written = shared.store.update(&t.key(), bytes, expected).await;
    stored_answer(shared, t, stored, obj, written).await
}

/// What a create or an update answers once the store took it (or refused it).
async fn stored_answer(
    shared: &Shared,
    t: Target<'_>,
    stored: Option<Value>,
    obj: Value,
    written: Result<KeyValue, StoreError>,
) -> Result<Answer, WriteError> {
    let kv = written.map_err(|e| write_error(t, e))?;
    after_write(shared, t.res, kv.mod_revision).await;
    Ok(answer(t, stored, obj, kv.mod_revision).await?)
}

/// Removes an object if it is still at `expected`; the answer is `obj` at the
/// deletion's revision.
pub async fn remove(
    shared: &Shared,
    t: Target<'_>,
    mut obj: Value,
    expected: Revision,
) -> Result<Value, WriteError> {
    let gone = shared
        .store
        .delete(&t.key(), Some(expected))
        .await
        .map_err(|e| write_error(t, e))?;
    after_write(shared, t.res, gone.mod_revision).await;
    if let Some(cache) = t.res.read_cache() {
        cache.remove(&t.key());
    }
    set_resource_version(&mut obj, gone.mod_revision);
    Ok(obj)
}

/// Compare-and-swap failures and create races are retried; the rest is final.
fn write_error(t: Target<'_>, e: StoreError) -> WriteError {
    match e {
        StoreError::Conflict { .. } | StoreError::AlreadyExists { .. } => {
            WriteError::Raced(t.error(e))
        }
        e => WriteError::Failed(t.error(e)),
    }
}

/// A write to a kind that defines kinds returns once the registry serves the result;
/// one to an APIService once the aggregator routes by it.
async fn after_write(shared: &Shared, res: &Resource, revision: Revision) {
    if res.defines_kinds() {
        shared.registry.caught_up(revision).await;
    } else if res.info().q.group == crate::api::aggregator::GROUP {
        shared.aggregator.caught_up(revision).await;
    }
}
