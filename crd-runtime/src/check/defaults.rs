//! Defaults must be pruned and must validate (`ValidateDefaults` in upstream's
//! `pkg/apiserver/schema/defaulting/validation.go`), using the [`engine`].
//!
//! Walking `properties` and `items` (never `additionalProperties`: defaults are
//! forbidden there), every `default` is:
//!
//! - outside resource metadata: pruned with its own schema and compared (`must not
//!   have unknown fields`), its embedded `metadata`/`apiVersion`/`kind` coerced and
//!   validated, then validated against its schema;
//! - inside an embedded resource's `metadata`/`apiVersion`/`kind` (the root counts
//!   as an embedded resource): placed into an otherwise empty object of that
//!   resource, which must give valid metadata (`must result in valid metadata:
//!   ...`), then validated against its schema.
//!
//! With the `cel` feature, a default that passes all of that is also validated by
//! the CEL rules of its node and below, as the API server does.
//!
//! [`engine`]: crate::engine

use serde_json::{Map, Value};

use crate::engine::{Engine, SchemaOptions};
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::JSONSchemaProps;

use super::CheckOptions;

/// How a node hangs below its embedded-resource root (to rebuild the object).
#[derive(Clone, Copy)]
enum Step<'a> {
    Child(&'a str),
    Index,
}

/// The innermost embedded resource (or the root) a node belongs to.
struct ResourceRoot<'a> {
    schema: &'a JSONSchemaProps,
    engine: Option<Result<Engine, String>>,
}

impl ResourceRoot<'_> {
    fn engine(&mut self) -> &Result<Engine, String> {
        let schema = self.schema;
        self.engine.get_or_insert_with(|| {
            Engine::schema_checks_only(
                schema,
                SchemaOptions {
                    resource_root: true,
                },
            )
            .map_err(|e| e.to_string())
        })
    }
}

/// The resource a node belongs to, and the steps from it down to the node.
struct Scope<'a> {
    root: ResourceRoot<'a>,
    steps: Vec<Step<'a>>,
}

impl<'a> Scope<'a> {
    fn new(schema: &'a JSONSchemaProps) -> Self {
        Scope {
            root: ResourceRoot {
                schema,
                engine: None,
            },
            steps: Vec::new(),
        }
    }
}

struct Walker<'o> {
    opts: &'o CheckOptions,
    errs: ErrorList,
}

/// Checks every default below `schema` (the root is a resource root).
pub fn validate_defaults(schema: &JSONSchemaProps, path: &Path, opts: &CheckOptions) -> ErrorList {
    let mut w = Walker {
        opts,
        errs: ErrorList::new(),
    };
    w.walk(schema, path, &mut Scope::new(schema), false, true);
    w.errs
}

impl Walker<'_> {
    fn walk<'a>(
        &mut self,
        s: &'a JSONSchemaProps,
        path: &Path,
        scope: &mut Scope<'a>,
        inside_meta: bool,
        is_root: bool,
    ) {
        let embedded = is_root || s.is_embedded_resource();
        if embedded && !is_root {
            // An embedded resource starts a new object to rebuild metadata defaults in.
            return self.walk_in(s, path, &mut Scope::new(s), false, true);
        }
        self.walk_in(s, path, scope, inside_meta, embedded);
    }

    fn walk_in<'a>(
        &mut self,
        s: &'a JSONSchemaProps,
        path: &Path,
        scope: &mut Scope<'a>,
        inside_meta: bool,
        embedded: bool,
    ) {
        if let Some(default) = &s.default {
            let at = path.child("default");
            if inside_meta {
                check_meta_default(s, default, &at, scope, &mut self.errs);
            } else {
                check_default(s, default, &at, embedded, self.opts, &mut self.errs);
            }
        }
        if let Some(items) = s.items_schema() {
            scope.steps.push(Step::Index);
            self.walk(items, &path.child("items"), scope, inside_meta, false);
            scope.steps.pop();
        }
        for (k, p) in s.properties.iter().flatten() {
            let meta = inside_meta
                || (embedded && matches!(k.as_str(), "metadata" | "apiVersion" | "kind"));
            scope.steps.push(Step::Child(k));
            self.walk(p, &path.child("properties").key(k), scope, meta, false);
            scope.steps.pop();
        }
    }
}

/// Re-roots an engine error (relative path) under `at`.
fn under(at: &Path, mut e: FieldError) -> FieldError {
    let rel = e.field.as_str();
    e.field = if rel.is_empty() {
        at.clone()
    } else if rel.starts_with('[') {
        Path::new(&format!("{at}{rel}"))
    } else {
        Path::new(&format!("{at}.{rel}"))
    };
    e
}

fn default_value(v: &Value) -> BadValue {
    BadValue::from_json(v)
}

/// The error at the default `at` when its schema has no engine to check it with.
fn no_engine(at: &Path, detail: String) -> FieldError {
    FieldError::invalid(at.clone(), BadValue::Str(String::new()), detail)
}

/// A default outside resource metadata.
fn check_default(
    s: &JSONSchemaProps,
    default: &Value,
    at: &Path,
    embedded: bool,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    let engine = match Engine::schema_checks_only(
        s,
        SchemaOptions {
            resource_root: embedded,
        },
    ) {
        Ok(e) => e,
        Err(e) => return errs.push(no_engine(at, e.to_string())),
    };
    if opts.require_pruned_defaults {
        let mut pruned = default.clone();
        engine.prune(&mut pruned);
        if pruned != *default {
            errs.push(FieldError::invalid(
                at.clone(),
                default_value(default),
                "must not have unknown fields",
            ));
        }
    }
    let mut coerced = default.clone();
    if let Err(e) = engine.coerce_metadata(&mut coerced, false) {
        errs.push(under(at, e));
        return;
    }
    // Coercion normalizes metadata in place upstream; validate what it produced.
    let embedded_errs = engine.validate_embedded(&coerced);
    if !embedded_errs.is_empty() {
        errs.extend(embedded_errs.into_iter().map(|e| under(at, e)));
        return;
    }
    let schema_errs = engine.validate_schema(&coerced);
    if !schema_errs.is_empty() {
        errs.extend(schema_errs.into_iter().map(|e| under(at, e)));
        // A `return` here would be needless without feature `cel` (clippy).
    } else {
        #[cfg(feature = "cel")]
        errs.extend(cel_errors(s, default, at, embedded));
    }
}

/// The default's failures of the CEL rules of its node and below, evaluated
/// like an object's (the default is its own old value, so transition rules run
/// too), each default within the per-object cost budget.
#[cfg(feature = "cel")]
fn cel_errors(s: &JSONSchemaProps, default: &Value, at: &Path, embedded: bool) -> ErrorList {
    use crate::cel::{Budget, Limits, Validator};
    let mut errs = ErrorList::new();
    if let (Some(v), _) = Validator::new(s, embedded) {
        let mut budget = Budget::new(Limits::default());
        errs.extend(v.validate_with(default, Some(default), at, &mut budget));
    }
    errs
}

/// A default for (part of) an embedded resource's `metadata`, `apiVersion` or `kind`.
fn check_meta_default(
    s: &JSONSchemaProps,
    default: &Value,
    at: &Path,
    scope: &mut Scope<'_>,
    errs: &mut ErrorList,
) {
    // The object the default would produce: the value at its place, the type meta
    // of a made-up kind around it.
    let mut obj = default.clone();
    for step in scope.steps.iter().rev() {
        obj = match step {
            Step::Child(k) => Value::Object(Map::from_iter([((*k).to_string(), obj)])),
            Step::Index => Value::Array(vec![obj]),
        };
    }
    if let Value::Object(m) = &mut obj {
        m.entry("apiVersion")
            .or_insert_with(|| Value::from("validation/v1"));
        m.entry("kind").or_insert_with(|| Value::from("Validation"));
    }
    let invalid_meta = |detail: String| {
        FieldError::invalid(
            at.clone(),
            default_value(default),
            format!("must result in valid metadata: {detail}"),
        )
    };
    match scope.root.engine() {
        Err(e) => return errs.push(no_engine(at, e.clone())),
        Ok(engine) => {
            if let Err(e) = engine.coerce_metadata(&mut obj, false) {
                errs.push(invalid_meta(e.to_string()));
                return;
            }
            let meta_errs = engine.validate_embedded(&obj);
            if !meta_errs.is_empty() {
                errs.push(invalid_meta(meta_errs.aggregate()));
                return;
            }
        }
    }
    match Engine::schema_checks_only(s, SchemaOptions::default()) {
        Ok(engine) => errs.extend(
            engine
                .validate_schema(default)
                .into_iter()
                .map(|e| under(at, e)),
        ),
        Err(e) => errs.push(no_engine(at, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(schema: serde_json::Value) -> Vec<String> {
        crate::check::check_strings(schema, validate_defaults)
    }

    #[cfg(feature = "cel")]
    #[test]
    fn defaults_must_pass_their_cel_rules() {
        let got = errors(serde_json::json!({"type": "object", "properties": {
            "v": {"type": "string", "default": "nope",
                  "x-kubernetes-validations": [{"rule": "self.startsWith('kube')"}]},
            "ok": {"type": "string", "default": "kubelet",
                   "x-kubernetes-validations": [{"rule": "self.startsWith('kube')"}]},
            "o": {"type": "object", "default": {"a": 2, "b": 1},
                  "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                  "x-kubernetes-validations": [{"rule": "self.a < self.b", "message": "a < b"}]}}}));
        assert_eq!(
            got,
            [
                "s.properties[o].default: Invalid value: a < b",
                "s.properties[v].default: Invalid value: \"nope\": failed rule: self.startsWith('kube')",
            ]
        );
    }

    #[test]
    fn defaults_must_be_pruned_and_valid() {
        let got = errors(serde_json::json!({"type": "object", "properties": {
            "a": {"type": "integer", "default": "x"},
            "b": {"type": "object", "properties": {"c": {"type": "string"}}, "default": {"c": "ok", "d": 1}},
            "e": {"type": "array", "items": {"type": "string", "maxLength": 2, "default": "long"}},
            "f": {"type": "string", "enum": ["x"], "default": "x"}}}));
        assert_eq!(
            got,
            [
                // kube-openapi names the value relative to the default (here: empty).
                "s.properties[a].default: Invalid value: \"string\":  in body must be of type integer: \"string\"",
                "s.properties[b].default: Invalid value: {\"c\":\"ok\",\"d\":1}: must not have unknown fields",
                "s.properties[e].items.default: Too long: may not be more than 2 bytes",
            ]
        );
    }

    #[test]
    fn embedded_metadata_defaults_must_give_valid_metadata() {
        let got = errors(serde_json::json!({"type": "object", "properties": {
            "e": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "a/b"}}}}}}}));
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].starts_with("s.properties[e].properties[metadata].properties[name].default: Invalid value: \"a/b\": must result in valid metadata: metadata.name: Invalid value: \"a/b\""),
            "{got:?}"
        );
    }
}
