//! The strategy of `apiextensions.k8s.io/v1` CustomResourceDefinitions, as
//! apiextensions-apiserver's: status behind its subresource (set here as the naming and
//! establishing controllers would), generation on spec changes, the typed model's
//! defaults, CRD validation, `spec.group` and `spec.scope` immutable, and a DELETE
//! that leaves the CRD `Terminating` behind its cleanup finalizer (the finalizer
//! controller, `controllers::crd_cleanup`, deletes its objects, then lets it go).

pub mod conditions;

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::model::{CustomResourceDefinition, JSONSchemaProps, PreexistingExpressions};
use crd_runtime::{CheckOptions, validate_crd};
use serde_json::{Value, json};
use std::sync::Arc;

pub use conditions::CRD_PREFIX;

/// The finalizer a deleted CRD waits on until its objects are gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

use super::{
    AllocateStrategy, CodecStrategy, CreateStrategy, DeleteStrategy, Identity, ResetFieldsStrategy,
    SchemaStrategy, Strategy, TableConvertor, UpdateStrategy, ValidateStrategy,
};
use super::{Context, KindInfo, ResetFields, Subresource, Validated, builtin_schema};
use crate::api::object::{meta_mut, name_of};
use crate::api::status::{ApiError, Qualified};
use crate::api::table::Column;

const DEFINITION: &str =
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition";

/// CustomResourceDefinitions.
pub struct Crds {
    info: KindInfo,
    kube_version: crd_runtime::KubeVersion,
    /// Read on first use: the schema data is large, and most servers never need it.
    schema: std::sync::OnceLock<Option<JSONSchemaProps>>,
}

impl Crds {
    /// The strategy, with the schema of the given Kubernetes release (for apply).
    pub fn new(kube_version: crd_runtime::KubeVersion) -> Crds {
        Crds {
            info: KindInfo {
                q: Qualified {
                    group: "apiextensions.k8s.io".into(),
                    plural: "customresourcedefinitions".into(),
                    kind: "CustomResourceDefinition".into(),
                },
                version: "v1".into(),
                singular: "customresourcedefinition".into(),
                list_kind: "CustomResourceDefinitionList".into(),
                namespaced: false,
                short_names: vec!["crd".into(), "crds".into()],
                categories: vec!["api-extensions".into()],
                prefix: CRD_PREFIX.into(),
                verbs: super::ALL_VERBS,
                subresources: vec![Subresource::Status],
                scale: None,
                warning: None,
            },
            kube_version,
            schema: std::sync::OnceLock::new(),
        }
    }

    fn typed(&self, obj: &Value) -> Result<CustomResourceDefinition, ApiError> {
        serde_json::from_value(obj.clone()).map_err(|e| {
            ApiError::bad_request(format!(
                "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: {e}"
            ))
        })
    }
}

fn immutable(errs: &mut ErrorList, new: &Value, old: &Value, field: &str) {
    let pointer = format!("/spec/{field}");
    if old.pointer(&pointer) != new.pointer(&pointer) {
        errs.push(FieldError::invalid(
            Path::new("spec").child(field),
            BadValue::from_json(new.pointer(&pointer).unwrap_or(&Value::Null)),
            "field is immutable",
        ));
    }
}

/// `ValidateCustomResourceDefinitionStoredVersions`.
fn check_stored_versions(crd: &CustomResourceDefinition, stored: &[String]) -> ErrorList {
    let path = Path::new("status").child("storedVersions");
    let mut errs = ErrorList::new();
    if stored.is_empty() {
        errs.push(FieldError::invalid(
            path,
            BadValue::from_json(&json!([])),
            "must have at least one stored version",
        ));
        return errs;
    }
    for v in &crd.spec.versions {
        if v.storage && !stored.contains(&v.name) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(v.name.clone()),
                format!("must have the storage version {}", v.name),
            ));
        }
    }
    for (i, s) in stored.iter().enumerate() {
        if !crd.spec.versions.iter().any(|v| v.name == *s) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(s.clone()),
                format!(
                    "missing from spec.versions; {s} was previously a storage version, and must \
                     remain in spec.versions until a storage migration ensures no data remains \
                     persisted in {s} and removes {s} from status.storedVersions"
                ),
            ));
        }
    }
    errs
}

impl Strategy for Crds {}

impl Identity for Crds {
    fn info(&self) -> &KindInfo {
        &self.info
    }

    fn defines_kinds(&self) -> bool {
        true
    }
}

impl CreateStrategy for Crds {
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({});
        meta_mut(obj).insert("generation".into(), json!(1));
    }
}

impl UpdateStrategy for Crds {
    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        match sub {
            Subresource::Status => {
                if let Some(spec) = old.get("spec") {
                    new["spec"] = spec.clone();
                }
            }
            _ => {
                crate::api::object::copy_field(new, old, "status");
                if new.get("spec") != old.get("spec") {
                    crate::api::object::bump_generation(new, old);
                }
            }
        }
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }
}

impl ValidateStrategy for Crds {
    fn validate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Validated<'a> {
        let (old, sub) = (cx.old, cx.sub);
        Box::pin(async move {
            let name = name_of(obj).to_string();
            let crd = self.typed(obj)?;
            // New rules compile at the server's compatibility version (one
            // release back); on an update, rules the old CRD had in the
            // server's own stored-expression environment.
            let preexisting = old
                .and_then(|o| self.typed(o).ok())
                .map(|o| Arc::new(PreexistingExpressions::of(&o)));
            let opts = CheckOptions {
                cel_environment_version: Some((1, self.kube_version.minor().saturating_sub(1))),
                preexisting_expressions: preexisting,
                ..CheckOptions::api_server_create()
            };
            let errs = validate_crd(&crd, &opts);
            if !errs.is_empty() {
                return Err(ApiError::invalid(&self.info.q, &name, &errs));
            }
            let mut errs = ErrorList::new();
            if let Some(old) = old {
                immutable(&mut errs, obj, old, "group");
                immutable(&mut errs, obj, old, "scope");
            }
            // A status write may drop versions from storedVersions (storage migration);
            // any other write keeps them.
            let stored = if sub == Subresource::Status {
                let stored = conditions::stored_versions(Some(obj));
                errs.0.extend(check_stored_versions(&crd, &stored).0);
                stored
            } else {
                // Any other write keeps them and adds the new storage version (upstream's
                // PrepareForUpdate); a version they list cannot leave spec.versions.
                let stored = conditions::stored_versions(old);
                if old.is_some() {
                    let mut kept = stored.clone();
                    for v in crd.spec.versions.iter().filter(|v| v.storage) {
                        if !kept.contains(&v.name) {
                            kept.push(v.name.clone());
                        }
                    }
                    errs.0.extend(check_stored_versions(&crd, &kept).0);
                }
                stored
            };
            if !errs.is_empty() {
                return Err(ApiError::invalid(&self.info.q, &name, &errs));
            }
            conditions::set_status(cx.store, &self.info.q, obj, &crd, old, stored).await?;
            Ok(Vec::new())
        })
    }
}

impl DeleteStrategy for Crds {
    fn deleted_answer(&self, obj: Value) -> Option<Value> {
        Some(obj)
    }

    /// The first DELETE of a CRD (its REST `Delete`): the cleanup finalizer, so the
    /// CRD stays until the finalizer controller has deleted its objects.
    fn begin_deletion(&self, obj: &mut Value) -> bool {
        let meta = meta_mut(obj);
        let finalizers = meta
            .entry("finalizers")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !finalizers.is_array() {
            *finalizers = Value::Array(Vec::new());
        }
        if let Value::Array(list) = finalizers
            && !list.iter().any(|f| f == CLEANUP_FINALIZER)
        {
            list.push(json!(CLEANUP_FINALIZER));
        }
        conditions::set_condition(
            obj,
            conditions::TERMINATING,
            true,
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        );
        true
    }

    /// The first DELETE only begins the cleanup (its REST `Delete`); a later one goes
    /// through the generic store, which sets them.
    fn gc_finalizers_on_delete(&self, obj: &Value) -> bool {
        crate::api::object::is_deleting(obj)
    }
}

impl ResetFieldsStrategy for Crds {
    fn reset_fields(&self, sub: Subresource) -> ResetFields {
        match sub {
            Subresource::Status => &[&["metadata"], &["spec"]],
            _ => &[&["status"]],
        }
    }
}

impl TableConvertor for Crds {
    fn columns(&self) -> Vec<Column> {
        vec![Column::printer(
            "Created At",
            "rawdate",
            None,
            Some(
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
            ),
            None,
            ".metadata.creationTimestamp",
        )]
    }
}

impl CodecStrategy for Crds {
    fn decode(&self, obj: &mut Value) -> Result<Vec<String>, ApiError> {
        // The spec as stored is the typed model's, with the v1 defaults.
        let crd = self.typed(obj)?;
        if let (Value::Object(o), Ok(spec)) = (obj, serde_json::to_value(&crd.spec)) {
            o.insert("spec".into(), spec);
        }
        Ok(Vec::new())
    }
}

impl SchemaStrategy for Crds {
    fn schema(&self) -> Option<&JSONSchemaProps> {
        self.schema
            .get_or_init(|| builtin_schema(self.kube_version, DEFINITION))
            .as_ref()
    }

    fn openapi_schema(&self) -> Value {
        json!({"type": "object", "description": "CustomResourceDefinition represents a resource that should be exposed on the API server.",
            "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                           "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
    }
}

impl AllocateStrategy for Crds {}
