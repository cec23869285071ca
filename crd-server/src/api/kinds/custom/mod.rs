//! The strategy of custom objects at one served version, as apiextensions-apiserver's
//! `customResourceStrategy` and its status strategy: status behind the subresource,
//! generation on every change outside `metadata`, decoding by the version's schema
//! (prune, metadata coercion, defaults), validation by the engine (OpenAPI schema,
//! list types, CEL with `oldSelf`, ratcheting), and the CRD's conversion.

pub mod kind;

use std::sync::Arc;

use crd_runtime::engine::Engine;
use crd_runtime::model::JSONSchemaProps;
use futures::future::BoxFuture;
use serde_json::{Value, json};

pub use kind::{CustomKind, CustomVersion};

use super::{
    AllocateStrategy, CodecStrategy, CreateStrategy, DeleteStrategy, Identity, ResetFieldsStrategy,
    SchemaStrategy, Strategy, TableConvertor, UpdateStrategy, ValidateStrategy,
};
use super::{Context, KindInfo, ResetFields, ScalePaths, Subresource, Validated};
use crate::api::conversion;
use crate::api::object::{copy_field, meta_mut, name_of};
use crate::api::read_cache::ReadCache;
use crate::api::status::ApiError;
use crate::api::table::Column;

/// A custom kind at one served version.
pub struct CustomResource {
    kind: Arc<CustomKind>,
    /// Index into `kind.versions`.
    version: usize,
    info: KindInfo,
    cache: Option<ReadCache>,
}

impl CustomResource {
    /// The kind at `version`, if that version is served.
    pub fn new(kind: Arc<CustomKind>, version: &str) -> Option<CustomResource> {
        let index = kind
            .versions
            .iter()
            .position(|v| v.name == version && v.served)?;
        let v = &kind.versions[index];
        let mut subresources = Vec::new();
        if v.status {
            subresources.push(Subresource::Status);
        }
        if v.scale.is_some() {
            subresources.push(Subresource::Scale);
        }
        let info = KindInfo {
            q: kind.q.clone(),
            version: version.to_string(),
            singular: kind.singular.clone(),
            list_kind: kind.list_kind.clone(),
            namespaced: kind.namespaced,
            short_names: kind.short_names.clone(),
            categories: kind.categories.clone(),
            prefix: kind.prefix(),
            verbs: super::ALL_VERBS,
            subresources,
            scale: v.scale.as_ref().map(|s| ScalePaths {
                spec_replicas: s.spec_replicas_path.clone(),
                status_replicas: s.status_replicas_path.clone(),
                label_selector: s.label_selector_path.clone(),
                label_selector_object: false,
            }),
            warning: v.warning.clone(),
        };
        // A webhook's answers may change for the same stored bytes: not cached.
        let cache = matches!(kind.conversion, conversion::Converter::None)
            .then(|| ReadCache::new(crate::api::read_cache::BUDGET));
        Some(CustomResource {
            kind,
            version: index,
            info,
            cache,
        })
    }

    fn served(&self) -> &CustomVersion {
        &self.kind.versions[self.version]
    }

    fn engine(&self) -> Result<&Engine, ApiError> {
        engine_of(self.served(), &self.info)
    }
}

fn engine_of<'a>(v: &'a CustomVersion, info: &KindInfo) -> Result<&'a Engine, ApiError> {
    v.engine.as_deref().map_err(|e| {
        ApiError::internal(format!(
            "the schema of {} version {} cannot be used: {e}",
            info.q.resource(),
            v.name
        ))
    })
}

/// Everything but `metadata` (`copyNonMetadata`): a change here bumps `generation`.
fn differs_outside_metadata(new: &Value, old: &Value) -> bool {
    match (new, old) {
        (Value::Object(n), Value::Object(o)) => {
            n.len() - usize::from(n.contains_key("metadata"))
                != o.len() - usize::from(o.contains_key("metadata"))
                || n.iter()
                    .filter(|(k, _)| *k != "metadata")
                    .any(|(k, v)| o.get(k) != Some(v))
        }
        _ => new != old,
    }
}

/// The verbs apiextensions-apiserver's discovery lists for a terminating CRD's kind.
const TERMINATING_VERBS: &[&str] = &["delete", "deletecollection", "get", "list", "watch"];

impl Strategy for CustomResource {}

impl Identity for CustomResource {
    fn info(&self) -> &KindInfo {
        &self.info
    }

    fn discovery_verbs(&self) -> &'static [&'static str] {
        if self.kind.terminating {
            TERMINATING_VERBS
        } else {
            self.info.verbs
        }
    }
}

impl CreateStrategy for CustomResource {
    /// As `forbidCreateAdmission`: no new object while the CRD is being deleted (what
    /// a server-side apply that would create answers; a POST is refused earlier, by
    /// [`CreateStrategy::check_post_create`]).
    fn check_create(&self, obj: &Value) -> Result<(), ApiError> {
        if !self.kind.refuses_creates {
            return Ok(());
        }
        let name = name_of(obj);
        let why = "create not allowed while custom resource definition is terminating";
        let mut e = ApiError::forbidden(&self.info.q, name, why);
        if name.is_empty() {
            // `NewForbidden` leaves the quoted name out when there is none.
            e.message = format!("{} is forbidden: {why}", self.info.q.resource());
        }
        Err(e)
    }

    /// As apiextensions-apiserver's handler: a POST while the CRD terminates is
    /// `NewMethodNotSupported` with its own message, before the body is read.
    fn check_post_create(&self) -> Result<(), ApiError> {
        if !self.kind.refuses_creates {
            return Ok(());
        }
        Err(ApiError::method_not_supported(
            &self.info.q,
            "create not allowed while custom resource definition is terminating",
        ))
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        if self.info.has_status()
            && let Value::Object(m) = obj
        {
            m.remove("status");
        }
        meta_mut(obj).insert("generation".into(), json!(1));
    }
}

impl UpdateStrategy for CustomResource {
    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        match sub {
            Subresource::Status => {
                // Only status changes; managedFields carry this write's tracking.
                let status = new.get("status").cloned();
                let managed = new.pointer("/metadata/managedFields").cloned();
                *new = old.clone();
                let meta = meta_mut(new);
                match managed {
                    Some(m) => meta.insert("managedFields".into(), m),
                    None => meta.remove("managedFields"),
                };
                if let Value::Object(m) = new {
                    match status {
                        Some(s) => m.insert("status".into(), s),
                        None => m.remove("status"),
                    };
                }
            }
            _ => {
                if self.info.has_status() {
                    copy_field(new, old, "status");
                }
                if differs_outside_metadata(new, old) {
                    crate::api::object::bump_generation(new, old);
                }
            }
        }
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }
}

impl ValidateStrategy for CustomResource {
    fn validate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Validated<'a> {
        let old = cx.old;
        Box::pin(async move {
            let engine = self.engine()?;
            let mut errs = match old {
                None => engine.validate(obj),
                Some(old) => engine.validate_update(obj, old),
            };
            if errs.is_empty() && crate::stages::is_stage(&self.info.q.group, &self.info.q.kind) {
                // kwok's Stage CRD: what its schema cannot say (operators, keys,
                // templates), as kwok's controller would refuse it.
                errs = crate::stages::validate(obj);
            }
            if errs.is_empty() {
                Ok(Vec::new())
            } else {
                Err(ApiError::invalid(&self.info.q, name_of(obj), &errs))
            }
        })
    }
}

impl DeleteStrategy for CustomResource {}

impl ResetFieldsStrategy for CustomResource {
    fn reset_fields(&self, sub: Subresource) -> ResetFields {
        self.info.reset_fields(sub)
    }
}

impl TableConvertor for CustomResource {
    fn columns(&self) -> Vec<Column> {
        let v = self.served();
        if v.columns.is_empty() {
            return vec![Column::age()];
        }
        v.columns
            .iter()
            .map(|c| {
                Column::printer(
                    &c.name,
                    &c.type_,
                    c.format.as_deref(),
                    c.description.as_deref(),
                    c.priority,
                    &c.json_path,
                )
            })
            .collect()
    }
}

impl CodecStrategy for CustomResource {
    fn decode(&self, obj: &mut Value) -> Result<Vec<String>, ApiError> {
        self.engine()?
            .decode(obj)
            .map_err(|errs| ApiError::invalid(&self.info.q, name_of(obj), &errs))
    }

    fn read_cache(&self) -> Option<&ReadCache> {
        self.cache.as_ref()
    }

    fn read_stored<'a>(
        &'a self,
        objects: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Value>, ApiError>> {
        Box::pin(async move {
            let desired = self.info.api_version();
            let mut objects = objects;
            let mut foreign = Vec::with_capacity(objects.len());
            // Read as the server reads from storage: pruned and defaulted by the schema
            // of the version each object is stored in.
            for o in &mut objects {
                let api_version = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                foreign.push(api_version != desired);
                let version = api_version.rsplit('/').next().unwrap_or("");
                if let Some(Ok(engine)) =
                    self.kind.any_version(version).map(|v| v.engine.as_deref())
                {
                    engine.decode_stored(o);
                }
            }
            if !foreign.contains(&true) {
                return Ok(objects);
            }
            let mut out =
                conversion::convert(&self.kind.conversion, &self.kind.q.kind, objects, &desired)
                    .await?;
            // The server prunes after every conversion: fields of another version's
            // schema are not served in this one.
            let engine = self.engine()?;
            for (o, converted) in out.iter_mut().zip(foreign) {
                if converted {
                    let _ = engine.coerce_converted(o);
                }
            }
            Ok(out)
        })
    }

    fn stored_in_other_version(&self, api_version: &str) -> bool {
        api_version
            .strip_prefix(self.kind.q.group.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            != Some(self.kind.storage_version.as_str())
    }

    fn storage_form<'a>(
        &'a self,
        obj: &'a Value,
    ) -> BoxFuture<'a, Result<Option<Value>, ApiError>> {
        Box::pin(async move {
            let storage = &self.kind.storage_version;
            if *storage == self.info.version {
                return Ok(None);
            }
            let desired = format!("{}/{storage}", self.info.q.group);
            let mut out = conversion::convert(
                &self.kind.conversion,
                &self.kind.q.kind,
                vec![obj.clone()],
                &desired,
            )
            .await?;
            let mut stored = out
                .pop()
                .ok_or_else(|| ApiError::internal("the conversion returned no object"))?;
            if let Some(v) = self.kind.any_version(storage) {
                let _ = engine_of(v, &self.info)?.coerce_converted(&mut stored);
            }
            Ok(Some(stored))
        })
    }
}

impl SchemaStrategy for CustomResource {
    fn selectable_fields(&self) -> Vec<(String, String)> {
        self.served()
            .selectable
            .iter()
            .map(|p| {
                let field = p.trim_start_matches('.').to_string();
                (field.clone(), field)
            })
            .collect()
    }

    fn schema(&self) -> Option<&JSONSchemaProps> {
        self.served().schema.as_ref()
    }

    fn openapi_schema(&self) -> Value {
        self.schema()
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or(json!({"type": "object"}))
    }
}

impl AllocateStrategy for CustomResource {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_follows_changes_outside_metadata() {
        let old = json!({"apiVersion": "x/v1", "metadata": {"name": "a"}, "spec": {"a": 1}});
        let relabeled = json!({"apiVersion": "x/v1", "metadata": {"name": "a", "labels": {"k": "v"}}, "spec": {"a": 1}});
        assert!(!differs_outside_metadata(&relabeled, &old));
        let changed = json!({"apiVersion": "x/v1", "metadata": {"name": "a"}, "spec": {"a": 2}});
        assert!(differs_outside_metadata(&changed, &old));
        let added =
            json!({"apiVersion": "x/v1", "metadata": {"name": "a"}, "spec": {"a": 1}, "extra": 1});
        assert!(differs_outside_metadata(&added, &old));
        let no_meta = json!({"apiVersion": "x/v1", "spec": {"a": 1}});
        assert!(!differs_outside_metadata(&no_meta, &old));
    }
}
