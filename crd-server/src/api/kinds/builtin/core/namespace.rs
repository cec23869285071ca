//! The strategy of core/v1 Namespaces, as kube-apiserver's: `status.phase` and
//! `spec.finalizers` owned by the server (`Active` and the `kubernetes` finalizer on
//! create; the `status` and `finalize` subresources change them), the
//! `kubernetes.io/metadata.name` label, DNS-label names, unconditional updates, and
//! the immortal namespaces. A DELETE only marks a namespace `Terminating`; it goes
//! once the namespace controller (`crate::controllers`) has emptied it and removed
//! its `kubernetes` finalizer and no other finalizer holds it.

use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::model::JSONSchemaProps;
use serde_json::{Value, json};

use crate::api::kinds::{
    AllocateStrategy, CodecStrategy, Context, CreateStrategy, DeleteStrategy, Identity, KindInfo,
    ResetFields, ResetFieldsStrategy, SchemaStrategy, Strategy, Subresource, TableConvertor,
    UpdateStrategy, ValidateStrategy, Validated, builtin_schema,
};
use crate::api::object::{copy_field, has_finalizers, is_deleting, meta_mut, name_of, str_at};
use crate::api::status::{ApiError, Qualified};
use crate::api::table::Column;

/// Where namespaces are stored.
pub const NAMESPACE_PREFIX: &str = "/registry/namespaces/";

/// The namespaces every cluster has, which cannot be deleted.
pub const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The finalizer the namespace controller removes once the namespace's content is gone.
pub const KUBERNETES_FINALIZER: &str = "kubernetes";

/// The finalizers a name without a domain may be (`IsStandardFinalizerName`).
const STANDARD_FINALIZERS: [&str; 3] = [KUBERNETES_FINALIZER, "orphan", "foregroundDeletion"];

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

/// `spec.finalizers`.
pub fn spec_finalizer_names(obj: &Value) -> Vec<&str> {
    obj.pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `validateFinalizerName` for each of `spec.finalizers`: a qualified name, and a name
/// without a domain only if it is a standard one. `indexed`: the path names the entry.
fn spec_finalizers(obj: &Value, indexed: bool, errs: &mut ErrorList) {
    let list = obj.pointer("/spec/finalizers").and_then(Value::as_array);
    for (i, f) in list.into_iter().flatten().enumerate() {
        let name = f.as_str().unwrap_or("");
        let base = Path::new("spec").child("finalizers");
        let path = if indexed { base.index(i) } else { base };
        for m in crd_runtime::names::qualified_name(name) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(name.into()),
                m,
            ));
        }
        if !name.contains('/') && !STANDARD_FINALIZERS.contains(&name) {
            errs.push(FieldError::invalid(
                path,
                BadValue::Str(name.into()),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
}

/// `ValidateNamespaceStatusUpdate`: the phase follows `deletionTimestamp` (an absent
/// phase defaults to `Active`).
fn status_phase(obj: &mut Value, errs: &mut ErrorList) {
    if str_at(obj, "/status/phase").is_empty() {
        if !obj.get("status").is_some_and(Value::is_object) {
            obj["status"] = json!({});
        }
        obj["status"]["phase"] = json!("Active");
    }
    let phase = str_at(obj, "/status/phase").to_string();
    let (wanted, detail) = if is_deleting(obj) {
        (
            "Terminating",
            "may only be 'Terminating' if `deletionTimestamp` is not empty",
        )
    } else {
        (
            "Active",
            "may only be 'Active' if `deletionTimestamp` is empty",
        )
    };
    if phase != wanted {
        errs.push(FieldError::invalid(
            Path::new("status").child("Phase"),
            BadValue::Str(phase),
            detail,
        ));
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

impl Strategy for Namespaces {}

impl Identity for Namespaces {
    fn info(&self) -> &KindInfo {
        &self.info
    }
}

impl CreateStrategy for Namespaces {
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
}

impl UpdateStrategy for Namespaces {
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

    fn allow_unconditional_update(&self) -> bool {
        true
    }
}

impl ValidateStrategy for Namespaces {
    fn validate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Validated<'a> {
        let (old, sub) = (cx.old, cx.sub);
        Box::pin(async move {
            let name = name_of(obj).to_string();
            let mut errs = ErrorList::new();
            for m in crd_runtime::names::dns1123_label(&name) {
                errs.push(FieldError::invalid(
                    Path::new("metadata").child("name"),
                    BadValue::Str(name.clone()),
                    m,
                ));
            }
            match sub {
                // `ValidateNamespace` names the list, the finalize endpoint each entry.
                Subresource::Main if old.is_none() => spec_finalizers(obj, false, &mut errs),
                Subresource::Finalize => spec_finalizers(obj, true, &mut errs),
                Subresource::Status => status_phase(obj, &mut errs),
                _ => {}
            }
            if !errs.is_empty() {
                return Err(ApiError::invalid(&self.info.q, &name, &errs));
            }
            Ok(Vec::new())
        })
    }

    fn canonicalize(&self, obj: &mut Value) {
        set_name_label(obj);
    }
}

impl DeleteStrategy for Namespaces {
    fn deleted_answer(&self, obj: Value) -> Option<Value> {
        // `ReturnDeletedObject`: a namespace removed by a DELETE is answered as itself.
        Some(obj)
    }

    fn begin_deletion(&self, obj: &mut Value) -> bool {
        // The first DELETE only marks the namespace: the namespace controller empties
        // it and removes its `kubernetes` finalizer, then it goes.
        if !obj.get("status").is_some_and(Value::is_object) {
            obj["status"] = json!({});
        }
        obj["status"]["phase"] = json!("Terminating");
        true
    }

    fn gc_finalizers_on_delete(&self, obj: &Value) -> bool {
        // The first DELETE sets them with the phase; a later one changes nothing until
        // the namespace is finalized (its REST `Delete`).
        !is_deleting(obj) || spec_finalizer_names(obj).is_empty()
    }

    fn finalized(&self, obj: &Value) -> bool {
        // `ShouldDeleteNamespaceDuringUpdate`: `spec.finalizers` must be empty as well.
        is_deleting(obj) && !has_finalizers(obj) && spec_finalizer_names(obj).is_empty()
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
}

impl ResetFieldsStrategy for Namespaces {
    fn reset_fields(&self, sub: Subresource) -> ResetFields {
        match sub {
            Subresource::Status => &[&["spec"]],
            Subresource::Finalize => &[&["status"]],
            _ => &[&["status"], &["spec", "finalizers"]],
        }
    }
}

impl TableConvertor for Namespaces {
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
}

impl CodecStrategy for Namespaces {
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
}

impl SchemaStrategy for Namespaces {
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

    fn openapi_schema(&self) -> Value {
        json!({"type": "object", "description": "Namespace provides a scope for Names.", "properties": {
            "spec": {"type": "object", "properties": {"finalizers": {"type": "array", "items": {"type": "string"}}}},
            "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}})
    }

    fn strategic_merge_definition(&self) -> Option<&'static str> {
        Some(DEFINITION)
    }
}

impl AllocateStrategy for Namespaces {}
