//! `Store.Update` through `GuaranteedUpdate`: read, mutate, compare-and-swap, and
//! again when another writer got there first.

use serde_json::{Value, json};

use crd_runtime::admission::Operation;

use crate::api::kinds::{Allocation, Context, Subresource, unknown_fields};
use crate::api::object::{meta_mut, str_at};
use crate::api::request::WriteOptions;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage::{self, Current, Target, UPDATE_ATTEMPTS, WriteError};
use crate::api::{admission, ssa};

use super::{Tracking, Written, check_body, mutated};

/// What admission sees of an update.
fn update_request<'a>(u: &'a Update<'a>) -> admission::Request<'a> {
    admission::Request {
        res: u.target.res,
        operation: Operation::Update,
        sub: u.sub,
        ns: u.target.ns,
        name: u.target.name,
        dry_run: u.opts.dry_run,
        field_manager: u.opts.field_manager.as_deref(),
        delete_options: None,
    }
}

/// What an update request changes, through which endpoint and by whom.
pub struct Update<'a> {
    pub shared: &'a Shared,
    pub target: Target<'a>,
    pub sub: Subresource,
    pub opts: &'a WriteOptions,
    pub tracking: Tracking<'a>,
}

/// Copies what a client cannot change from `old` into `new`.
fn keep_identity(new: &mut Value, old: &Value) {
    let meta = meta_mut(new);
    for k in [
        "uid",
        "creationTimestamp",
        "generation",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        match old.pointer(&format!("/metadata/{k}")) {
            Some(v) => meta.insert(k.into(), v.clone()),
            None => meta.remove(k),
        };
    }
}

/// `GuaranteedUpdate`: reads the object, asks `mutate` for the new one, and writes it
/// if nothing else has been written since; otherwise reads again and retries (a
/// `resourceVersion` in the new object is a precondition, so a stale one is a 409).
///
/// `first` is the object when the caller has just read it (saving a read).
pub async fn guaranteed_update(
    u: &Update<'_>,
    mut first: Option<Current>,
    mut mutate: impl FnMut(&Current) -> Result<Value, ApiError>,
) -> Result<Written, ApiError> {
    for _ in 0..UPDATE_ATTEMPTS {
        let current = match first.take() {
            Some(c) => c,
            None => storage::get(u.shared, u.target).await?,
        };
        let new = mutate(&current)?;
        match update_once(u, new, current).await {
            Err(WriteError::Raced(_)) => continue,
            Err(WriteError::Failed(e)) => return Err(e),
            Ok(written) => return Ok(written),
        }
    }
    Err(ApiError::conflict(&u.target.res.info().q, u.target.name))
}

/// The precondition of an update: its `resourceVersion` matches the object's, or is
/// absent where the kind allows unconditional updates.
fn check_version(u: &Update<'_>, new: &Value, current: &Current) -> Result<(), ApiError> {
    let info = u.target.res.info();
    let name = u.target.name;
    let rv = str_at(new, "/metadata/resourceVersion");
    if rv.is_empty() {
        if u.target.res.allow_unconditional_update() {
            return Ok(());
        }
        // The server names the resource here, and Go prints the uint64 zero with %#v.
        let detail = "Invalid value: 0x0: must be specified for an update";
        let mut e = ApiError::invalid(&info.q, name, &crd_runtime::ErrorList::new());
        e.message = format!(
            "{} \"{name}\" is invalid: metadata.resourceVersion: {detail}",
            info.q.resource()
        );
        e.details = Some(
            json!({"name": name, "group": info.q.group, "kind": info.q.plural, "causes": [
            {"reason": "FieldValueInvalid", "message": detail, "field": "metadata.resourceVersion"}]}),
        );
        return Err(e);
    }
    match rv.parse::<u64>() {
        Ok(v) if v == current.revision => Ok(()),
        Ok(_) => Err(ApiError::conflict(&info.q, name)),
        Err(_) => Err(ApiError::bad_request(format!(
            "invalid resource version: \"{rv}\""
        ))),
    }
}

async fn update_once(
    u: &Update<'_>,
    mut new: Value,
    current: Current,
) -> Result<Written, WriteError> {
    let res = u.target.res;
    let info = res.info();
    check_body(res, &mut new, u.target.ns, Some(u.target.name))?;
    check_version(u, &new, &current)?;
    let old = current.obj;
    let warnings = unknown_fields(info, res.decode(&mut new)?, u.opts.validation)?;
    keep_identity(&mut new, &old);
    meta_mut(&mut new).insert(
        "resourceVersion".into(),
        json!(current.revision.to_string()),
    );
    if let Tracking::Update(manager) = u.tracking {
        let api_version = info.api_version();
        let writer = ssa::Writer {
            manager,
            api_version: &api_version,
            subresource: u.sub.name(),
        };
        ssa::track_update(
            Some(&old),
            &mut new,
            res.schema(),
            &writer,
            res.reset_fields(u.sub),
        );
    }
    let mut warnings = warnings;
    if !u.shared.admission.is_idle() {
        let attrs_of = update_request(u);
        let mut attrs = attrs_of.attributes(Some(new.clone()), Some(old.clone()));
        let more = u
            .shared
            .admission
            .mutate(&u.shared.backend(res), &mut attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
        new = mutated(res, new, attrs.object)?;
    }
    if u.sub == Subresource::Main {
        super::escalation::check(res, u.target.ns, u.target.name, &new, Some(&old)).await?;
    }
    res.prepare_for_update(&mut new, &old, u.sub);
    let cx = Context {
        old: Some(&old),
        dry_run: u.opts.dry_run,
        ..Context::new(u.shared.store.as_ref())
    };
    let allocation = if u.sub == Subresource::Main {
        res.allocate(&cx, &mut new).await?
    } else {
        Allocation::default()
    };
    // Stored in another version than the kind's storage version: written even when
    // nothing changed (storage version migration's no-op apply).
    let restore = current.stored_elsewhere;
    let written = admit_and_replace(u, new, old, (current.revision, restore), warnings).await;
    allocation
        .finish(u.shared.store.as_ref(), written.is_ok())
        .await;
    written
}

/// The rest of an update once the object holds what it allocated: validated, then
/// written if it changed or `restore` (stored in an old version; removed when its last
/// finalizer went).
async fn admit_and_replace(
    u: &Update<'_>,
    mut new: Value,
    old: Value,
    (revision, restore): (crate::store::Revision, bool),
    mut warnings: Vec<String>,
) -> Result<Written, WriteError> {
    let res = u.target.res;
    let cx = Context {
        old: Some(&old),
        sub: u.sub,
        ..Context::new(u.shared.store.as_ref())
    };
    warnings.extend(res.validate(&cx, &mut new).await?);
    res.canonicalize(&mut new);
    if !u.shared.admission.is_idle() {
        let attrs = update_request(u).attributes(Some(new.clone()), Some(old.clone()));
        let more = u
            .shared
            .admission
            .validate(&u.shared.backend(res), &attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
    }
    if (new == old && !restore) || u.opts.dry_run {
        return Ok(Written {
            obj: new,
            warnings,
            json: None,
        });
    }
    if res.finalized(&new) {
        // The last finalizer is gone: the object goes with this write.
        let obj = storage::remove(u.shared, u.target, new, revision).await?;
        res.release(&cx, &obj).await;
        return Ok(Written {
            obj,
            warnings,
            json: None,
        });
    }
    let saved = storage::update(u.shared, u.target, new, revision).await?;
    Ok(Written {
        obj: saved.obj,
        warnings,
        json: saved.json,
    })
}

/// The storage layer's `GuaranteedUpdate` with a simple update function: reads the
/// object, lets `mutate` change it, and compares-and-swaps, reading again when another
/// writer got there first. No admission and no validation: what the subresources that
/// are actions write (a Pod's `binding`). Under `dry_run` nothing is written.
pub async fn storage_update(
    shared: &Shared,
    t: Target<'_>,
    dry_run: bool,
    mut mutate: impl FnMut(&mut Value) -> Result<(), ApiError>,
) -> Result<Value, ApiError> {
    for _ in 0..UPDATE_ATTEMPTS {
        let current = storage::get(shared, t).await?;
        let mut obj = current.obj;
        mutate(&mut obj)?;
        if dry_run {
            return Ok(obj);
        }
        match storage::update(shared, t, obj, current.revision).await {
            Ok(saved) => return Ok(saved.obj),
            Err(WriteError::Raced(_)) => continue,
            Err(WriteError::Failed(e)) => return Err(e),
        }
    }
    Err(ApiError::conflict(&t.res.info().q, t.name))
}
