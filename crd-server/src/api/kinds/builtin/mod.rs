//! Built-in kinds (ConfigMaps, Secrets, Leases, …): one [`BuiltinKind`] strategy for
//! all of them, driven by a [`Spec`] (identity, scope, verbs, subresources, field
//! selectors, the k8s-openapi definition of the release) and a [`Behaviour`] for what
//! the kind's own Go code does in kube-apiserver (`SetDefaults_*`, `Validate*`,
//! `PrepareFor*`, the table printer).
//!
//! Decoding uses the kind's schema in the chosen release, as kube-apiserver decodes
//! into its Go types: unknown fields are dropped and reported for `fieldValidation`,
//! metadata is coerced. Validation is the kind's own (its messages, not OpenAPI's),
//! after apimachinery's `ValidateObjectMeta` with the kind's name rule.

mod admissionregistration;
mod apiregistration;
mod apps;
mod authentication;
pub(crate) mod authorization;
mod autoscaling;
pub(crate) mod batch;
mod behaviour;
mod catalog;
mod checks;
mod columns;
mod coordination;
pub mod core;
mod discovery;
mod events;
mod networking;
mod policy;
pub(crate) mod quantity;
pub mod rbac;
pub mod scheduling;
mod storage;
pub mod storagemigration;

use std::sync::OnceLock;

use crd_runtime::__private::objectmeta::{MetaRules, NamespaceRule, validate_object_meta};
use crd_runtime::engine::{Engine, EngineOptions, SchemaOptions};
use crd_runtime::field::{BadValue, ErrorList, FieldError, Path};
use crd_runtime::model::JSONSchemaProps;
use futures::future::BoxFuture;
use serde_json::{Value, json};

pub use behaviour::{
    Behaviour, Defaulter, Deleter, Preparer, Printer, Serving, Validation, Validator,
};
pub use catalog::catalog;

use crate::api::kinds::{
    AllocateStrategy, Allocated, CodecStrategy, Context, CreateStrategy, DeleteStrategy, GcPolicy,
    Identity, KindInfo, ResetFields, ResetFieldsStrategy, SchemaStrategy, Strategy, Subresource,
    TableConvertor, UpdateStrategy, ValidateStrategy, Validated, builtin_schema,
};
use crate::api::object::name_of;
use crate::api::status::{ApiError, Qualified};
use crate::api::table::Column;

/// How a kind's names are checked (`ValidateObjectMeta`'s name function).
#[derive(Clone, Copy, Debug)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`.
    DnsSubdomain,
    /// `ValidatePathSegmentName`: what every object's name must be (`rest.BeforeCreate`).
    PathSegment,
    /// `NameIsDNS1035Label` (Services).
    Dns1035Label,
}

impl NameRule {
    fn check(self) -> fn(&str, bool) -> Vec<String> {
        use crd_runtime::names;
        match self {
            NameRule::DnsSubdomain => names::dns_subdomain_name,
            NameRule::PathSegment => names::path_segment_name,
            NameRule::Dns1035Label => dns1035_name,
        }
    }
}

/// `NameIsDNS1035Label`; a `generateName` prefix may end in `-`.
fn dns1035_name(s: &str, prefix: bool) -> Vec<String> {
    use crd_runtime::names::dns1035_label;
    if prefix && s.len() > 1 && s.ends_with('-') {
        return dns1035_label(&format!("{}a", &s[..s.len() - 1]));
    }
    dns1035_label(s)
}

/// The finalizers core kinds know by their short names (`validateKubeFinalizerName`).
const STANDARD_FINALIZERS: [&str; 3] = ["kubernetes", "orphan", "foregroundDeletion"];

/// How a kind sharing another's storage reads and writes it (events.k8s.io/v1 Events
/// are stored as core/v1 Events).
pub trait Codec: Sync {
    /// The stored JSON in this kind's shape (`apiVersion` is set by the caller).
    fn from_stored(&self, obj: Value) -> Value;
    /// This kind's JSON in the stored shape.
    fn to_stored(&self, obj: &Value) -> Value;
}

/// A built-in kind's identity and rules.
pub struct Spec {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub verbs: &'static [&'static str],
    pub subresources: &'static [Subresource],
    /// Where its objects are stored (kube-apiserver's key prefix).
    pub prefix: &'static str,
    /// How objects are stored, when in another kind's shape.
    pub codec: Option<&'static dyn Codec>,
    /// The k8s-openapi definition (`io.k8s.api.core.v1.ConfigMap`).
    pub definition: &'static str,
    /// The name rule of the kind's own `ValidateObjectMeta` (`None`: its validation
    /// leaves metadata to the generic check).
    pub name_rule: Option<NameRule>,
    /// Field selector labels beyond `metadata.name`/`metadata.namespace`, with the
    /// dotted path each reads.
    pub field_selectors: &'static [(&'static str, &'static str)],
    pub behaviour: &'static dyn Behaviour,
}

/// The verbs of a built-in kind with every verb, as its discovery lists them.
pub(crate) const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// The verbs of a kind without `deletecollection` (Services, as kube-apiserver 1.37
/// lists them).
pub(crate) const ALL_BUT_COLLECTION: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];

/// No field selectors beyond `metadata.name` and `metadata.namespace`.
pub(crate) const NONE: &[(&str, &str)] = &[];

const CREATE: &[&str] = &["create"];

impl Spec {
    /// A cluster-scoped kind of `group`/v1 with every verb and nothing else: the
    /// catalogs start from it and set what differs (`Spec { .., ..Spec::v1(..) }`).
    pub(crate) const fn v1(
        group: &'static str,
        plural: &'static str,
        singular: &'static str,
        kind: &'static str,
        definition: &'static str,
        behaviour: &'static dyn Behaviour,
    ) -> Spec {
        Spec {
            group,
            version: "v1",
            plural,
            singular,
            kind,
            namespaced: false,
            short_names: &[],
            categories: &[],
            verbs: ALL_VERBS,
            subresources: &[],
            prefix: "",
            codec: None,
            definition,
            name_rule: None,
            field_selectors: NONE,
            behaviour,
        }
    }

    /// Create-only (the review kinds): never stored (no prefix), only `create` is
    /// served, and answered.
    pub(crate) const fn create_only(self) -> Spec {
        Spec {
            verbs: CREATE,
            ..self
        }
    }
}

/// A built-in kind in one release.
pub struct BuiltinKind {
    spec: &'static Spec,
    info: KindInfo,
    options: EngineOptions,
    /// Built on first use from the release's schema (most servers touch few kinds).
    decoding: OnceLock<Result<(Engine, JSONSchemaProps), String>>,
}

impl BuiltinKind {
    /// The kind of `spec` in the release `options` follows.
    pub fn new(spec: &'static Spec, options: EngineOptions) -> BuiltinKind {
        let info = KindInfo {
            q: Qualified {
                group: spec.group.into(),
                plural: spec.plural.into(),
                kind: spec.kind.into(),
            },
            version: spec.version.into(),
            singular: spec.singular.into(),
            list_kind: format!("{}List", spec.kind),
            namespaced: spec.namespaced,
            short_names: spec.short_names.iter().map(|s| s.to_string()).collect(),
            categories: spec.categories.iter().map(|s| s.to_string()).collect(),
            prefix: spec.prefix.into(),
            verbs: spec.verbs,
            subresources: spec.subresources.to_vec(),
            scale: spec.behaviour.scale(),
            warning: None,
        };
        BuiltinKind {
            spec,
            info,
            options,
            decoding: OnceLock::new(),
        }
    }

    fn decoding(&self) -> Result<&(Engine, JSONSchemaProps), ApiError> {
        self.decoding
            .get_or_init(|| {
                let schema = builtin_schema(self.options.kube_version, self.spec.definition)
                    .ok_or_else(|| format!("no schema for {}", self.spec.definition))?;
                let engine = Engine::for_schema_with(
                    Some(&schema),
                    SchemaOptions {
                        resource_root: true,
                    },
                    self.options,
                )
                .map_err(|e| e.to_string())?;
                Ok((engine, schema))
            })
            .as_ref()
            .map_err(|e| ApiError::internal(format!("{}: {e}", self.info.q.resource())))
    }

    fn validate_meta(
        &self,
        meta: &serde_json::Map<String, Value>,
        rule: NameRule,
        errs: &mut ErrorList,
    ) {
        let rules = MetaRules {
            namespace: if self.spec.namespaced {
                NamespaceRule::Required
            } else {
                NamespaceRule::Forbidden
            },
            name: rule.check(),
            name_optional: false,
        };
        validate_object_meta(meta, rules, &Path::new("metadata"), errs);
    }

    /// The generic part of `PrepareForUpdate`: the main endpoint keeps the status,
    /// `status` keeps the spec.
    fn prepare_endpoint(&self, new: &mut Value, old: &Value, sub: Subresource) {
        if !self.info.has_status() {
            return;
        }
        match sub {
            Subresource::Status => {
                let status = new.get("status").cloned();
                crate::api::object::copy_field(new, old, "spec");
                if let Value::Object(m) = new {
                    match status {
                        Some(s) => m.insert("status".into(), s),
                        None => m.remove("status"),
                    };
                }
            }
            _ => crate::api::object::copy_field(new, old, "status"),
        }
    }

    fn cannot_decode(&self, why: &str) -> ApiError {
        ApiError::bad_request(format!(
            "{kind} in version \"{v}\" cannot be handled as a {kind}: {why}",
            kind = self.spec.kind,
            v = self.spec.version
        ))
    }
}

impl Strategy for BuiltinKind {}

impl Identity for BuiltinKind {
    fn info(&self) -> &KindInfo {
        &self.info
    }
}

impl CreateStrategy for BuiltinKind {
    fn prepare_for_create(&self, obj: &mut Value) {
        if self.info.has_status()
            && let Value::Object(m) = obj
        {
            m.remove("status");
        }
        self.spec.behaviour.prepare(obj, None, Subresource::Main);
        self.spec.behaviour.prepare_for_create(obj);
    }

    fn answer_create(&self, obj: Value) -> Option<Result<Value, ApiError>> {
        if self.spec.verbs != ["create"] {
            return None;
        }
        let mut obj = obj;
        let answer = self.decode(&mut obj).and_then(|_| {
            let mut errs = ErrorList::new();
            self.spec.behaviour.validate(&obj, None, &mut errs);
            if !errs.is_empty() {
                return Err(ApiError::invalid(&self.info.q, name_of(&obj), &errs));
            }
            let mut answer = self
                .spec
                .behaviour
                .answer_create(&obj)
                .ok_or_else(ApiError::method_not_allowed_here)?;
            answer["apiVersion"] = json!(self.info.api_version());
            answer["kind"] = json!(self.spec.kind);
            Ok(answer)
        });
        Some(answer)
    }
}

impl UpdateStrategy for BuiltinKind {
    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Subresource) {
        self.spec.behaviour.prepare(new, Some(old), sub);
        self.prepare_endpoint(new, old, sub);
        self.spec.behaviour.prepare_for_update(new, old, sub);
    }

    fn allow_unconditional_update(&self) -> bool {
        true
    }
}

impl ValidateStrategy for BuiltinKind {
    fn validate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Validated<'a> {
        let (old, sub) = (cx.old, cx.sub);
        Box::pin(async move {
            let empty = serde_json::Map::new();
            let meta = obj
                .get("metadata")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let mut errs = ErrorList::new();
            if let Some(rule) = self.spec.name_rule {
                self.validate_meta(meta, rule, &mut errs);
                if self.spec.group.is_empty() {
                    kube_finalizers(meta, &mut errs);
                }
            }
            let cx = Validation {
                old,
                kube_version: self.options.kube_version,
                status: sub == Subresource::Status,
                sub,
            };
            self.spec.behaviour.validate_with(obj, &cx, &mut errs);
            // `rest.BeforeCreate`/`BeforeUpdate`: the generic ObjectMeta check runs only
            // when the kind's own validation passed.
            if errs.is_empty() {
                self.validate_meta(meta, NameRule::PathSegment, &mut errs);
            }
            if errs.is_empty() {
                Ok(Vec::new())
            } else {
                Err(ApiError::invalid(&self.info.q, name_of(obj), &errs))
            }
        })
    }
}

impl DeleteStrategy for BuiltinKind {
    fn default_gc_policy(&self) -> GcPolicy {
        self.spec.behaviour.default_gc_policy()
    }

    fn grace_period(&self, obj: &Value, requested: Option<i64>) -> Option<i64> {
        self.spec.behaviour.grace_period(obj, requested)
    }
}

impl ResetFieldsStrategy for BuiltinKind {
    fn reset_fields(&self, sub: Subresource) -> ResetFields {
        self.info.reset_fields(sub)
    }
}

impl TableConvertor for BuiltinKind {
    fn columns(&self) -> Vec<Column> {
        self.spec.behaviour.columns()
    }
}

impl CodecStrategy for BuiltinKind {
    fn decode_protobuf(&self, body: &[u8]) -> Option<Result<Value, ApiError>> {
        let message = crate::api::protobuf::message_for(self.spec.definition)?;
        Some(crate::api::protobuf::decode_object(
            body,
            self.spec.kind,
            message,
        ))
    }

    fn decode(&self, obj: &mut Value) -> Result<Vec<String>, ApiError> {
        let (engine, _) = self.decoding()?;
        let unknown = engine
            .decode(obj)
            .map_err(|errs| ApiError::invalid(&self.info.q, name_of(obj), &errs))?;
        self.spec
            .behaviour
            .decode(obj)
            .map_err(|why| self.cannot_decode(&why))?;
        Ok(unknown)
    }

    fn read_stored<'a>(
        &'a self,
        objects: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Value>, ApiError>> {
        let api_version = Value::String(self.info.api_version());
        let codec = self.spec.codec;
        Box::pin(async move {
            Ok(objects
                .into_iter()
                .map(|o| {
                    let mut o = match codec {
                        Some(c) => c.from_stored(o),
                        None => o,
                    };
                    if let Value::Object(m) = &mut o {
                        m.insert("apiVersion".into(), api_version.clone());
                    }
                    o
                })
                .collect())
        })
    }

    fn storage_form<'a>(
        &'a self,
        obj: &'a Value,
    ) -> BoxFuture<'a, Result<Option<Value>, ApiError>> {
        let stored = self.spec.codec.map(|c| c.to_stored(obj));
        Box::pin(async move { Ok(stored) })
    }
}

impl SchemaStrategy for BuiltinKind {
    fn selectable_fields(&self) -> Vec<(String, String)> {
        self.spec
            .field_selectors
            .iter()
            .map(|(label, path)| (label.to_string(), path.to_string()))
            .collect()
    }

    fn schema(&self) -> Option<&JSONSchemaProps> {
        self.decoding().ok().map(|(_, schema)| schema)
    }

    fn openapi_schema(&self) -> Value {
        self.schema()
            .and_then(|s| serde_json::to_value(s).ok())
            .unwrap_or(json!({"type": "object"}))
    }

    fn strategic_merge_definition(&self) -> Option<&'static str> {
        Some(self.spec.definition)
    }
}

impl AllocateStrategy for BuiltinKind {
    fn allocate<'a>(&'a self, cx: &'a Context<'a>, obj: &'a mut Value) -> Allocated<'a> {
        self.spec.behaviour.allocate(cx, obj)
    }

    fn release<'a>(&'a self, cx: &'a Context<'a>, obj: &'a Value) -> BoxFuture<'a, ()> {
        self.spec.behaviour.release(cx, obj)
    }
}

/// `validateKubeFinalizerName`: a finalizer without a `/` must be a standard one.
fn kube_finalizers(meta: &serde_json::Map<String, Value>, errs: &mut ErrorList) {
    let finalizers = meta.get("finalizers").and_then(Value::as_array);
    for (i, f) in finalizers.into_iter().flatten().enumerate() {
        let name = f.as_str().unwrap_or("");
        if !name.contains('/') && !STANDARD_FINALIZERS.contains(&name) {
            errs.push(FieldError::invalid(
                Path::new("metadata").child("finalizers").index(i),
                BadValue::Str(name.into()),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
}

/// `field.Forbidden(path, "field is immutable when `immutable` is set")` for each of
/// `fields` that changed, once `old` is immutable; and `immutable` cannot be unset.
fn immutable_data(new: &Value, old: &Value, fields: &[&str], errs: &mut ErrorList) {
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return;
    }
    let detail = "field is immutable when `immutable` is set";
    if new.get("immutable") != Some(&Value::Bool(true)) {
        errs.push(FieldError::forbidden(Path::new("immutable"), detail));
    }
    for f in fields {
        if new.get(*f) != old.get(*f) {
            errs.push(FieldError::forbidden(Path::new(f), detail));
        }
    }
}

/// `ValidateImmutableField`: `field is immutable` when the value changed.
fn immutable_field(new: &Value, old: &Value, pointer: &str, path: Path, errs: &mut ErrorList) {
    let n = new.pointer(pointer).unwrap_or(&Value::Null);
    if n != old.pointer(pointer).unwrap_or(&Value::Null) {
        errs.push(FieldError::invalid(
            path,
            BadValue::from_json(n),
            "field is immutable",
        ));
    }
}

/// Sets `field` to `value` when it is absent or empty (`SetDefaults_*`).
fn default_field(obj: &mut Value, field: &str, value: Value) {
    let missing = match obj.get(field) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    };
    if missing && obj.is_object() {
        obj[field] = value;
    }
}
