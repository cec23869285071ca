//! `Store.Create`: a new object named, stamped, admitted, validated and stored.

use serde_json::{Value, json};

use crd_runtime::admission::Operation;

use crate::api::kinds::{Context, Resource, Subresource, unknown_fields};
use crate::api::object::{meta_mut, name_of, now, random_suffix};
use crate::api::request::WriteOptions;
use crate::api::state::Shared;
use crate::api::status::ApiError;
use crate::api::storage::{self, Target, WriteError};
use crate::api::{admission, ssa};

use super::{Tracking, Written, admit_namespace, mutated};

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

/// Where a create writes and how: what each of its steps reads.
#[derive(Clone, Copy)]
struct Creating<'a> {
    shared: &'a Shared,
    res: &'a Resource,
    ns: Option<&'a str>,
    opts: &'a WriteOptions,
}

impl Creating<'_> {
    /// What admission sees of a create of `obj`.
    fn request<'b>(&'b self, obj: &'b Value) -> admission::Request<'b> {
        admission::Request {
            res: self.res,
            operation: Operation::Create,
            sub: Subresource::Main,
            ns: self.ns,
            name: name_of(obj),
            dry_run: self.opts.dry_run,
            field_manager: self.opts.field_manager.as_deref(),
            delete_options: None,
        }
    }
}

/// Creates `obj` (a body already checked against the URL by [`super::check_body`]).
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
    let to = Creating {
        shared,
        res,
        ns,
        opts,
    };
    let admission = (!shared.admission.is_idle()).then(|| to.request(&obj));
    if let Some(request) = &admission {
        let mut attrs = request.attributes(Some(obj.clone()), None);
        let more = shared
            .admission
            .mutate(&shared.backend(res), &mut attrs)
            .await
            .map_err(|e| e.after_warnings(&warnings))?;
        warnings.extend(more);
        obj = mutated(res, obj, attrs.object)?;
    }
    super::escalation::check(res, ns, "", &obj, None).await?;
    stamp_create(&mut obj)?;
    res.prepare_for_create(&mut obj);
    let cx = Context {
        dry_run: opts.dry_run,
        ..Context::new(shared.store.as_ref())
    };
    let allocation = res.allocate(&cx, &mut obj).await?;
    let written = admit_and_store(to, obj, tracking, warnings).await;
    allocation
        .finish(shared.store.as_ref(), written.is_ok())
        .await;
    written
}

/// The rest of a create once the object holds what it allocated: validated, its
/// managers recorded, stored.
async fn admit_and_store(
    to: Creating<'_>,
    mut obj: Value,
    tracking: Tracking<'_>,
    mut warnings: Vec<String>,
) -> Result<Written, WriteError> {
    let Creating {
        shared,
        res,
        ns,
        opts,
    } = to;
    let info = res.info();
    let cx = Context::new(shared.store.as_ref());
    warnings.extend(res.validate(&cx, &mut obj).await?);
    res.canonicalize(&mut obj);
    if !shared.admission.is_idle() {
        let attrs = to.request(&obj).attributes(Some(obj.clone()), None);
        let more = shared
            .admission
            .validate(&shared.backend(res), &attrs)
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
