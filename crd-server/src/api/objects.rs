//! The verbs on objects, the same for every family: get, list, create, update (main and
//! status), patch, delete with finalizers and preconditions, deletecollection, scale.

use base64::Engine as _;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::apply;
use super::kinds::{self, Admitted, Endpoint, name_of};
use super::request::{BodyType, FieldValidation, Query};
use super::resource::{Family, Resource};
use super::selectors::{FieldSelector, LabelSelector};
use super::status::ApiError;
use super::{Shared, now};
use crate::store::{KeyValue, ListOptions, Revision, StoreError};

/// Attempts of a patch that races with other writers before it gives up with 409.
const PATCH_RETRIES: usize = 8;

/// An answer with the warnings to send as `Warning` headers.
pub struct Reply {
    pub code: http::StatusCode,
    pub body: Value,
    pub warnings: Vec<String>,
}

impl Reply {
    fn ok(body: Value) -> Reply {
        Reply {
            code: http::StatusCode::OK,
            body,
            warnings: Vec::new(),
        }
    }
}

/// Decodes a stored object as `res` presents it.
pub fn decode(res: &Resource, kv: &KeyValue) -> Result<Value, ApiError> {
    let mut obj: Value = serde_json::from_slice(&kv.value)
        .map_err(|e| ApiError::internal(format!("stored object {} is not JSON: {e}", kv.key)))?;
    res.present(&mut obj, kv.mod_revision);
    Ok(obj)
}

fn encode(obj: &Value) -> Bytes {
    let mut obj = obj.clone();
    if let Some(Value::Object(meta)) = obj.get_mut("metadata") {
        meta.remove("resourceVersion");
        meta.remove("selfLink");
    }
    Bytes::from(serde_json::to_vec(&obj).unwrap_or_default())
}

async fn read(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
) -> Result<(Value, Revision), ApiError> {
    let kv = shared
        .store
        .get(&res.key(ns, name))
        .await
        .map_err(|e| ApiError::from_store(&res.q, name, e))?
        .ok_or_else(|| ApiError::not_found(&res.q, name))?;
    Ok((res.served_one(decode(res, &kv)?).await?, kv.mod_revision))
}

/// GET of one object.
pub async fn get(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
) -> Result<Value, ApiError> {
    Ok(read(shared, res, ns, name).await?.0)
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ContinueToken {
    rv: Revision,
    start: String,
}

/// A list answer: items, revision, continue token and remaining count.
pub struct Listed {
    pub items: Vec<Value>,
    pub revision: Revision,
    pub continue_token: Option<String>,
    pub remaining: Option<u64>,
}

/// The selectors of a list or watch.
pub fn selectors(
    res: &Resource,
    q: &Query,
) -> Result<(Option<LabelSelector>, Option<FieldSelector>), ApiError> {
    let labels = q
        .label_selector
        .as_deref()
        .map(LabelSelector::parse)
        .transpose()?;
    let fields = q
        .field_selector
        .as_deref()
        .map(|s| FieldSelector::parse(s, &res.selectable_fields()))
        .transpose()?;
    Ok((labels, fields))
}

/// Whether `obj` passes both selectors.
pub fn selected(
    obj: &Value,
    labels: &Option<LabelSelector>,
    fields: &Option<FieldSelector>,
) -> bool {
    labels.as_ref().is_none_or(|l| l.matches(obj)) && fields.as_ref().is_none_or(|f| f.matches(obj))
}

/// LIST with selectors and pagination.
pub async fn list(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    q: &Query,
) -> Result<Listed, ApiError> {
    let (labels, fields) = selectors(res, q)?;
    let prefix = res.list_prefix(ns);
    let (mut start_after, mut revision) = (None, None);
    if let Some(token) = &q.continue_token {
        let bad = || {
            ApiError::bad_request(
                "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
            )
        };
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| bad())?;
        let t: ContinueToken = serde_json::from_slice(&raw).map_err(|_| bad())?;
        if !t.start.starts_with(&prefix) {
            return Err(bad());
        }
        start_after = Some(t.start);
        revision = Some(t.rv);
    } else if let (Some(rv), Some("Exact")) =
        (&q.resource_version, q.resource_version_match.as_deref())
    {
        revision = Some(parse_rv(rv)?);
    }
    let filtering = labels.is_some() || fields.is_some();
    let mut items = Vec::new();
    let want = q.limit.unwrap_or(usize::MAX);
    loop {
        let page = shared
            .store
            .list(&prefix, ListOptions { limit: q.limit.map(|l| l.max(1)), start_after: start_after.clone(), revision })
            .await
            .map_err(|e| match e {
                StoreError::Compacted { .. } if q.continue_token.is_some() => ApiError {
                    code: http::StatusCode::GONE,
                    reason: "Expired",
                    message: "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.".into(),
                    details: None,
                },
                e => ApiError::from_store(&res.q, "", e),
            })?;
        revision = Some(page.revision);
        let last_key = page.items.last().map(|kv| kv.key.clone());
        let mut remaining_in_page = page.items.len();
        let decoded = page
            .items
            .iter()
            .map(|kv| decode(res, kv))
            .collect::<Result<Vec<_>, _>>()?;
        for (kv, obj) in page.items.iter().zip(res.in_served_version(decoded).await?) {
            remaining_in_page -= 1;
            if selected(&obj, &labels, &fields) {
                items.push(obj);
                if items.len() == want {
                    let more = page.remaining > 0 || remaining_in_page > 0;
                    let token = more.then(|| ContinueToken {
                        rv: page.revision,
                        start: kv.key.clone(),
                    });
                    let remaining =
                        (!filtering && more).then_some(page.remaining + remaining_in_page as u64);
                    return Ok(Listed {
                        items,
                        revision: page.revision,
                        continue_token: token.map(|t| {
                            base64::engine::general_purpose::URL_SAFE_NO_PAD
                                .encode(serde_json::to_vec(&t).unwrap_or_default())
                        }),
                        remaining,
                    });
                }
            }
        }
        if page.remaining == 0 || last_key.is_none() {
            return Ok(Listed {
                items,
                revision: page.revision,
                continue_token: None,
                remaining: None,
            });
        }
        start_after = last_key;
    }
}

/// The list object.
pub fn list_object(res: &Resource, listed: Listed) -> Value {
    let mut meta = json!({"resourceVersion": listed.revision.to_string()});
    if let Some(c) = listed.continue_token {
        meta["continue"] = json!(c);
    }
    if let Some(r) = listed.remaining {
        meta["remainingItemCount"] = json!(r);
    }
    json!({"kind": res.list_kind, "apiVersion": res.api_version(), "metadata": meta, "items": listed.items})
}

pub fn parse_rv(rv: &str) -> Result<Revision, ApiError> {
    rv.parse()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: \"{rv}\"")))
}

/// Checks the body's type meta against the URL, sets the URL's namespace.
fn check_body(
    res: &Resource,
    obj: &mut Value,
    ns: Option<&str>,
    url_name: Option<&str>,
) -> Result<(), ApiError> {
    let Value::Object(map) = obj else {
        return Err(ApiError::bad_request(format!(
            "{kind} in version \"{v}\" cannot be handled as a {kind}: the body must be a JSON object",
            kind = res.q.kind,
            v = res.version
        )));
    };
    let api_version = map
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let kind = map
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if kind.is_empty() {
        return Err(ApiError::bad_request(
            "Object 'Kind' is missing in the request body",
        ));
    }
    if api_version != res.api_version() {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({})",
            res.api_version()
        )));
    }
    if kind != res.q.kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind ({})",
            res.q.kind
        )));
    }
    let meta = map.entry("metadata").or_insert_with(|| json!({}));
    let Value::Object(meta) = meta else {
        return Err(ApiError::bad_request(format!(
            "{kind} in version \"{v}\" cannot be handled as a {kind}: metadata must be an object",
            v = res.version
        )));
    };
    if res.namespaced {
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

async fn namespace_exists(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
) -> Result<(), ApiError> {
    let (true, Some(ns)) = (res.namespaced, ns) else {
        return Ok(());
    };
    let namespaces = Resource::namespaces();
    match shared.store.get(&namespaces.key(None, ns)).await {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(ApiError::not_found(&namespaces.q, ns)),
        Err(e) => Err(ApiError::from_store(&namespaces.q, ns, e)),
    }
}

fn random_suffix() -> String {
    // The server's alphabet: no vowels (no words), no look-alike characters.
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    bytes[..5]
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

/// POST: create.
pub async fn create(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    obj: Value,
    q: &Query,
) -> Result<Reply, ApiError> {
    create_with(shared, res, ns, obj, q, true).await
}

/// The schema of a custom resource's served version (for field tracking).
fn tracked_schema(res: &Resource) -> Option<&crd_runtime::model::JSONSchemaProps> {
    res.served().and_then(|v| v.schema.as_ref())
}

/// [`create`]; `track` records the create in `managedFields` (an apply has already).
async fn create_with(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    mut obj: Value,
    q: &Query,
    track: bool,
) -> Result<Reply, ApiError> {
    check_body(res, &mut obj, ns, None)?;
    let fv = q.validation()?;
    let meta = obj
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| ApiError::internal("metadata"))?;
    if meta
        .get("resourceVersion")
        .and_then(Value::as_str)
        .is_some_and(|rv| !rv.is_empty())
    {
        return Err(ApiError::internal(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    let name = meta
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let generate = meta
        .get("generateName")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if name.is_empty() && !generate.is_empty() {
        meta.insert(
            "name".into(),
            json!(format!("{generate}{}", random_suffix())),
        );
    }
    meta.insert("uid".into(), json!(uuid::Uuid::new_v4().to_string()));
    meta.insert("creationTimestamp".into(), json!(now()));
    meta.insert("generation".into(), json!(1));
    for k in [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "selfLink",
    ] {
        meta.remove(k);
    }
    namespace_exists(shared, res, ns).await?;
    let Admitted { mut obj, warnings } = kinds::admit_create(shared, res, obj, fv).await?;
    if track && matches!(res.family, Family::Custom(_)) {
        let api_version = res.api_version();
        let writer = apply::Writer {
            manager: q.manager(),
            api_version: &api_version,
            subresource: None,
        };
        apply::track_update(None, &mut obj, tracked_schema(res), &writer);
    }
    let name = name_of(&obj).to_string();
    if q.dry_run {
        return Ok(Reply {
            code: http::StatusCode::CREATED,
            body: obj,
            warnings,
        });
    }
    let kv = shared
        .store
        .create(&res.key(ns, &name), encode(&res.stored(&obj).await?))
        .await
        .map_err(|e| ApiError::from_store(&res.q, &name, e))?;
    if matches!(res.family, Family::Crd) {
        shared.registry.caught_up(kv.mod_revision).await;
    }
    Ok(Reply {
        code: http::StatusCode::CREATED,
        body: res.served_one(decode(res, &kv)?).await?,
        warnings,
    })
}

/// Everything but `metadata` and `status`: a change here bumps `generation`.
fn spec_part(obj: &Value, with_status: bool) -> Map<String, Value> {
    let mut m = obj.as_object().cloned().unwrap_or_default();
    m.remove("metadata");
    m.remove("apiVersion");
    if with_status {
        m.remove("status");
    }
    m
}

/// Copies what a client cannot change from `old` into `new`.
fn keep_identity(new: &mut Value, old: &Value) {
    let Some(meta) = new.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
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

/// PUT (main or status): update with the body's `resourceVersion` as precondition.
pub async fn update(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
    mut new: Value,
    endpoint: Endpoint,
    q: &Query,
) -> Result<Reply, ApiError> {
    check_body(res, &mut new, ns, Some(name))?;
    let fv = q.validation()?;
    let (old, revision) = read(shared, res, ns, name).await?;
    let rv = new
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if rv.is_empty() {
        // Go prints the uint64 zero with %#v.
        let detail = "Invalid value: 0x0: must be specified for an update";
        let mut e = ApiError::invalid(&res.q, name, &crd_runtime::ErrorList::new());
        e.message = format!(
            "{} \"{name}\" is invalid: metadata.resourceVersion: {detail}",
            res.q.group_kind()
        );
        e.details = Some(
            json!({"name": name, "group": res.q.group, "kind": res.q.kind, "causes": [
            {"reason": "FieldValueInvalid", "message": detail, "field": "metadata.resourceVersion"}]}),
        );
        return Err(e);
    }
    if parse_rv(&rv)? != revision {
        return Err(ApiError::conflict(&res.q, name));
    }
    write_update(
        shared,
        res,
        ns,
        name,
        new,
        &old,
        revision,
        endpoint,
        fv,
        q.dry_run,
        Some(q.manager()),
    )
    .await
}

/// The shared tail of update and patch: admission, generation, no-op detection, the
/// compare-and-swap write, and removal once the last finalizer of a deleted object goes.
#[allow(clippy::too_many_arguments)]
async fn write_update(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
    mut new: Value,
    old: &Value,
    revision: Revision,
    endpoint: Endpoint,
    fv: FieldValidation,
    dry_run: bool,
    manager: Option<&str>,
) -> Result<Reply, ApiError> {
    keep_identity(&mut new, old);
    let Admitted {
        obj: mut new,
        warnings,
    } = kinds::admit_update(shared, res, new, old, endpoint, fv).await?;
    if endpoint == Endpoint::Main
        && spec_part(&new, res.has_status()) != spec_part(old, res.has_status())
    {
        let generation = old
            .pointer("/metadata/generation")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        new["metadata"]["generation"] = json!(generation + 1);
    }
    new["metadata"]["resourceVersion"] = json!(revision.to_string());
    if let (Some(manager), Family::Custom(_)) = (manager, &res.family) {
        let api_version = res.api_version();
        let subresource = (endpoint == Endpoint::Status).then_some("status");
        let writer = apply::Writer {
            manager,
            api_version: &api_version,
            subresource,
        };
        apply::track_update(Some(old), &mut new, tracked_schema(res), &writer);
    }
    if new == *old || dry_run {
        return Ok(Reply {
            code: http::StatusCode::OK,
            body: new,
            warnings,
        });
    }
    let key = res.key(ns, name);
    let deleting = new.pointer("/metadata/deletionTimestamp").is_some();
    let finalizers_left = new
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    let kv = if deleting && !finalizers_left {
        // The last finalizer is gone: the object goes with this write.
        let gone = shared
            .store
            .delete(&key, Some(revision))
            .await
            .map_err(|e| ApiError::from_store(&res.q, name, e))?;
        let mut body = new;
        res.present(&mut body, gone.mod_revision);
        return Ok(Reply {
            code: http::StatusCode::OK,
            body,
            warnings,
        });
    } else {
        shared
            .store
            .update(&key, encode(&res.stored(&new).await?), revision)
            .await
            .map_err(|e| ApiError::from_store(&res.q, name, e))?
    };
    if matches!(res.family, Family::Crd) {
        shared.registry.caught_up(kv.mod_revision).await;
    }
    Ok(Reply {
        code: http::StatusCode::OK,
        body: res.served_one(decode(res, &kv)?).await?,
        warnings,
    })
}

/// Applies a merge or JSON patch to `target`.
pub fn apply_patch(target: &Value, body: &Bytes, ty: BodyType) -> Result<Value, ApiError> {
    let mut doc = target.clone();
    match ty {
        BodyType::MergePatch | BodyType::Json => {
            let patch: Value = serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
            json_patch::merge(&mut doc, &patch);
        }
        BodyType::JsonPatch => {
            let patch: json_patch::Patch = serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
            json_patch::patch(&mut doc, &patch).map_err(|e| {
                ApiError::unprocessable(format!(
                    "the server rejected our request due to an error in our request: {e}"
                ))
            })?;
        }
        BodyType::StrategicMergePatch
        | BodyType::ApplyPatch
        | BodyType::Yaml
        | BodyType::Protobuf => {
            return Err(ApiError::unsupported_media_type(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json",
            ));
        }
    }
    Ok(doc)
}

/// PATCH of the object or its status: re-read and retry on a concurrent write, unless
/// the patch itself carries a `resourceVersion` (a precondition).
#[allow(clippy::too_many_arguments)]
pub async fn patch(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
    body: &Bytes,
    ty: BodyType,
    endpoint: Endpoint,
    q: &Query,
) -> Result<Reply, ApiError> {
    let fv = q.validation()?;
    if matches!(ty, BodyType::ApplyPatch) && matches!(res.family, Family::Custom(_)) {
        return server_side_apply(shared, res, ns, name, body, endpoint, q).await;
    }
    for _ in 0..PATCH_RETRIES {
        let (old, revision) = read(shared, res, ns, name).await?;
        let mut new = apply_patch(&old, body, ty)?;
        check_body(res, &mut new, ns, Some(name))?;
        let rv = new
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let pinned = !rv.is_empty() && rv != revision.to_string();
        if pinned {
            return Err(ApiError::conflict(&res.q, name));
        }
        match write_update(
            shared,
            res,
            ns,
            name,
            new,
            &old,
            revision,
            endpoint,
            fv,
            q.dry_run,
            Some(q.manager()),
        )
        .await
        {
            Err(e) if e.reason == "Conflict" => continue,
            other => return other,
        }
    }
    Err(ApiError::conflict(&res.q, name))
}

/// PATCH with `application/apply-patch+yaml`: server-side apply of the body as the
/// `fieldManager`'s configuration (creating the object when it does not exist).
async fn server_side_apply(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
    body: &Bytes,
    endpoint: Endpoint,
    q: &Query,
) -> Result<Reply, ApiError> {
    let fv = q.validation()?;
    let Some(manager) = q.field_manager.as_deref().filter(|m| !m.is_empty()) else {
        return Err(ApiError::unprocessable(
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
        ));
    };
    let mut config = super::request::parse_body(body, BodyType::ApplyPatch, "apply patch")?;
    check_body(res, &mut config, ns, Some(name))?;
    let api_version = res.api_version();
    let subresource = (endpoint == Endpoint::Status).then_some("status");
    let writer = apply::Writer {
        manager,
        api_version: &api_version,
        subresource,
    };
    for _ in 0..PATCH_RETRIES {
        let live = match read(shared, res, ns, name).await {
            Ok(found) => Some(found),
            Err(e) if e.code == http::StatusCode::NOT_FOUND && endpoint == Endpoint::Main => None,
            Err(e) => return Err(e),
        };
        let merged = apply::apply(
            &res.q,
            live.as_ref().map(|(o, _)| o),
            &config,
            tracked_schema(res),
            &writer,
            q.force,
        )?;
        let result = match live {
            None => create_with(shared, res, ns, merged, q, false).await,
            Some((old, revision)) => {
                write_update(
                    shared, res, ns, name, merged, &old, revision, endpoint, fv, q.dry_run, None,
                )
                .await
            }
        };
        match result {
            // A concurrent write (or create): apply again on what it wrote.
            Err(e) if e.reason == "Conflict" || e.reason == "AlreadyExists" => continue,
            other => return other,
        }
    }
    Err(ApiError::conflict(&res.q, name))
}

/// DELETE of one object: preconditions, then finalizers (mark) or removal.
pub async fn delete(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
    options: &Value,
    q: &Query,
) -> Result<Reply, ApiError> {
    let protected = ["default", "kube-system", "kube-public"];
    if matches!(res.family, Family::Namespace) && protected.contains(&name) {
        return Err(ApiError::forbidden(
            &res.q,
            name,
            "this namespace may not be deleted",
        ));
    }
    let (old, revision) = read(shared, res, ns, name).await?;
    if let Some(uid) = options
        .pointer("/preconditions/uid")
        .and_then(Value::as_str)
    {
        let actual = old
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .unwrap_or("");
        if uid != actual {
            return Err(ApiError::conflict_because(
                &res.q,
                name,
                &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual}"
                ),
            ));
        }
    }
    if let Some(rv) = options
        .pointer("/preconditions/resourceVersion")
        .and_then(Value::as_str)
        && rv != revision.to_string()
    {
        return Err(ApiError::conflict_because(
            &res.q,
            name,
            &format!(
                "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {revision}"
            ),
        ));
    }
    if q.dry_run {
        return Ok(Reply::ok(old));
    }
    let has_finalizers = old
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    if has_finalizers && old.pointer("/metadata/deletionTimestamp").is_some() {
        return Ok(Reply::ok(old));
    }
    if has_finalizers {
        let mut marked = old.clone();
        marked["metadata"]["deletionTimestamp"] = json!(now());
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        let kv = shared
            .store
            .update(
                &res.key(ns, name),
                encode(&res.stored(&marked).await?),
                revision,
            )
            .await
            .map_err(|e| ApiError::from_store(&res.q, name, e))?;
        return Ok(Reply {
            code: http::StatusCode::OK,
            body: res.served_one(decode(res, &kv)?).await?,
            warnings: Vec::new(),
        });
    }
    // What goes with the object: a CRD's instances, a namespace's contents.
    match &res.family {
        Family::Crd => {
            if let Some(kind) = shared
                .registry
                .kinds()
                .all()
                .into_iter()
                .find(|k| k.crd_name == name)
            {
                remove_all(shared, &kind.prefix()).await?;
            } else {
                let group = old
                    .pointer("/spec/group")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let plural = old
                    .pointer("/spec/names/plural")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                remove_all(shared, &format!("/registry/{group}/{plural}/")).await?;
            }
        }
        Family::Namespace => {
            for kind in shared
                .registry
                .kinds()
                .all()
                .into_iter()
                .filter(|k| k.namespaced)
            {
                remove_all(shared, &format!("{}{name}/", kind.prefix())).await?;
            }
        }
        Family::Custom(_) => {}
    }
    let gone = shared
        .store
        .delete(&res.key(ns, name), Some(revision))
        .await
        .map_err(|e| ApiError::from_store(&res.q, name, e))?;
    let mut body = old;
    res.present(&mut body, gone.mod_revision);
    if matches!(res.family, Family::Crd) {
        shared.registry.caught_up(gone.mod_revision).await;
    }
    if matches!(res.family, Family::Namespace) {
        body["status"] = json!({"phase": "Terminating"});
    }
    Ok(Reply::ok(body))
}

async fn remove_all(shared: &Shared, prefix: &str) -> Result<(), ApiError> {
    let listed = shared
        .store
        .list(prefix, ListOptions::default())
        .await
        .map_err(|e| ApiError::unavailable(e.to_string()))?;
    for kv in listed.items {
        match shared.store.delete(&kv.key, None).await {
            Ok(_) | Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(ApiError::unavailable(e.to_string())),
        }
    }
    Ok(())
}

/// DELETE of a collection: every selected object, each like a single delete.
pub async fn delete_collection(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    options: &Value,
    q: &Query,
) -> Result<Reply, ApiError> {
    let listed = list(
        shared,
        res,
        ns,
        &Query {
            limit: None,
            continue_token: None,
            ..q.clone()
        },
    )
    .await?;
    let mut deleted = Vec::new();
    for obj in listed.items {
        let name = name_of(&obj).to_string();
        let obj_ns = obj
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .map(str::to_string);
        match delete(shared, res, obj_ns.as_deref(), &name, options, q).await {
            Ok(reply) => deleted.push(reply.body),
            Err(e) if e.code == http::StatusCode::NOT_FOUND => {}
            Err(e) => return Err(e),
        }
    }
    let revision = shared
        .store
        .current_revision()
        .await
        .map_err(|e| ApiError::unavailable(e.to_string()))?;
    Ok(Reply::ok(list_object(
        res,
        Listed {
            items: deleted,
            revision,
            continue_token: None,
            remaining: None,
        },
    )))
}

/// The autoscaling/v1 Scale of an object.
pub fn scale_of(res: &Resource, obj: &Value) -> Result<Value, ApiError> {
    let scale = res
        .served()
        .and_then(|v| v.scale.clone())
        .ok_or_else(ApiError::no_route)?;
    let read_path = |p: &str| {
        super::jsonpath::JsonPath::parse(p)
            .ok()
            .and_then(|jp| jp.find(obj).first().map(|v| (*v).clone()))
    };
    let spec = read_path(&scale.spec_replicas_path).unwrap_or(json!(0));
    let status = read_path(&scale.status_replicas_path).unwrap_or(json!(0));
    let mut out = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": obj.pointer("/metadata/name"),
            "uid": obj.pointer("/metadata/uid"),
            "resourceVersion": obj.pointer("/metadata/resourceVersion"),
            "creationTimestamp": obj.pointer("/metadata/creationTimestamp"),
        },
        "spec": {"replicas": spec},
        "status": {"replicas": status},
    });
    if let Some(ns) = obj.pointer("/metadata/namespace") {
        out["metadata"]["namespace"] = ns.clone();
    }
    if let Some(selector) = scale.label_selector_path.as_deref().and_then(read_path) {
        out["status"]["selector"] = selector;
    }
    Ok(out)
}

/// PUT or PATCH of `/scale`: the new `spec.replicas` goes to the CRD's spec path.
pub async fn update_scale(
    shared: &Shared,
    res: &Resource,
    ns: Option<&str>,
    name: &str,
    change: impl Fn(&Value) -> Result<Value, ApiError>,
    q: &Query,
) -> Result<Reply, ApiError> {
    let scale = res
        .served()
        .and_then(|v| v.scale.clone())
        .ok_or_else(ApiError::no_route)?;
    let path = super::jsonpath::JsonPath::parse(&scale.spec_replicas_path)
        .ok()
        .and_then(|p| {
            p.fields()
                .map(|f| f.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        })
        .ok_or_else(|| {
            ApiError::internal("the scale subresource's specReplicasPath cannot be written")
        })?;
    for _ in 0..PATCH_RETRIES {
        let (old, revision) = read(shared, res, ns, name).await?;
        let new_scale = change(&scale_of(res, &old)?)?;
        if let Some(rv) = new_scale
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            && !rv.is_empty()
            && rv != revision.to_string()
        {
            return Err(ApiError::conflict(&res.q, name));
        }
        let replicas = new_scale
            .pointer("/spec/replicas")
            .cloned()
            .unwrap_or(json!(0));
        if !replicas.is_i64() || replicas.as_i64().is_some_and(|r| r < 0) {
            let scale_q = super::status::Qualified {
                group: "autoscaling".into(),
                plural: "scales".into(),
                kind: "Scale".into(),
            };
            let errs = crd_runtime::ErrorList(vec![crd_runtime::FieldError::invalid(
                crd_runtime::Path::new("spec").child("replicas"),
                crd_runtime::BadValue::from_json(&replicas),
                "must be greater than or equal to 0",
            )]);
            return Err(ApiError::invalid(&scale_q, name, &errs));
        }
        let mut new = old.clone();
        set_path(&mut new, &path, replicas);
        match write_update(
            shared,
            res,
            ns,
            name,
            new,
            &old,
            revision,
            Endpoint::Main,
            FieldValidation::Ignore,
            q.dry_run,
            Some(q.manager()),
        )
        .await
        {
            Err(e) if e.reason == "Conflict" => continue,
            Err(e) => return Err(e),
            Ok(reply) => {
                return Ok(Reply {
                    body: scale_of(res, &reply.body)?,
                    ..reply
                });
            }
        }
    }
    Err(ApiError::conflict(&res.q, name))
}

/// Writes `value` at `path`, creating the objects on the way.
fn set_path(target: &mut Value, path: &[String], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        *target = value;
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let child = &mut target[first.as_str()];
    set_path(child, rest, value);
}
