//! The strategy of core/v1 Namespaces, as kube-apiserver's: `status.phase` and
//! `spec.finalizers` owned by the server (`Active` and the `kubernetes` finalizer on
//! create; the `status` and `finalize` subresources change them), the
//! `kubernetes.io/metadata.name` label, DNS-label names, unconditional updates, and
//! the immortal namespaces.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::model::JSONSchemaProps;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{Cascade, Context, KindInfo, ResetFields, Strategy, Subresource, builtin_schema};
use crate::api::object::{copy_field, is_deleting, meta_mut, name_of};
use crate::api::status::{ApiError, Qualified};
use crate::api::table::Column;

/// Where namespaces are stored.
pub const NAMESPACE_PREFIX: &str = "/registry/namespaces/";

/// The namespaces every cluster has, which cannot be deleted.
pub const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The label every namespace carries with its own name.
const NAME_LABEL: &str = "kubernetes.io/metadata.name";

const DEFINITION: &str = "io.k8s.api.core.v1.Namespace";

/// Namespaces.
pub struct Namespaces {
    info: KindInfo,
    kube_version: crd_runtime::KubeVersion,
    /// Read on first use: the schema data is large, and most servers never need it.
    schema: std::sync::OnceLock<Option<JSONSchemaProps>>,
}

impl Namespaces {
    /// The strategy, with the schema of the given Kubernetes release (for apply).
    pub fn new(kube_version: crd_runtime::KubeVersion) -> Namespaces {
        Namespaces {
            info: info(),
            kube_version,
            schema: std::sync::OnceLock::new(),
        }
    }
}

/// The identity of Namespaces.
pub fn info() -> KindInfo {
    KindInfo {
        q: Qualified {
            group: String::new(),
            plural: "namespaces".into(),
            kind: "Namespace".into(),
        },
        version: "v1".into(),
        singular: "namespace".into(),
        list_kind: "NamespaceList".into(),
        namespaced: false,
        short_names: vec!["ns".into()],
        categories: Vec::new(),
        prefix: NAMESPACE_PREFIX.into(),
        verbs: &[
            "create", "delete", "get", "list", "patch", "update", "watch",
        ],
        subresources: vec![Subresource::Status, Subresource::Finalize],
        scale: None,
        warning: None,
    }
}

fn set_name_label(obj: &mut Value) {
    let name = name_of(obj).to_string();
    if name.is_empty() {
        return;
    }
    let meta = meta_mut(obj);
    if !meta.get("labels").is_some_and(Value::is_object) {
        meta.insert("labels".into(), json!({}));
    }
    meta["labels"][NAME_LABEL] = json!(name);
}

impl Strategy for Namespaces {
    fn info(&self) -> &KindInfo {
        &self.info
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"phase": "Active"});
        let finalizers = obj.pointer("/spec/finalizers").and_then(Value::as_array);
        if !finalizers.is_some_and(|f| f.iter().any(|v| v == "kubernetes")) {
            let mut list = finalizers.cloned().unwrap_or_default();
            list.push(json!("kubernetes"));
            if !obj.get("spec").is_some_and(Value::is_object) {
                obj["spec"] = json!({});
            }
            obj["spec"]["finalizers"] = Value::Array(list);
        }
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        match sub {
            Subresource::Status => copy_field(new, old, "spec"),
            Subresource::Finalize => copy_field(new, old, "status"),
            _ => {
                copy_field(new, old, "status");
                match old.pointer("/spec/finalizers") {
                    Some(f) => {
                        if !new.get("spec").is_some_and(Value::is_object) {
                            new["spec"] = json!({});
                        }
                        new["spec"]["finalizers"] = f.clone();
                    }
                    None => {
                        if let Some(Value::Object(spec)) = new.get_mut("spec") {
                            spec.remove("finalizers");
                        }
                    }
                }
            }
        }
    }

    fn decode_protobuf(&self, body: &[u8]) -> Option<Result<Value, ApiError>> {
        let message = crate::api::protobuf::message_for("io.k8s.api.core.v1.Namespace")?;
        Some(crate::api::protobuf::decode_object(
            body,
            "Namespace",
            message,
        ))
    }

    fn decode(&self, obj: &mut Value) -> Result<Vec<String>, ApiError> {
        // SetDefaults_Namespace: the name label (again in canonicalize, for generated names).
        set_name_label(obj);
        Ok(Vec::new())
    }

    fn validate<'a>(
        &'a self,
        _cx: &'a Context<'a>,
        obj: &'a mut Value,
        _old: Option<&'a Value>,
        _sub: Subresource,
    ) -> BoxFuture<'a, Result<Vec<String>, ApiError>> {
        Box::pin(async move {
            let name = name_of(obj).to_string();
            let mut errs = ErrorList::new();
            for m in crd_runtime::engine::names::dns1123_label(&name) {
                errs.push(FieldError::invalid(
                    Path::new("metadata").child("name"),
                    BadValue::Str(name.clone()),
                    m,
                ));
            }
            if !errs.is_empty() {
                return Err(ApiError::invalid(&self.info.q, &name, &errs));
            }
            // What the namespace controller shows while the namespace goes.
            if is_deleting(obj) {
                obj["status"]["phase"] = json!("Terminating");
            }
            Ok(Vec::new())
        })
    }

    fn canonicalize(&self, obj: &mut Value) {
        set_name_label(obj);
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column::printer(
                "Status",
                "string",
                None,
                Some("The status of the namespace"),
                None,
                ".status.phase",
            ),
            Column::age(),
        ]
    }

    fn selectable_fields(&self) -> Vec<(String, String)> {
        vec![
            ("status.phase".into(), "status.phase".into()),
            // Kept by the server for compatibility: `name` selects on metadata.name.
            ("name".into(), "metadata.name".into()),
        ]
    }

    fn schema(&self) -> Option<&JSONSchemaProps> {
        self.schema
            .get_or_init(|| builtin_schema(self.kube_version, DEFINITION))
            .as_ref()
    }

    fn reset_fields(&self, sub: Subresource) -> ResetFields {
        match sub {
            Subresource::Status => &[&["spec"]],
            Subresource::Finalize => &[&["status"]],
            _ => &[&["status"], &["spec", "finalizers"]],
        }
    }

    fn allow_unconditional_update(&self) -> bool {
        true
    }

    fn deleted_answer(&self, mut obj: Value) -> Option<Value> {
        // Its contents go with it; the answer shows it terminating, as the server does.
        obj["status"] = json!({"phase": "Terminating"});
        Some(obj)
    }

    fn cascade(&self, obj: &Value) -> Cascade {
        Cascade::NamespaceContents(name_of(obj).to_string())
    }

    fn check_delete(&self, name: &str) -> Result<(), ApiError> {
        if IMMORTAL.contains(&name) {
            return Err(ApiError::forbidden(
                &self.info.q,
                name,
                "this namespace may not be deleted",
            ));
        }
        Ok(())
    }

    fn openapi_schema(&self) -> Value {
        json!({"type": "object", "description": "Namespace provides a scope for Names.", "properties": {
            "spec": {"type": "object", "properties": {"finalizers": {"type": "array", "items": {"type": "string"}}}},
            "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}})
    }

    fn strategic_merge_definition(&self) -> Option<&'static str> {
        Some(DEFINITION)
    }
}
