//! `Store.Delete`: one object's deletion (preconditions, admission, then finalizers:
//! the object is marked with a `deletionTimestamp` and kept while they remain, removed
//! otherwise), retried when another writer changes it meanwhile. The DELETE verbs and
//! the controllers (garbage collector, namespace and CRD cleanup) delete through it.

use serde_json::{Value, json};

use crd_runtime::admission::Operation;

use crate::api::admission;
use crate::api::kinds::{Context, GcPolicy, Resource, Subresource};
use crate::api::object::{
    grace_period_of, has_finalizers, is_deleting, list_at, meta_mut, name_of, now, str_at,
};
use crate::api::request::{DeleteOptions, Propagation};
use crate::api::state::Shared;
use crate::api::status::{self, ApiError, Qualified};
use crate::api::storage::{self, Target, UPDATE_ATTEMPTS, WriteError};

/// What a delete did.
pub struct Deleted {
    /// The object, marked and waiting on its finalizers; or, when `removed`, what the
    /// kind answers for a removed object (the object, or a `Status` with `status:
    /// Success` for most kinds).
    pub body: Value,
    /// The object is gone.
    pub removed: bool,
    /// Warnings of admission.
    pub warnings: Vec<String>,
}

impl Deleted {
    fn waiting(obj: Value) -> Deleted {
        Deleted {
            body: obj,
            removed: false,
            warnings: Vec::new(),
        }
    }

    fn removed(res: &Resource, obj: Value) -> Deleted {
        let q = res.info().q.clone();
        let name = name_of(&obj).to_string();
        let uid = str_at(&obj, "/metadata/uid").to_string();
        let body = res
            .deleted_answer(obj)
            .unwrap_or_else(|| status::success(&q, &name, &uid));
        Deleted {
            body,
            removed: true,
            warnings: Vec::new(),
        }
    }
}

/// The preconditions of a delete, checked against the current object. The first
/// check is `rest.BeforeDelete`'s (the resource named by its kind); after a race the
/// storage layer's, as kube-apiserver's store reports it.
fn check_preconditions(
    t: Target<'_>,
    options: &DeleteOptions,
    current: &storage::Current,
    first: bool,
) -> Result<(), ApiError> {
    let q = &t.res.info().q;
    let by_kind = Qualified {
        plural: q.kind.clone(),
        ..q.clone()
    };
    let fail = |field: &str, wanted: &str, actual: &str| {
        if first {
            let (what, why) = match field {
                "UID" => ("UID", "deleted and then recreated"),
                _ => ("ResourceVersion", "modified"),
            };
            ApiError::conflict_because(
                &by_kind,
                t.name,
                &format!(
                    "the {what} in the precondition ({wanted}) does not match the {what} in record ({actual}). The object might have been {why}"
                ),
            )
        } else {
            ApiError::conflict_because(
                q,
                t.name,
                &format!(
                    "StorageError: invalid object, Code: 4, Key: {}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {field} in precondition: {wanted}, {field} in object meta: {actual}",
                    t.key()
                ),
            )
        }
    };
    if let Some(uid) = &options.precondition_uid {
        let actual = str_at(&current.obj, "/metadata/uid");
        if uid != actual {
            return Err(fail("UID", uid, actual));
        }
    }
    if let Some(rv) = &options.precondition_resource_version
        && *rv != current.revision.to_string()
    {
        return Err(fail("ResourceVersion", rv, &current.revision.to_string()));
    }
    Ok(())
}

/// The finalizer that asks the garbage collector to orphan the dependents first.
pub const ORPHAN_FINALIZER: &str = "orphan";
/// The finalizer that asks the garbage collector to delete the dependents first.
pub const FOREGROUND_FINALIZER: &str = "foregroundDeletion";

/// Whether the delete orphans the dependents: the options, then the object's
/// finalizers, then the kind's default policy decide (`shouldOrphanDependents`).
fn orphans(res: &Resource, finalizers: &[Value], options: &DeleteOptions) -> bool {
    if let Some(orphan) = options.orphan_dependents {
        return orphan;
    }
    if let Some(p) = options.propagation {
        return p == Propagation::Orphan;
    }
    for f in finalizers {
        if f == ORPHAN_FINALIZER {
            return true;
        }
        if f == FOREGROUND_FINALIZER {
            return false;
        }
    }
    res.default_gc_policy() == GcPolicy::OrphanDependents
}

/// Whether the delete waits for the dependents (`shouldDeleteDependentsInForeground`):
/// the options, then the first of the object's GC finalizers.
fn foreground(finalizers: &[Value], options: &DeleteOptions) -> bool {
    if options.orphan_dependents.is_some() {
        return false;
    }
    if let Some(p) = options.propagation {
        return p == Propagation::Foreground;
    }
    finalizers
        .iter()
        .find(|f| *f == ORPHAN_FINALIZER || *f == FOREGROUND_FINALIZER)
        .is_some_and(|f| f == FOREGROUND_FINALIZER)
}

/// The object's finalizers with the garbage collector's set as the delete asks
/// (`deletionFinalizersForGarbageCollection`); `None` when they do not change.
pub fn gc_finalizers(res: &Resource, obj: &Value, options: &DeleteOptions) -> Option<Vec<Value>> {
    let current = list_at(obj, "/metadata/finalizers");
    let mut next: Vec<Value> = current
        .iter()
        .filter(|f| *f != ORPHAN_FINALIZER && *f != FOREGROUND_FINALIZER)
        .cloned()
        .collect();
    if orphans(res, &current, options) {
        next.push(json!(ORPHAN_FINALIZER));
    }
    if foreground(&current, options) {
        next.push(json!(FOREGROUND_FINALIZER));
    }
    let set = |l: &[Value]| -> std::collections::BTreeSet<String> {
        l.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    (set(&current) != set(&next)).then_some(next)
}

/// Deletes one object, retrying when another writer changes it meanwhile: it goes at
/// once, or — when it has finalizers, the delete adds the garbage collector's, or its
/// kind begins a deletion of its own — it is marked with a `deletionTimestamp` and
/// waits.
pub async fn delete(
    shared: &Shared,
    t: Target<'_>,
    options: &DeleteOptions,
) -> Result<Deleted, ApiError> {
    t.res.check_delete(t.name)?;
    for attempt in 0..UPDATE_ATTEMPTS {
        let current = storage::get(shared, t).await?;
        check_preconditions(t, options, &current, attempt == 0)?;
        let warnings = admit_delete(shared, t, options, &current.obj).await?;
        let mut marked = current.obj.clone();
        let grace = before_delete(t.res, &mut marked, options.grace_period_seconds);
        if grace == Grace::Pending {
            // A graceful deletion is under way and this one does not shorten it.
            let mut waiting = Deleted::waiting(current.obj);
            waiting.warnings = warnings;
            return Ok(waiting);
        }
        let changed_finalizers = if t.res.gc_finalizers_on_delete(&marked) {
            gc_finalizers(t.res, &marked, options)
        } else {
            None
        };
        if let Some(f) = &changed_finalizers {
            meta_mut(&mut marked).insert("finalizers".into(), Value::Array(f.clone()));
        }
        let was_deleting = is_deleting(&current.obj);
        let began = !was_deleting && t.res.begin_deletion(&mut marked);
        let graceful = grace == Grace::Graceful && grace_period_of(&marked) > 0;
        let written = if graceful {
            if options.dry_run {
                return Ok(Deleted::waiting(marked));
            }
            storage::update(shared, t, marked, current.revision)
                .await
                .map(|saved| Deleted::waiting(saved.obj))
        } else if has_finalizers(&marked) || began || (was_deleting && !t.res.finalized(&marked)) {
            if was_deleting && changed_finalizers.is_none() && grace != Grace::Graceful {
                // Already waiting on its finalizers.
                return Ok(Deleted::waiting(current.obj));
            }
            let meta = meta_mut(&mut marked);
            if !was_deleting {
                // `markAsDeleting`: a kind with generations records the deletion as
                // a new one (kinds that begin a deletion of their own do not).
                if let Some(g) = meta.get("generation").and_then(Value::as_i64)
                    && g > 0
                    && !began
                {
                    meta.insert("generation".into(), json!(g + 1));
                }
                meta.insert("deletionTimestamp".into(), json!(now()));
                // A kind's own deletion (a namespace's, a CRD's) sets no grace period.
                if !began {
                    meta.insert("deletionGracePeriodSeconds".into(), json!(0));
                }
            }
            if options.dry_run {
                return Ok(Deleted::waiting(marked));
            }
            storage::update(shared, t, marked, current.revision)
                .await
                .map(|saved| Deleted::waiting(saved.obj))
        } else {
            if options.dry_run {
                return Ok(Deleted::removed(t.res, current.obj));
            }
            match storage::remove(shared, t, current.obj, current.revision).await {
                Ok(obj) => {
                    let cx = Context::new(shared.store.as_ref());
                    t.res.release(&cx, &obj).await;
                    Ok(Deleted::removed(t.res, obj))
                }
                Err(e) => Err(e),
            }
        };
        match written {
            Err(WriteError::Raced(_)) => continue,
            Err(WriteError::Failed(e)) => return Err(e),
            Ok(mut deleted) => {
                deleted.warnings.extend(warnings);
                return Ok(deleted);
            }
        }
    }
    Err(ApiError::conflict(&t.res.info().q, t.name))
}

/// What `rest.BeforeDelete` decided about a graceful deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grace {
    /// The kind, or this delete, has no grace period: the object goes at once (or
    /// waits on its finalizers).
    Immediate,
    /// The object is marked to go after its grace period (or, shortened to zero, now).
    Graceful,
    /// A graceful deletion is under way and this delete does not shorten it.
    Pending,
}

/// `rest.BeforeDelete`: marks `obj` with the grace period its kind gives it
/// (`deletionTimestamp` that far ahead, `deletionGracePeriodSeconds`), or shortens the
/// grace period of an object already being deleted gracefully.
fn before_delete(res: &Resource, obj: &mut Value, requested: Option<i64>) -> Grace {
    let shift = |stamp: &str, by: i64| {
        chrono::DateTime::parse_from_rfc3339(stamp)
            .map(|t| t.with_timezone(&chrono::Utc))
            .unwrap_or_else(|_| chrono::Utc::now())
            + chrono::TimeDelta::seconds(by)
    };
    let format = |t: chrono::DateTime<chrono::Utc>| {
        json!(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    };
    if is_deleting(obj) {
        let current = grace_period_of(obj);
        if current == 0 {
            return Grace::Immediate;
        }
        return match requested {
            Some(period) if period < current => {
                let period = period.max(0);
                let stamp = shift(str_at(obj, "/metadata/deletionTimestamp"), period - current);
                let meta = meta_mut(obj);
                meta.insert("deletionTimestamp".into(), format(stamp));
                meta.insert("deletionGracePeriodSeconds".into(), json!(period));
                Grace::Graceful
            }
            _ => Grace::Pending,
        };
    }
    match res.grace_period(obj, requested) {
        Some(period) if period > 0 => {
            let stamp = shift(&now(), period);
            let meta = meta_mut(obj);
            meta.insert("deletionTimestamp".into(), format(stamp));
            meta.insert("deletionGracePeriodSeconds".into(), json!(period));
            if let Some(g) = meta.get("generation").and_then(Value::as_i64)
                && g > 0
            {
                meta.insert("generation".into(), json!(g + 1));
            }
            Grace::Graceful
        }
        _ => Grace::Immediate,
    }
}

/// Admission of a DELETE: both phases see the object as it is (`oldObject`) and no
/// new object; they may refuse it.
async fn admit_delete(
    shared: &Shared,
    t: Target<'_>,
    options: &DeleteOptions,
    current: &Value,
) -> Result<Vec<String>, ApiError> {
    if shared.admission.is_idle() {
        return Ok(Vec::new());
    }
    let request = admission::Request {
        res: t.res,
        operation: Operation::Delete,
        sub: Subresource::Main,
        ns: t.ns,
        name: t.name,
        dry_run: options.dry_run,
        field_manager: None,
        delete_options: Some(options.to_json()),
    };
    let mut attrs = request.attributes(None, Some(current.clone()));
    let mut warnings = shared
        .admission
        .mutate(&shared.backend(t.res), &mut attrs)
        .await?;
    warnings.extend(
        shared
            .admission
            .validate(&shared.backend(t.res), &attrs)
            .await?,
    );
    Ok(warnings)
}
