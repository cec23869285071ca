//! ObjectMeta handling (`objectmeta/{coerce,validation}.go` and apimachinery's
//! `ValidateObjectMeta`): root and embedded `metadata` are round-tripped through
//! the `ObjectMeta` type (unknown and empty fields disappear, timestamps are
//! normalized), embedded resources are checked for `apiVersion`, `kind` and valid
//! metadata.

use serde_json::{Map, Value};

use super::compiled::{Additional, CompiledSchema, NodeId};
use super::formats::{format_rfc3339, parse_rfc3339};
use super::names;
use super::path::PathRef;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::load::MAX_DEPTH;

fn json_kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(n) => format!("number {n}"),
        Value::String(_) => "string".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

fn type_error(field: &str, v: &Value, go_type: &str) -> String {
    let kind = match v {
        Value::Number(_) if go_type == "string" => "number".to_string(),
        other => json_kind(other),
    };
    format!(
        "json: cannot unmarshal {kind} into Go struct field ObjectMeta.{field} of type {go_type}"
    )
}

fn string_field(field: &str, v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(_) => Ok(Some(v.clone())),
        other => Err(type_error(field, other, "string")),
    }
}

fn time_field(field: &str, v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => match parse_rfc3339(s) {
            Some(t) => Ok(Some(Value::String(format_rfc3339(t)))),
            None => Err(format!(
                "parsing time {} as \"2006-01-02T15:04:05Z07:00\": cannot parse {} as \"2006\"",
                crate::field::go_quote(s),
                crate::field::go_quote(s)
            )),
        },
        other => Err(type_error(field, other, "string")),
    }
}

fn int_field(field: &str, v: &Value, keep_zero: bool) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_i64() {
            Some(0) if !keep_zero => Ok(None),
            Some(_) => Ok(Some(v.clone())),
            None => Err(type_error(field, v, "int64")),
        },
        other => Err(type_error(field, other, "int64")),
    }
}

fn string_map(field: &str, v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, val) in m {
                let s = match val {
                    Value::Null => String::new(),
                    Value::String(s) => s.clone(),
                    other => return Err(type_error(field, other, "string")),
                };
                out.insert(k.clone(), Value::String(s));
            }
            Ok((!out.is_empty()).then_some(Value::Object(out)))
        }
        other => Err(type_error(field, other, "map[string]string")),
    }
}

fn object_list(
    field: &str,
    v: &Value,
    item: impl Fn(&Map<String, Value>) -> Result<Map<String, Value>, String>,
) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                match it {
                    Value::Null => out.push(Value::Object(item(&Map::new())?)),
                    Value::Object(m) => out.push(Value::Object(item(m)?)),
                    other => return Err(type_error(field, other, "object")),
                }
            }
            Ok((!out.is_empty()).then_some(Value::Array(out)))
        }
        other => Err(type_error(field, other, "array")),
    }
}

fn owner_reference(m: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for key in ["apiVersion", "kind", "name", "uid"] {
        let s = match m.get(key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(type_error(
                    &format!("ownerReferences.{key}"),
                    other,
                    "string",
                ));
            }
        };
        out.insert(key.to_string(), Value::String(s));
    }
    for key in ["controller", "blockOwnerDeletion"] {
        match m.get(key) {
            None | Some(Value::Null) => {}
            Some(b @ Value::Bool(_)) => {
                out.insert(key.to_string(), b.clone());
            }
            Some(other) => {
                return Err(type_error(&format!("ownerReferences.{key}"), other, "bool"));
            }
        }
    }
    Ok(out)
}

fn managed_field(m: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for (k, v) in m {
        let f = format!("managedFields.{k}");
        let nv = match k.as_str() {
            "manager" | "operation" | "apiVersion" | "fieldsType" | "subresource" => {
                string_field(&f, v)?
            }
            "time" => time_field(&f, v)?,
            "fieldsV1" => (!v.is_null()).then(|| v.clone()),
            _ => None,
        };
        if let Some(nv) = nv {
            out.insert(k.clone(), nv);
        }
    }
    Ok(out)
}

fn finalizers(v: &Value) -> Result<Option<Value>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for it in items {
                match it {
                    Value::Null => out.push(Value::String(String::new())),
                    Value::String(_) => out.push(it.clone()),
                    other => return Err(type_error("finalizers", other, "string")),
                }
            }
            Ok((!out.is_empty()).then_some(Value::Array(out)))
        }
        other => Err(type_error("finalizers", other, "[]string")),
    }
}

/// One `ObjectMeta` field after a JSON round trip (`None`: empty or unknown, dropped).
fn meta_field(k: &str, v: &Value) -> Result<Option<Value>, String> {
    match k {
        "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" => {
            string_field(k, v)
        }
        "generation" => int_field(k, v, false),
        "deletionGracePeriodSeconds" => int_field(k, v, true),
        "creationTimestamp" | "deletionTimestamp" => time_field(k, v),
        "labels" | "annotations" => string_map(k, v),
        "ownerReferences" => object_list(k, v, owner_reference),
        "finalizers" => finalizers(v),
        "managedFields" => object_list(k, v, managed_field),
        _ => Ok(None),
    }
}

/// Round-trips `metadata` through `ObjectMeta`. With `drop_invalid`, fields that do
/// not decode are dropped one by one instead of failing the whole object.
pub(crate) fn normalize_meta(v: &Value, drop_invalid: bool) -> Result<Value, String> {
    let m = match v {
        Value::Object(m) => m,
        Value::Null => return Ok(Value::Object(Map::new())),
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
                json_kind(other)
            ));
        }
    };
    let mut out = Map::new();
    for (k, val) in m {
        match meta_field(k, val) {
            Ok(Some(nv)) => {
                out.insert(k.clone(), nv);
            }
            Ok(None) => {}
            Err(_) if drop_invalid => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Value::Object(out))
}

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
        if path.depth() > MAX_DEPTH || !(n.structural_checks_below || root_resource) {
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
    if path.depth() > MAX_DEPTH || !(n.structural_checks_below || root) {
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
            "apiVersion" => match v.as_str() {
                None => errs.push(FieldError::invalid(
                    path.child(k),
                    BadValue::from_json(v),
                    "must be a string",
                )),
                Some("") => errs.push(FieldError::invalid(
                    path.child(k),
                    BadValue::Str(String::new()),
                    "must not be empty",
                )),
                Some(gv) => {
                    if let Err(e) = parse_group_version(gv) {
                        errs.push(FieldError::invalid(
                            path.child(k),
                            BadValue::Str(gv.into()),
                            e,
                        ));
                    }
                }
            },
            "kind" => match v.as_str() {
                None => errs.push(FieldError::invalid(
                    path.child(k),
                    BadValue::from_json(v),
                    "must be a string",
                )),
                Some("") => errs.push(FieldError::invalid(
                    path.child(k),
                    BadValue::Str(String::new()),
                    "must not be empty",
                )),
                Some(kind) => {
                    let msgs = names::dns1035_label(&kind.to_lowercase());
                    if !msgs.is_empty() {
                        errs.push(FieldError::invalid(
                            path.child(k),
                            BadValue::Str(kind.into()),
                            format!(
                                "may have mixed case, but should otherwise match: {}",
                                msgs.join(",")
                            ),
                        ));
                    }
                }
            },
            "metadata" => match normalize_meta(v, false) {
                Err(e) => errs.push(FieldError::invalid(
                    path.child("metadata"),
                    BadValue::from_json(v),
                    e,
                )),
                Ok(Value::Object(meta)) => {
                    let requires_ns = meta.get("namespace").is_some();
                    validate_object_meta(
                        &meta,
                        MetaRules {
                            namespace: if requires_ns {
                                NamespaceRule::Required
                            } else {
                                NamespaceRule::Forbidden
                            },
                            name: names::path_segment_name,
                            name_optional: true,
                        },
                        &path.child("metadata"),
                        errs,
                    );
                }
                Ok(_) => {}
            },
            _ => {}
        }
    }
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

fn str_of<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

/// apimachinery's `ValidateObjectMeta` on a normalized metadata object.
pub fn validate_object_meta(
    meta: &Map<String, Value>,
    rules: MetaRules,
    path: &Path,
    errs: &mut ErrorList,
) {
    let generate_name = str_of(meta, "generateName");
    if !generate_name.is_empty() {
        for m in (rules.name)(generate_name, true) {
            errs.push(FieldError::invalid(
                path.child("generateName"),
                BadValue::Str(generate_name.into()),
                m,
            ));
        }
    }
    let name = str_of(meta, "name");
    if name.is_empty() {
        if !rules.name_optional && generate_name.is_empty() {
            errs.push(FieldError::required(
                path.child("name"),
                "name or generateName is required",
            ));
        }
    } else {
        for m in (rules.name)(name, false) {
            errs.push(FieldError::invalid(
                path.child("name"),
                BadValue::Str(name.into()),
                m,
            ));
        }
    }
    let ns = str_of(meta, "namespace");
    match rules.namespace {
        NamespaceRule::Required if ns.is_empty() => {
            errs.push(FieldError::required(path.child("namespace"), ""));
        }
        NamespaceRule::Required | NamespaceRule::Optional if !ns.is_empty() => {
            for m in names::dns1123_label(ns) {
                errs.push(FieldError::invalid(
                    path.child("namespace"),
                    BadValue::Str(ns.into()),
                    m,
                ));
            }
        }
        NamespaceRule::Forbidden if !ns.is_empty() => {
            errs.push(FieldError::forbidden(
                path.child("namespace"),
                "not allowed on this type",
            ));
        }
        _ => {}
    }
    if let Some(g) = meta.get("generation").and_then(Value::as_i64)
        && g < 0
    {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(g),
            "must be greater than or equal to 0",
        ));
    }
    if let Some(Value::Object(labels)) = meta.get("labels") {
        let lp = path.child("labels");
        for (k, v) in labels {
            for m in names::qualified_name(k) {
                errs.push(FieldError::invalid(lp.clone(), BadValue::Str(k.clone()), m));
            }
            let v = v.as_str().unwrap_or("");
            for m in names::label_value(v) {
                errs.push(FieldError::invalid(lp.clone(), BadValue::Str(v.into()), m));
            }
        }
    }
    if let Some(Value::Object(ann)) = meta.get("annotations") {
        let ap = path.child("annotations");
        let mut total = 0usize;
        for (k, v) in ann {
            for m in names::qualified_name(&k.to_lowercase()) {
                errs.push(FieldError::invalid(ap.clone(), BadValue::Str(k.clone()), m));
            }
            total += k.len() + v.as_str().map_or(0, str::len);
        }
        const LIMIT: i64 = 256 * 1024;
        if total as i64 > LIMIT {
            errs.push(FieldError::too_long(ap, LIMIT));
        }
    }
    if let Some(Value::Array(fins)) = meta.get("finalizers") {
        let fp = path.child("finalizers");
        for f in fins {
            let f = f.as_str().unwrap_or("");
            for m in names::qualified_name(f) {
                errs.push(FieldError::invalid(fp.clone(), BadValue::Str(f.into()), m));
            }
        }
    }
    if let Some(Value::Array(owners)) = meta.get("ownerReferences") {
        let op = path.child("ownerReferences");
        let mut controllers = 0;
        for o in owners {
            for (key, what) in [("kind", "kind"), ("name", "name"), ("uid", "uid")] {
                let s = o.get(key).and_then(Value::as_str).unwrap_or("");
                if s.is_empty() {
                    errs.push(FieldError::invalid(
                        op.child(key),
                        BadValue::Str(String::new()),
                        format!("{what} must not be empty"),
                    ));
                }
            }
            let av = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
            if av.is_empty() {
                errs.push(FieldError::invalid(
                    op.child("apiVersion"),
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
                op,
                BadValue::Json(Value::Array(owners.clone())),
                "Only one reference can have Controller set to true",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_round_trip_drops_unknown_and_empty() {
        let m = normalize_meta(
            &json!({"name": "a", "unknown": 1, "labels": {}, "generation": 0,
                    "creationTimestamp": "2024-01-02T03:04:05.9+01:00", "namespace": null}),
            false,
        )
        .unwrap();
        assert_eq!(
            m,
            json!({"name": "a", "creationTimestamp": "2024-01-02T02:04:05Z"})
        );
        let e = normalize_meta(&json!({"namespace": ["abc"]}), false).unwrap_err();
        assert!(e.contains("cannot unmarshal array"), "{e}");
        let m = normalize_meta(&json!({"name": "x", "namespace": ["abc"]}), true).unwrap();
        assert_eq!(m, json!({"name": "x"}));
    }
}
