//! The write path every verb shares, as kube-apiserver's generic `Store.Create` and
//! `Store.Update`: the body checked against the URL, decoded by the kind's strategy
//! (unknown fields, defaults), prepared, validated, canonicalized, its managers
//! recorded, then written — updates through [`guaranteed_update`], which reads,
//! mutates and compares-and-swaps, and tries again when another writer got there first.

use serde_json::{Value, json};

use crd_runtime::admission::Operation;

use crate::api::admission;
use crate::api::kinds::{Allocation, Context, Resource, Subresource, unknown_fields};
use crate::api::object::{meta_mut, name_of, now, random_suffix, str_at};
use crate::api::request::WriteOptions;
use crate::api::ssa;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage::{self, Current, Target, UPDATE_ATTEMPTS, WriteError};

/// A write's result: the object as answered, and the warnings to send.
pub struct Written {
    pub obj: Value,
    pub warnings: Vec<String>,
    /// The object's JSON, when the kind keeps answers (sent as it is).
    pub json: Option<bytes::Bytes>,
}

/// How a write is recorded in `metadata.managedFields`.
#[derive(Clone, Copy)]
pub enum Tracking<'a> {
    /// As an `Update` by this manager (creates, updates, patches).
    Update(&'a str),
    /// Already recorded (server-side apply computed the entries).
    Recorded,
}

/// Checks the body's type meta against the URL and sets the URL's namespace.
pub fn check_body(
    res: &Resource,
    obj: &mut Value,
    ns: Option<&str>,
    url_name: Option<&str>,
) -> Result<(), ApiError> {
    let info = res.info();
    let cannot = |what: &str| {
        ApiError::bad_request(format!(
            "{kind} in version \"{v}\" cannot be handled as a {kind}: {what}",
            kind = info.q.kind,
            v = info.version
        ))
    };
    let Value::Object(map) = obj else {
        return Err(cannot("the body must be a JSON object"));
    };
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() {
        return Err(ApiError::bad_request(
            "Object 'Kind' is missing in the request body",
        ));
    }
    let expected = info.api_version();
    if api_version != expected {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({expected})"
        )));
    }
    if kind != info.q.kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind ({})",
            info.q.kind
        )));
    }
    let Value::Object(meta) = map.entry("metadata").or_insert_with(|| json!({})) else {
        return Err(cannot("metadata must be an object"));
    };
    if info.namespaced {
        let body_ns = meta.get("namespace").and_then(Value::as_str).unwrap_or("");
        let ns = ns.unwrap_or("");
        if !body_ns.is_empty() && body_ns != ns {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        meta.insert("namespace".into(), json!(ns));
    } else {
        meta.remove("namespace");
    }
    if let Some(url_name) = url_name {
        let body_name = meta.get("name").and_then(Value::as_str).unwrap_or("");
        if body_name != url_name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({url_name})"
            )));
        }
    }
    Ok(())
}

/// The NamespaceLifecycle admission of a create: the namespace of a namespaced object
/// must exist (404 for the namespace otherwise) and not be terminating (403). The
/// registry follows the namespaces, so only one it has not seen yet costs a read.
async fn admit_namespace(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    obj: &Value,
) -> Result<(), ApiError> {
    let (true, Some(ns)) = (res.info().namespaced, ns) else {
        return Ok(());
    };
    let terminating = match shared.registry.namespace_terminating(ns) {
        Some(t) => t,
        None => {
            let namespaces = crate::api::kinds::namespace::info();
            match shared.store.get(&namespaces.key(None, ns)).await {
                Ok(Some(kv)) => str_at(&storage::decode(&kv)?, "/status/phase") == "Terminating",
                Ok(None) => return Err(ApiError::not_found(&namespaces.q, ns)),
                Err(e) => return Err(ApiError::from_store(&namespaces.q, ns, e)),
            }
        }
    };
    if !terminating {
        return Ok(());
    }
    // Admission runs before a generated name is chosen: the error names the prefix.
    let name = [
        str_at(obj, "/metadata/name"),
        str_at(obj, "/metadata/generateName"),
    ]
    .into_iter()
    .find(|n| !n.is_empty())
    .unwrap_or("Unknown");
    let mut e = ApiError::forbidden(
        &res.info().q,
        name,
        &format!("unable to create new content in namespace {ns} because it is being terminated"),
    );
    if let Some(details) = e.details.as_mut() {
        details["causes"] = json!([{
            "reason": "NamespaceTerminating",
            "message": format!("namespace {ns} is being terminated"),
            "field": "metadata.namespace",
        }]);
    }
    Err(e)
}

/// Sets what the server owns on a new object: name from `generateName`, uid, creation
/// timestamp; a client's deletion fields are dropped.
fn stamp_create(obj: &mut Value) -> Result<(), ApiError> {
    let meta = meta_mut(obj);
    if meta
        .get("resourceVersion")
        .and_then(Value::as_str)
        .is_some_and(|rv| !rv.is_empty())
    {
        return Err(ApiError::internal(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    let has_name = meta
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let generate = meta
        .get("generateName")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if !has_name && !generate.is_empty() {
        meta.insert(
            "name".into(),
            json!(format!("{generate}{}", random_suffix())),
        );
    }
    meta.insert("uid".into(), json!(uuid::Uuid::new_v4().to_string()));
    meta.insert("creationTimestamp".into(), json!(now()));
    for k in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "selfLink",
    ] {
        meta.remove(k);
    }
    Ok(())
}

/// Creates `obj` (a body already checked against the URL by [`check_body`]).
pub async fn create(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    mut obj: Value,
    opts: &WriteOptions,
    tracking: Tracking<'_>,
) -> Result<Written, WriteError> {
    let info = res.info();
    let mut warnings = unknown_fields(info, res.decode(&mut obj)?, opts.validation)?;
    res.check_create(&obj)?;
    admit_namespace(shared, res, ns, &obj).await?;
    let admission = (!shared.admission.is_idle()).then(|| admission::Request {
        res,
        operation: Operation::Create,
        sub: Subresource::Main,
        ns,
        name: name_of(&obj),
        dry_run: opts.dry_run,
        field_manager: opts.field_manager.as_deref(),
        delete_options: None,
    });
    if let Some(request) = &admission {
        let mut attrs = request.attributes(Some(obj.clone()), None);
        let more = shared
            .admission
            .mutate(&shared.backend(), res, &mut attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
        obj = mutated(res, obj, attrs.object)?;
    }
    stamp_create(&mut obj)?;
    res.prepare_for_create(&mut obj);
    let cx = Context {
        store: shared.store.as_ref(),
    };
    let allocation = res.allocate(&cx, &mut obj, None, opts.dry_run).await?;
    let written = admit_and_store(shared, res, ns, obj, opts, tracking, warnings).await;
    allocation
        .finish(shared.store.as_ref(), written.is_ok())
        .await;
    written
}

/// The rest of a create once the object holds what it allocated: validated, its
/// managers recorded, stored.
async fn admit_and_store(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    mut obj: Value,
    opts: &WriteOptions,
    tracking: Tracking<'_>,
    mut warnings: Vec<String>,
) -> Result<Written, WriteError> {
    let info = res.info();
    let cx = Context {
        store: shared.store.as_ref(),
    };
    warnings.extend(res.validate(&cx, &mut obj, None, Subresource::Main).await?);
    res.canonicalize(&mut obj);
    if !shared.admission.is_idle() {
        let request = admission::Request {
            res,
            operation: Operation::Create,
            sub: Subresource::Main,
            ns,
            name: name_of(&obj),
            dry_run: opts.dry_run,
            field_manager: opts.field_manager.as_deref(),
            delete_options: None,
        };
        let attrs = request.attributes(Some(obj.clone()), None);
        let more = shared
            .admission
            .validate(&shared.backend(), res, &attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
    }
    if let Tracking::Update(manager) = tracking {
        let api_version = info.api_version();
        let writer = ssa::Writer {
            manager,
            api_version: &api_version,
            subresource: None,
        };
        ssa::track_update(
            None,
            &mut obj,
            res.schema(),
            &writer,
            res.reset_fields(Subresource::Main),
        );
    }
    if opts.dry_run {
        return Ok(Written {
            obj,
            warnings,
            json: None,
        });
    }
    let name = name_of(&obj).to_string();
    let target = Target {
        res,
        ns,
        name: &name,
    };
    let saved = storage::create(shared, target, obj).await?;
    Ok(Written {
        obj: saved.obj,
        warnings,
        json: saved.json,
    })
}

/// The object as the mutating phase left it: decoded again (pruned, defaulted) when a
/// plugin changed it, as the API server decodes a webhook's patched object.
fn mutated(res: &Resource, before: Value, after: Option<Value>) -> Result<Value, WriteError> {
    match after {
        Some(mut after) if after != before => {
            res.decode(&mut after)?;
            Ok(after)
        }
        _ => Ok(before),
    }
}

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
            .mutate(&u.shared.backend(), res, &mut attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
        new = mutated(res, new, attrs.object)?;
    }
    res.prepare_for_update(&mut new, &old, u.sub);
    let cx = Context {
        store: u.shared.store.as_ref(),
    };
    let allocation = if u.sub == Subresource::Main {
        res.allocate(&cx, &mut new, Some(&old), u.opts.dry_run)
            .await?
    } else {
        Allocation::default()
    };
    let written = admit_and_replace(u, new, old, current.revision, warnings).await;
    allocation
        .finish(u.shared.store.as_ref(), written.is_ok())
        .await;
    written
}

/// The rest of an update once the object holds what it allocated: validated, then
/// written if it changed (removed when its last finalizer went).
async fn admit_and_replace(
    u: &Update<'_>,
    mut new: Value,
    old: Value,
    revision: crate::store::Revision,
    mut warnings: Vec<String>,
) -> Result<Written, WriteError> {
    let res = u.target.res;
    let cx = Context {
        store: u.shared.store.as_ref(),
    };
    warnings.extend(res.validate(&cx, &mut new, Some(&old), u.sub).await?);
    res.canonicalize(&mut new);
    if !u.shared.admission.is_idle() {
        let attrs = update_request(u).attributes(Some(new.clone()), Some(old.clone()));
        let more = u
            .shared
            .admission
            .validate(&u.shared.backend(), res, &attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
    }
    if new == old || u.opts.dry_run {
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
