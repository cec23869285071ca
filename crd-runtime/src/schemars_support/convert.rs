//! schemars' JSON Schema (draft 2020-12) → a structural OpenAPI v3 CRD schema.
//!
//! What the API server accepts differs from what schemars writes in a few ways, each
//! rewritten here or refused with the path of the node:
//! - `$ref`s are inlined (a type that contains itself cannot be: error);
//! - `type: [X, "null"]` and an `anyOf`/`oneOf` member `{type: null}` become `nullable`;
//! - `const` becomes a one-value `enum`; `oneOf` of `const`s (unit enums with docs) an
//!   `enum`; `examples` the first `example`;
//! - an `anyOf`/`oneOf` of objects (tagged enums) is hoisted: every property on the node,
//!   the alternatives kept as `required` junctors, as structural schemas demand;
//! - draft 2020-12's numeric `exclusiveMinimum`/`exclusiveMaximum` become OpenAPI's
//!   `minimum` + `exclusiveMinimum: true`;
//! - `uniqueItems: true` (refused by the API server) becomes `x-kubernetes-list-type: set`
//!   for scalar items;
//! - `additionalProperties: false` is dropped (pruning already removes unknown fields),
//!   `true` and the schema `true` (serde_json::Value) keep unknown fields;
//! - keywords the API server does not know (`if`, `patternProperties`, `prefixItems`,
//!   `propertyNames`, ...) are errors rather than silently dropped constraints.
//!
//! Formats are kept as written: the API server keeps unknown formats and validates only
//! the ones it knows, and crd-runtime's engine does the same.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// Why a schemars schema cannot be a structural CRD schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemarsError {
    /// The node, as a JSON path from the field (`.spec.mode`; empty for the field itself).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for SchemarsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.path.is_empty() {
            "."
        } else {
            &self.path
        };
        write!(f, "at {at}: {}", self.message)
    }
}

impl std::error::Error for SchemarsError {}

/// Keywords that carry only documentation or schemars bookkeeping.
const DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// Keywords copied as they are.
const KEPT: &[&str] = &[
    "description",
    "title",
    "format",
    "default",
    "enum",
    "minimum",
    "maximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

pub(crate) struct Converter<'a> {
    defs: &'a Map<String, Value>,
    /// The root type's name (`$ref: "#"` is a reference back to it).
    root: String,
    /// Definitions being inlined, to refuse recursion.
    stack: Vec<String>,
}

impl<'a> Converter<'a> {
    pub(crate) fn new(defs: &'a Map<String, Value>, root: &str) -> Self {
        Converter {
            defs,
            root: root.to_string(),
            stack: vec![root.to_string()],
        }
    }

    fn error(path: &str, message: impl Into<String>) -> SchemarsError {
        SchemarsError {
            path: path.to_string(),
            message: message.into(),
        }
    }

    /// The structural form of `schema` at `path`.
    pub(crate) fn convert(&mut self, schema: &Value, path: &str) -> Result<Value, SchemarsError> {
        let map = match schema {
            Value::Bool(true) => return Ok(json!({"x-kubernetes-preserve-unknown-fields": true})),
            Value::Bool(false) => {
                return Err(Self::error(path, "the schema `false` accepts no value"));
            }
            Value::Object(map) => map,
            _ => return Err(Self::error(path, "not a schema")),
        };
        let mut map = map.clone();
        if let Some(target) = map.remove("$ref") {
            return self.inline_ref(&target, map, path);
        }
        let mut out = Map::new();
        let mut nullable = false;

        if let Some(ty) = map.remove("type") {
            let types: Vec<&str> = match &ty {
                Value::String(s) => vec![s.as_str()],
                Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                _ => return Err(Self::error(path, "`type` is neither a string nor a list")),
            };
            nullable |= types.contains(&"null");
            let real: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
            match real.as_slice() {
                [] => return Err(Self::error(path, "only `null` is allowed here")),
                [one] => {
                    out.insert("type".into(), json!(one));
                }
                [a, b] if [*a, *b].contains(&"integer") && [*a, *b].contains(&"string") => {
                    out.insert("x-kubernetes-int-or-string".into(), json!(true));
                }
                many => {
                    return Err(Self::error(
                        path,
                        format!(
                            "a value of several types ({}) has no structural schema",
                            many.join(", ")
                        ),
                    ));
                }
            }
        }
        if let Some(value) = map.remove("const") {
            out.insert("enum".into(), json!([value]));
        }
        if let Some(examples) = map.remove("examples")
            && let Some(first) = examples.as_array().and_then(|e| e.first())
        {
            out.insert("example".into(), first.clone());
        }
        for (key, exclusive, bound) in [
            ("exclusiveMinimum", "exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "exclusiveMaximum", "maximum"),
        ] {
            match map.remove(key) {
                Some(Value::Number(n)) => {
                    out.insert(bound.into(), Value::Number(n));
                    out.insert(exclusive.into(), json!(true));
                }
                Some(Value::Bool(b)) => {
                    out.insert(exclusive.into(), json!(b));
                }
                Some(_) => return Err(Self::error(path, format!("`{key}` is not a number"))),
                None => {}
            }
        }
        if let Some(properties) = map.remove("properties") {
            let properties = properties
                .as_object()
                .ok_or_else(|| Self::error(path, "`properties` is not an object"))?;
            let mut converted = Map::new();
            for (name, property) in properties {
                converted.insert(
                    name.clone(),
                    self.convert(property, &format!("{path}.{name}"))?,
                );
            }
            out.insert("properties".into(), Value::Object(converted));
            out.entry("type").or_insert(json!("object"));
        }
        if let Some(required) = map.remove("required") {
            out.insert("required".into(), required);
        }
        match map.remove("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                out.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
            }
            Some(schema) => {
                let values = self.convert(&schema, &format!("{path}.*"))?;
                out.insert("additionalProperties".into(), values);
                out.entry("type").or_insert(json!("object"));
            }
        }
        if let Some(items) = map.remove("items") {
            if items.is_array() {
                return Err(Self::error(
                    path,
                    "tuple items (a list per position) are not structural",
                ));
            }
            let items = self.convert(&items, &format!("{path}[*]"))?;
            out.insert("items".into(), items);
            out.entry("type").or_insert(json!("array"));
        }
        if map.remove("uniqueItems") == Some(json!(true)) {
            let scalar = out
                .get("items")
                .and_then(|i| i.get("type"))
                .and_then(Value::as_str)
                .is_some_and(|t| matches!(t, "string" | "integer" | "number" | "boolean"));
            if !scalar {
                return Err(Self::error(
                    path,
                    "`uniqueItems` (a set) is refused by the API server; only a set of scalars can become `x-kubernetes-list-type: set`",
                ));
            }
            out.insert("x-kubernetes-list-type".into(), json!("set"));
        }
        for junctor in ["oneOf", "anyOf"] {
            if let Some(alternatives) = map.remove(junctor) {
                nullable |= self.junctor(junctor, &alternatives, &mut out, path)?;
            }
        }
        if let Some(all) = map.remove("allOf") {
            for (i, part) in all.as_array().into_iter().flatten().enumerate() {
                let part = self.convert(part, path)?;
                merge_into(&mut out, part, &format!("{path} (allOf[{i}])"))?;
            }
        }
        for (key, value) in map {
            if DROPPED.contains(&key.as_str()) {
                continue;
            }
            if KEPT.contains(&key.as_str()) {
                out.insert(key, value);
                continue;
            }
            return Err(Self::error(
                path,
                format!("`{key}` has no equivalent in a CRD schema; the constraint would be lost"),
            ));
        }
        if nullable {
            out.insert("nullable".into(), json!(true));
        }
        if out.keys().all(|k| {
            k == "description"
                || k == "title"
                || k == "nullable"
                || k == "default"
                || k == "example"
        }) {
            // `{}`: any value, as for `serde_json::Value`.
            out.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        Ok(Value::Object(out))
    }

    fn inline_ref(
        &mut self,
        target: &Value,
        siblings: Map<String, Value>,
        path: &str,
    ) -> Result<Value, SchemarsError> {
        let target = target.as_str().unwrap_or_default();
        let name = match target {
            "#" => self.root.clone(),
            _ => target.rsplit('/').next().unwrap_or(target).to_string(),
        };
        if self.stack.contains(&name) {
            return Err(Self::error(
                path,
                format!(
                    "`{name}` contains itself; a recursive type has no structural schema (give the field `schema_with` or `x-kubernetes-preserve-unknown-fields`)"
                ),
            ));
        }
        let Some(definition) = self.defs.get(&name) else {
            return Err(Self::error(
                path,
                format!("`$ref` to `{target}`, which is not defined"),
            ));
        };
        self.stack.push(name);
        let inlined = self.convert(definition, path);
        self.stack.pop();
        let mut inlined = inlined?;
        // The field's own keywords (its description) win over the type's.
        let siblings = self.convert(&Value::Object(siblings), path)?;
        if let (Value::Object(out), Value::Object(extra)) = (&mut inlined, siblings) {
            for (key, value) in extra {
                if key != "x-kubernetes-preserve-unknown-fields" {
                    out.insert(key, value);
                }
            }
        }
        Ok(inlined)
    }

    /// `oneOf`/`anyOf`: null members → nullable (returned), `const`s → `enum`, one
    /// member → merged, objects → hoisted properties with `required` junctors.
    fn junctor(
        &mut self,
        junctor: &str,
        alternatives: &Value,
        out: &mut Map<String, Value>,
        path: &str,
    ) -> Result<bool, SchemarsError> {
        let alternatives = alternatives
            .as_array()
            .ok_or_else(|| Self::error(path, format!("`{junctor}` is not a list")))?;
        let is_null = |v: &Value| {
            v.get("type") == Some(&json!("null")) || v.get("const") == Some(&Value::Null)
        };
        let nullable = alternatives.iter().any(is_null);
        let members: Vec<Value> = alternatives
            .iter()
            .filter(|v| !is_null(v))
            .enumerate()
            .map(|(i, v)| {
                self.convert(v, path).map_err(|e| SchemarsError {
                    message: format!("{junctor}[{i}]: {}", e.message),
                    ..e
                })
            })
            .collect::<Result<_, _>>()?;
        match members.as_slice() {
            [] => {}
            [one] => merge_into(out, one.clone(), path)?,
            many if many.iter().all(|m| {
                m.get("enum")
                    .is_some_and(|e| e.as_array().is_some_and(|a| a.len() == 1))
            }) =>
            {
                let values: Vec<Value> = many.iter().map(|m| m["enum"][0].clone()).collect();
                let kinds: BTreeSet<&str> = values.iter().map(json_kind).collect();
                if let [kind] = kinds.into_iter().collect::<Vec<_>>().as_slice() {
                    out.entry("type").or_insert(json!(kind));
                }
                out.insert("enum".into(), Value::Array(values));
            }
            many if many.iter().all(|m| m.get("type") == Some(&json!("object"))) => {
                let mut hoisted = Map::new();
                let mut requireds = Vec::new();
                for member in many {
                    let mut member = member.as_object().cloned().unwrap_or_default();
                    let required = member.remove("required");
                    member.remove("description");
                    member.remove("title");
                    merge_into(&mut hoisted, Value::Object(member), path)?;
                    requireds.push(json!({"required": required.unwrap_or(json!([]))}));
                }
                merge_into(out, Value::Object(hoisted), path)?;
                // Only alternatives with required fields tell the members apart.
                if requireds
                    .iter()
                    .all(|r| r["required"].as_array().is_some_and(|a| !a.is_empty()))
                {
                    out.insert(junctor.into(), Value::Array(requireds));
                }
            }
            _ => {
                return Err(Self::error(
                    path,
                    format!(
                        "`{junctor}` of alternatives with different types has no structural schema (an untagged enum of mixed kinds)"
                    ),
                ));
            }
        }
        Ok(nullable)
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

/// Merges `part` into `out`; the same property with different schemas is an error.
fn merge_into(out: &mut Map<String, Value>, part: Value, path: &str) -> Result<(), SchemarsError> {
    let Value::Object(part) = part else {
        return Ok(());
    };
    for (key, value) in part {
        match (key.as_str(), out.get_mut(&key)) {
            ("properties", Some(Value::Object(existing))) => {
                for (name, schema) in value.as_object().cloned().unwrap_or_default() {
                    let Some(old) = existing.get_mut(&name) else {
                        existing.insert(name, schema);
                        continue;
                    };
                    // A tag: each alternative allows its own value.
                    if !union_enums(old, &schema) && strip_docs(old) != strip_docs(&schema) {
                        return Err(Converter::error(
                            &format!("{path}.{name}"),
                            "the alternatives give this property different schemas; a structural schema has one",
                        ));
                    }
                }
            }
            ("required", Some(Value::Array(existing))) => {
                for name in value.as_array().cloned().unwrap_or_default() {
                    if !existing.contains(&name) {
                        existing.push(name);
                    }
                }
            }
            (_, Some(existing)) if *existing != value && key != "description" && key != "title" => {
                return Err(Converter::error(
                    path,
                    format!("conflicting `{key}`: {existing} and {value}"),
                ));
            }
            (_, Some(_)) => {}
            (_, None) => {
                out.insert(key, value);
            }
        }
    }
    Ok(())
}

/// Merges `new`'s enum values into `old` when both are enums and otherwise equal.
fn union_enums(old: &mut Value, new: &Value) -> bool {
    let without_enum = |v: &Value| {
        let mut v = strip_docs(v);
        if let Some(map) = v.as_object_mut() {
            map.remove("enum");
        }
        v
    };
    let (Some(Value::Array(_)), Some(Value::Array(extra))) = (old.get("enum"), new.get("enum"))
    else {
        return false;
    };
    if without_enum(old) != without_enum(new) {
        return false;
    }
    let extra = extra.clone();
    if let Some(Value::Array(values)) = old.get_mut("enum") {
        for value in extra {
            if !values.contains(&value) {
                values.push(value);
            }
        }
    }
    true
}

fn strip_docs(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "description" && *k != "title")
                .map(|(k, v)| (k.clone(), strip_docs(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
