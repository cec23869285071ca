//! ObjectMeta handling (`objectmeta/{coerce,validation}.go` and apimachinery's
//! `ValidateObjectMeta`): root and embedded `metadata` are round-tripped through
//! the `ObjectMeta` type (unknown and empty fields disappear, timestamps are
//! normalized), embedded resources are checked for `apiVersion`, `kind` and valid
//! metadata.

use serde_json::{Map, Value};

use super::ResourceInfo;
use super::compiled::{Additional, CompiledSchema, NodeId};
use super::metadata::{is_normalized, normalize_meta, normalized};
use super::path::PathRef;
use crate::depth::MAX_DEPTH;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::names;

/// `objectmeta.Coerce`: type meta and metadata of the root (for a resource) and of
/// every embedded resource. Stops at the first error, like the API server.
pub(crate) struct Coercer<'s> {
    pub schema: &'s CompiledSchema,
    pub resource_root: bool,
    pub drop_invalid: bool,
}

impl Coercer<'_> {
    pub fn coerce(
        &self,
        v: &mut Value,
        id: Option<NodeId>,
        path: &PathRef<'_>,
    ) -> Result<(), FieldError> {
        let root_resource = path.depth() == 0 && self.resource_root;
        let Some(n) = self.schema.get(id) else {
            if root_resource && let Value::Object(map) = v {
                self.coerce_type_meta(map, path)?;
            }
            return Ok(());
        };
        if path.depth() > MAX_DEPTH || !(n.embedded_below || root_resource) {
            return Ok(());
        }
        match v {
            Value::Object(map) => {
                if n.embedded || root_resource {
                    self.coerce_type_meta(map, path)?;
                }
                for (k, child) in map.iter_mut() {
                    if let Some(c) = n.property(k) {
                        self.coerce(child, Some(c), &path.field(k))?;
                    } else if let Additional::Schema(c) = n.additional {
                        self.coerce(child, Some(c), &path.key(k))?;
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.coerce(item, n.items, &path.index(i))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn coerce_type_meta(
        &self,
        map: &mut Map<String, Value>,
        path: &PathRef<'_>,
    ) -> Result<(), FieldError> {
        for key in ["apiVersion", "kind"] {
            match map.get(key) {
                None | Some(Value::String(_)) => {}
                Some(_) if self.drop_invalid => {
                    map.remove(key);
                }
                Some(other) => {
                    return Err(FieldError::invalid(
                        path.k8s_path().child(key),
                        BadValue::from_json(other),
                        "must be a string",
                    ));
                }
            }
        }
        if let Some(meta) = map.get_mut("metadata") {
            if is_normalized(meta) {
                return Ok(());
            }
            match normalize_meta(meta, self.drop_invalid) {
                Ok(m) => *meta = m,
                // Storage reads pass malformed metadata through.
                Err(_) if self.drop_invalid => {}
                Err(e) => {
                    return Err(FieldError::invalid(
                        path.k8s_path().child("metadata"),
                        BadValue::from_json(meta),
                        e,
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `objectmeta.Validate`: every embedded resource (and the root when asked).
pub(crate) fn validate_embedded(
    schema: &CompiledSchema,
    v: &Value,
    id: Option<NodeId>,
    path: &PathRef<'_>,
    include_root: bool,
    errs: &mut ErrorList,
) {
    let Some(n) = schema.get(id) else { return };
    let root = include_root && path.depth() == 0;
    if path.depth() > MAX_DEPTH || !(n.embedded_below || root) {
        return;
    }
    match v {
        Value::Object(map) => {
            if n.embedded || root {
                validate_embedded_resource(&path.k8s_path(), map, errs);
            }
            for (k, child) in map {
                if let Some(c) = n.property(k) {
                    validate_embedded(schema, child, Some(c), &path.field(k), include_root, errs);
                } else if let Additional::Schema(c) = n.additional {
                    validate_embedded(schema, child, Some(c), &path.key(k), include_root, errs);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                validate_embedded(schema, item, n.items, &path.index(i), include_root, errs);
            }
        }
        _ => {}
    }
}

/// `schema.ParseGroupVersion`.
fn parse_group_version(gv: &str) -> Result<(), String> {
    if gv.matches('/').count() > 1 {
        Err(format!("unexpected GroupVersion string: {gv}"))
    } else {
        Ok(())
    }
}

/// The string at `path` when it is one and not empty; else the error, as the API server
/// words it for an embedded object's `apiVersion` and `kind`.
fn non_empty_string<'v>(path: Path, v: &'v Value, errs: &mut ErrorList) -> Option<&'v str> {
    match v.as_str() {
        None => errs.push(FieldError::invalid(
            path,
            BadValue::from_json(v),
            "must be a string",
        )),
        Some("") => errs.push(FieldError::invalid(
            path,
            BadValue::Str(String::new()),
            "must not be empty",
        )),
        Some(s) => return Some(s),
    }
    None
}

/// Checks one embedded object's `apiVersion`, `kind` and `metadata`.
pub fn validate_embedded_resource(path: &Path, x: &Map<String, Value>, errs: &mut ErrorList) {
    if !x.contains_key("apiVersion") {
        errs.push(FieldError::required(
            path.child("apiVersion"),
            "must not be empty",
        ));
    }
    if !x.contains_key("kind") {
        errs.push(FieldError::required(
            path.child("kind"),
            "must not be empty",
        ));
    }
    for (k, v) in x {
        match k.as_str() {
            "apiVersion" => {
                if let Some(gv) = non_empty_string(path.child(k), v, errs)
                    && let Err(e) = parse_group_version(gv)
                {
                    errs.push(FieldError::invalid(
                        path.child(k),
                        BadValue::Str(gv.into()),
                        e,
                    ));
                }
            }
            "kind" => {
                if let Some(kind) = non_empty_string(path.child(k), v, errs)
                    && let Some(message) = names::mixed_case_kind(kind)
                {
                    errs.push(FieldError::invalid(
                        path.child(k),
                        BadValue::Str(kind.into()),
                        message,
                    ));
                }
            }
            "metadata" => match normalized(v) {
                Err(e) => errs.push(FieldError::invalid(
                    path.child("metadata"),
                    BadValue::from_json(v),
                    e,
                )),
                Ok(std::borrow::Cow::Borrowed(Value::Object(meta))) => {
                    embedded_meta(meta, path, errs)
                }
                Ok(std::borrow::Cow::Owned(Value::Object(meta))) => {
                    embedded_meta(&meta, path, errs)
                }
                Ok(_) => {}
            },
            _ => {}
        }
    }
}

fn embedded_meta(meta: &Map<String, Value>, path: &Path, errs: &mut ErrorList) {
    // An embedded object only has a namespace when it says so.
    let namespace = if meta.contains_key("namespace") {
        NamespaceRule::Required
    } else {
        NamespaceRule::Forbidden
    };
    let rules = MetaRules {
        namespace,
        name: names::path_segment_name,
        name_optional: true,
    };
    object_meta_errors(meta, rules, &|| path.child("metadata"), errs);
}

/// How `metadata.namespace` is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamespaceRule {
    /// Must be present and a valid RFC 1123 label.
    Required,
    /// Validated when present (a namespaced resource read from a manifest: the
    /// request URL usually supplies the namespace).
    Optional,
    /// Must be absent (cluster-scoped).
    Forbidden,
}

/// Parameters of [`validate_object_meta`].
#[derive(Clone, Copy)]
pub struct MetaRules {
    /// Namespace handling.
    pub namespace: NamespaceRule,
    /// The name validation function (`(name, is_prefix) -> messages`).
    pub name: fn(&str, bool) -> Vec<String>,
    /// Embedded objects may omit the name.
    pub name_optional: bool,
}

/// apimachinery's `ValidateObjectMeta` on a normalized metadata object.
pub fn validate_object_meta(
    meta: &Map<String, Value>,
    rules: MetaRules,
    path: &Path,
    errs: &mut ErrorList,
) {
    object_meta_errors(meta, rules, &|| path.clone(), errs);
}

/// [`validate_object_meta`] with the path built only for an error (a path per object
/// was most of the allocations of admitting a valid one).
fn object_meta_errors(
    meta: &Map<String, Value>,
    rules: MetaRules,
    path: &dyn Fn() -> Path,
    errs: &mut ErrorList,
) {
    let fields = MetaFields::of(meta);
    let generate_name = fields.generate_name;
    if !generate_name.is_empty() {
        for m in (rules.name)(generate_name, true) {
            errs.push(FieldError::invalid(
                path().child("generateName"),
                BadValue::Str(generate_name.into()),
                m,
            ));
        }
    }
    let name = fields.name;
    if name.is_empty() {
        if !rules.name_optional && generate_name.is_empty() {
            errs.push(FieldError::required(
                path().child("name"),
                "name or generateName is required",
            ));
        }
    } else {
        for m in (rules.name)(name, false) {
            errs.push(FieldError::invalid(
                path().child("name"),
                BadValue::Str(name.into()),
                m,
            ));
        }
    }
    let ns = fields.namespace;
    match rules.namespace {
        NamespaceRule::Required if ns.is_empty() => {
            errs.push(FieldError::required(path().child("namespace"), ""));
        }
        NamespaceRule::Required | NamespaceRule::Optional if !ns.is_empty() => {
            for m in names::dns1123_label(ns) {
                errs.push(FieldError::invalid(
                    path().child("namespace"),
                    BadValue::Str(ns.into()),
                    m,
                ));
            }
        }
        NamespaceRule::Forbidden if !ns.is_empty() => {
            errs.push(FieldError::forbidden(
                path().child("namespace"),
                "not allowed on this type",
            ));
        }
        _ => {}
    }
    if let Some(g) = fields.generation.and_then(Value::as_i64)
        && g < 0
    {
        errs.push(FieldError::invalid(
            path().child("generation"),
            BadValue::Int(g),
            "must be greater than or equal to 0",
        ));
    }
    if let Some(Value::Object(labels)) = fields.labels {
        let lp = || path().child("labels");
        for (k, v) in labels {
            for m in names::qualified_name(k) {
                errs.push(FieldError::invalid(lp(), BadValue::Str(k.clone()), m));
            }
            let v = v.as_str().unwrap_or("");
            for m in names::label_value(v) {
                errs.push(FieldError::invalid(lp(), BadValue::Str(v.into()), m));
            }
        }
    }
    if let Some(Value::Object(ann)) = fields.annotations {
        let ap = || path().child("annotations");
        let mut total = 0usize;
        for (k, v) in ann {
            let lower = if k.bytes().any(|b| b.is_ascii_uppercase()) || !k.is_ascii() {
                std::borrow::Cow::Owned(k.to_lowercase())
            } else {
                std::borrow::Cow::Borrowed(k.as_str())
            };
            for m in names::qualified_name(&lower) {
                errs.push(FieldError::invalid(ap(), BadValue::Str(k.clone()), m));
            }
            total += k.len() + v.as_str().map_or(0, str::len);
        }
        const LIMIT: i64 = 256 * 1024;
        if total as i64 > LIMIT {
            errs.push(FieldError::too_long(ap(), LIMIT));
        }
    }
    if let Some(Value::Array(fins)) = fields.finalizers {
        let fp = || path().child("finalizers");
        for f in fins {
            let f = f.as_str().unwrap_or("");
            for m in names::qualified_name(f) {
                errs.push(FieldError::invalid(fp(), BadValue::Str(f.into()), m));
            }
        }
    }
    if let Some(Value::Array(owners)) = fields.owner_references {
        let op = || path().child("ownerReferences");
        let mut controllers = 0;
        for o in owners {
            for (key, what) in [("kind", "kind"), ("name", "name"), ("uid", "uid")] {
                let s = o.get(key).and_then(Value::as_str).unwrap_or("");
                if s.is_empty() {
                    errs.push(FieldError::invalid(
                        op().child(key),
                        BadValue::Str(String::new()),
                        format!("{what} must not be empty"),
                    ));
                }
            }
            let av = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
            if av.is_empty() {
                errs.push(FieldError::invalid(
                    op().child("apiVersion"),
                    BadValue::Str(String::new()),
                    "version must not be empty",
                ));
            }
            if o.get("controller") == Some(&Value::Bool(true)) {
                controllers += 1;
            }
        }
        if controllers > 1 {
            errs.push(FieldError::invalid(
                op(),
                BadValue::Json(Value::Array(owners.clone())),
                "Only one reference can have Controller set to true",
            ));
        }
    }
}

/// The metadata fields [`validate_object_meta`] reads, found in one pass over the
/// map (a lookup each compared strings at every level of the tree, for every object).
#[derive(Default)]
struct MetaFields<'a> {
    generate_name: &'a str,
    name: &'a str,
    namespace: &'a str,
    generation: Option<&'a Value>,
    labels: Option<&'a Value>,
    annotations: Option<&'a Value>,
    finalizers: Option<&'a Value>,
    owner_references: Option<&'a Value>,
}

impl<'a> MetaFields<'a> {
    fn of(meta: &'a Map<String, Value>) -> Self {
        let mut f = MetaFields::default();
        let text = |v: &'a Value| v.as_str().unwrap_or("");
        for (k, v) in meta {
            match k.as_str() {
                "generateName" => f.generate_name = text(v),
                "name" => f.name = text(v),
                "namespace" => f.namespace = text(v),
                "generation" => f.generation = Some(v),
                "labels" => f.labels = Some(v),
                "annotations" => f.annotations = Some(v),
                "finalizers" => f.finalizers = Some(v),
                "ownerReferences" => f.owner_references = Some(v),
                _ => {}
            }
        }
        f
    }
}

/// `ValidateTypeMeta`: the object is of this resource's kind and version.
pub(crate) fn type_meta_errors(res: &ResourceInfo, v: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != res.kind {
        errs.push(FieldError::invalid(
            Path::new("kind"),
            BadValue::Str(kind.into()),
            format!("must be {}", res.kind),
        ));
    }
    let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if !res.is_api_version(api_version) {
        errs.push(FieldError::invalid(
            Path::new("apiVersion"),
            BadValue::Str(api_version.into()),
            format!("must be {}", res.api_version()),
        ));
    }
    errs
}

/// `ValidateObjectMetaAccessor` for the object's own metadata.
/// The root's ObjectMeta errors. `normalized_already`: an admission's coercion
/// normalized the metadata just before, so it is not checked again.
pub(crate) fn root_meta_errors(
    res: &ResourceInfo,
    v: &Value,
    normalized_already: bool,
    errs: &mut ErrorList,
) {
    let empty = Value::Object(serde_json::Map::new());
    let owned;
    let meta = match v.get("metadata") {
        None | Some(Value::Null) => &empty,
        Some(m) if normalized_already => m,
        Some(m) => match normalized(m) {
            Ok(m) => {
                owned = m;
                &*owned
            }
            Err(e) => {
                errs.push(FieldError::invalid(
                    Path::new("metadata"),
                    BadValue::from_json(m),
                    e,
                ));
                return;
            }
        },
    };
    let rules = MetaRules {
        // The namespace usually comes from the request URL, so it is not required here.
        namespace: if res.namespaced {
            NamespaceRule::Optional
        } else {
            NamespaceRule::Forbidden
        },
        name: names::dns_subdomain_name,
        name_optional: false,
    };
    if let Value::Object(meta) = meta {
        object_meta_errors(meta, rules, &|| Path::new("metadata"), errs);
    }
}
