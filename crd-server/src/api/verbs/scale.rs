//! The scale subresource: an `autoscaling/v1` Scale read from the paths the kind names
//! (`specReplicasPath`, `statusReplicasPath`, `labelSelectorPath`); PUT, PATCH and
//! server-side apply of a Scale change the replicas at the spec path of the object.

use axum::body::Body;
use crd_runtime::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Value, json};

use super::patch::{ACCEPTED, apply_patch};
use super::{Reply, Scope, apply};
use crate::api::kinds::ScalePaths;
use crate::api::object::{meta_mut, str_at};
use crate::api::request::BodyType;
use crate::api::request::media::{parse_body, read_body};
use crate::api::status::{ApiError, Qualified};
use crate::api::write::{self};
use crd_runtime::jsonpath::JsonPath;

fn paths(scope: &Scope<'_>) -> Result<ScalePaths, ApiError> {
    scope
        .res
        .info()
        .scale
        .clone()
        .ok_or_else(ApiError::no_route)
}

/// The Scale of `obj`.
pub fn scale_of(paths: &ScalePaths, obj: &Value) -> Value {
    let read = |p: &str| {
        JsonPath::parse(p)
            .ok()
            .and_then(|jp| jp.find(obj).first().map(|v| (*v).clone()))
    };
    let mut out = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": obj.pointer("/metadata/name"),
            "uid": obj.pointer("/metadata/uid"),
            "resourceVersion": obj.pointer("/metadata/resourceVersion"),
            "creationTimestamp": obj.pointer("/metadata/creationTimestamp"),
        },
        "spec": {"replicas": read(&paths.spec_replicas).unwrap_or(json!(0))},
        "status": {"replicas": read(&paths.status_replicas).unwrap_or(json!(0))},
    });
    if let Some(ns) = obj.pointer("/metadata/namespace") {
        out["metadata"]["namespace"] = ns.clone();
    }
    if let Some(selector) = paths.label_selector.as_deref().and_then(read) {
        out["status"]["selector"] = if paths.label_selector_object {
            json!(crate::api::selectors::label::selector_string(&selector))
        } else {
            selector
        };
    }
    out
}

/// The field names of the spec replicas path (`.spec.replicas` → `[spec, replicas]`).
fn spec_fields(paths: &ScalePaths) -> Result<Vec<String>, ApiError> {
    JsonPath::parse(&paths.spec_replicas)
        .ok()
        .and_then(|p| {
            p.fields()
                .map(|f| f.iter().map(|s| s.to_string()).collect())
        })
        .ok_or_else(|| {
            ApiError::internal("the scale subresource's specReplicasPath cannot be written")
        })
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
    set_path(&mut target[first.as_str()], rest, value);
}

/// The replicas of a Scale, checked as the server checks them.
fn replicas(scale: &Value) -> Result<Value, ApiError> {
    let replicas = scale.pointer("/spec/replicas").cloned().unwrap_or(json!(0));
    if replicas.as_i64().is_some_and(|r| r >= 0) {
        return Ok(replicas);
    }
    let q = Qualified {
        group: "autoscaling".into(),
        plural: "scales".into(),
        kind: "Scale".into(),
    };
    let errs = ErrorList(vec![FieldError::invalid(
        Path::new("spec").child("replicas"),
        BadValue::from_json(&replicas),
        "must be greater than or equal to 0",
    )]);
    Err(ApiError::invalid(
        &q,
        str_at(scale, "/metadata/name"),
        &errs,
    ))
}

/// GET of the Scale.
pub async fn get(scope: &Scope<'_>) -> Result<Reply, ApiError> {
    let paths = paths(scope)?;
    let obj = crate::api::storage::get(scope.shared, scope.target())
        .await?
        .obj;
    Ok(Reply::ok(scale_of(&paths, &obj)))
}

/// PUT of a Scale.
pub async fn update(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let ty = scope.req.body_type()?;
    if !matches!(ty, BodyType::Json | BodyType::Yaml) {
        return Err(ApiError::unsupported_media_type(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
        ));
    }
    let bytes = read_body(&scope.req.headers, body).await?;
    let scale = parse_body(&bytes, ty, "update")?;
    change(scope, |_| Ok(scale.clone())).await
}

/// PATCH of a Scale (merge, JSON patch, or apply).
pub async fn patch(scope: &Scope<'_>, body: Body) -> Result<Reply, ApiError> {
    let ty = scope.req.body_type()?;
    let bytes = read_body(&scope.req.headers, body).await?;
    match ty {
        BodyType::MergePatch | BodyType::JsonPatch => {
            change(scope, |scale| apply_patch(scale, &bytes, ty)).await
        }
        // Built-in kinds take a strategic merge patch of their autoscaling/v1 Scale.
        BodyType::StrategicMergePatch if scope.res.strategic_merge_definition().is_some() => {
            let patch = crate::api::patch::parse(&bytes)?;
            change(scope, |scale| {
                crate::api::patch::apply(scale, patch.clone(), crate::api::patch::SCALE)
            })
            .await
        }
        BodyType::ApplyPatch => {
            let paths = paths(scope)?;
            let config = parse_body(&bytes, ty, "apply patch")?;
            let info = scope.res.info();
            // The Scale's replicas become the parent's configuration at its spec path.
            let mut parent = json!({"apiVersion": info.api_version(), "kind": info.q.kind,
                                    "metadata": {"name": scope.target().name}});
            if let Some(ns) = scope.ns() {
                parent["metadata"]["namespace"] = json!(ns);
            }
            if let Some(r) = config.pointer("/spec/replicas") {
                let r = replicas(
                    &json!({"metadata": config.get("metadata"), "spec": {"replicas": r}}),
                )?;
                set_path(&mut parent, &spec_fields(&paths)?, r);
            }
            let opts = scope.req.write_options()?;
            let reply = apply::apply_config(scope, &parent, &opts).await?;
            Ok(Reply::new(
                reply.code,
                scale_of(&paths, &reply.body),
                reply.warnings,
            ))
        }
        _ => Err(ApiError::unsupported_media_type(ACCEPTED)),
    }
}

/// Writes the replicas of the Scale `new_scale` makes of the current one.
async fn change(
    scope: &Scope<'_>,
    new_scale: impl Fn(&Value) -> Result<Value, ApiError>,
) -> Result<Reply, ApiError> {
    let paths = paths(scope)?;
    let fields = spec_fields(&paths)?;
    let opts = scope.req.write_options()?;
    let u = scope.update(&opts);
    let written = write::guaranteed_update(&u, None, |current| {
        let scale = new_scale(&scale_of(&paths, &current.obj))?;
        let replicas = replicas(&scale)?;
        let mut parent = current.obj.clone();
        // A Scale's resourceVersion is a precondition on the object; none: unconditional.
        let rv = str_at(&scale, "/metadata/resourceVersion");
        if !rv.is_empty() {
            meta_mut(&mut parent).insert("resourceVersion".into(), json!(rv));
        }
        set_path(&mut parent, &fields, replicas);
        Ok(parent)
    })
    .await?;
    Ok(Reply::new(
        http::StatusCode::OK,
        scale_of(&paths, &written.obj),
        written.warnings,
    ))
}
