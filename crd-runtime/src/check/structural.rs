//! Structural-schema invariants (`pkg/apiserver/schema/validation.go` and
//! `convert.go` upstream), checked directly on [`JSONSchemaProps`].
//!
//! Upstream first converts a schema into a `Structural` value (which fails for
//! keywords a structural schema cannot hold) and then checks the four rules from
//! the documentation: non-empty types, no type/default/description/nullable/
//! extensions inside `allOf`/`anyOf`/`oneOf`/`not` (with the two int-or-string
//! exceptions), completeness of junctors ([`super::completeness`]), and metadata
//! restricted to `name`/`generateName`. Embedded-resource and int-or-string
//! consistency rules live here too.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{JSONSchemaProps, JSONSchemaPropsOrArray};

use super::CheckOptions;

/// Where a schema node sits: the type-is-required message depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Root,
    Item,
    Field,
}

/// Why the schema cannot be represented as a structural schema at all
/// (`NewStructural`'s error), or `None`.
pub fn conversion_error(s: &JSONSchemaProps) -> Option<String> {
    let unsupported = [
        (s.id.as_deref().is_some_and(|v| !v.is_empty()), "id"),
        (s.schema.as_deref().is_some_and(|v| !v.is_empty()), "schema"),
        (s.ref_path.as_deref().is_some_and(|v| !v.is_empty()), "$ref"),
        (
            s.pattern_properties.as_ref().is_some_and(|m| !m.is_empty()),
            "patternProperties",
        ),
        (
            s.dependencies.as_ref().is_some_and(|m| !m.is_empty()),
            "dependencies",
        ),
        (s.additional_items.is_some(), "additionalItems"),
        (
            s.definitions.as_ref().is_some_and(|m| !m.is_empty()),
            "definitions",
        ),
    ];
    if let Some((_, name)) = unsupported.iter().find(|(bad, _)| *bad) {
        return Some(format!("OpenAPIV3Schema '{name}' is not supported"));
    }
    if s.x_kubernetes_preserve_unknown_fields == Some(false) {
        return Some(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
                .into(),
        );
    }
    if matches!(s.items.as_deref(), Some(JSONSchemaPropsOrArray::Schemas(v)) if !v.is_empty()) {
        return Some("OpenAPIV3Schema 'items' must be a schema, but is an array".into());
    }
    let mut found = None;
    s.for_each_child(&mut |how, child| {
        use crate::model::ChildRef::*;
        if found.is_none()
            && matches!(
                how,
                Property(_) | Items(None) | AdditionalProperties | Junctor(..) | Not
            )
        {
            found = conversion_error(child);
        }
    });
    found
}

/// `ValidateStructural`: the invariants plus junctor completeness, sorted by
/// their rendered text like upstream (so the output is deterministic).
pub fn validate_structural(s: &JSONSchemaProps, path: &Path, opts: &CheckOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    invariants(s, Level::Root, path, opts, &mut errs);
    errs.extend(super::completeness::validate_structural_completeness(
        s, path, opts,
    ));
    let mut keyed: Vec<(String, FieldError)> =
        errs.into_iter().map(|e| (e.to_string(), e)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    ErrorList(keyed.into_iter().map(|(_, e)| e).collect())
}

fn invariants(
    s: &JSONSchemaProps,
    lvl: Level,
    path: &Path,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    let ty = s.type_str();
    let items = s.items_schema();
    if ty == "array" && items.is_none() {
        errs.push(FieldError::required(
            path.child("items"),
            "must be specified",
        ));
    }
    if let Some(items) = items {
        invariants(items, Level::Item, &path.child("items"), opts, errs);
    }
    for (k, v) in s.properties.iter().flatten() {
        invariants(
            v,
            Level::Field,
            &path.child("properties").key(k),
            opts,
            errs,
        );
    }
    if s.additional_properties.is_some() {
        if lvl == Level::Root {
            errs.push(FieldError::forbidden(
                path.child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let Some(ap) = s.additional_properties_schema() {
            invariants(
                ap,
                Level::Field,
                &path.child("additionalProperties"),
                opts,
                errs,
            );
        }
    }

    if s.is_int_or_string() && s.preserves_unknown_fields() {
        errs.push(FieldError::invalid(
            path.child("x-kubernetes-preserve-unknown-fields"),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if s.is_int_or_string() && s.is_embedded_resource() {
        errs.push(FieldError::invalid(
            path.child("x-kubernetes-embedded-resource"),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }

    let skip_any_of = is_int_or_string_any_of(s);
    let skip_first_all_of_any_of = s
        .all_of
        .as_ref()
        .and_then(|a| a.first())
        .is_some_and(is_int_or_string_any_of);
    value_validation(
        s,
        skip_any_of,
        skip_first_all_of_any_of,
        lvl,
        path,
        opts,
        errs,
    );

    let check_metadata = lvl == Level::Root || s.is_embedded_resource();
    if s.is_embedded_resource() && ty != "object" {
        let detail = "must be object if x-kubernetes-embedded-resource is true";
        errs.push(super::wrong_type(path, ty, detail));
    } else if ty.is_empty() && !s.is_int_or_string() && !s.preserves_unknown_fields() {
        let detail = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(FieldError::required(path.child("type"), detail));
    }
    if s.is_embedded_resource() && s.additional_properties.is_some() {
        errs.push(FieldError::forbidden(
            path.child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !ty.is_empty() && ty != "object" {
        errs.push(FieldError::invalid(
            path.child("type"),
            BadValue::Str(ty.into()),
            "must be object at the root",
        ));
    }

    let props = s.properties.as_ref();
    if check_metadata {
        for name in ["kind", "apiVersion"] {
            if let Some(p) = props.and_then(|m| m.get(name))
                && p.type_str() != "string"
            {
                errs.push(FieldError::invalid(
                    path.child("properties").key(name).child("type"),
                    BadValue::Str(p.type_str().into()),
                    "must be string",
                ));
            }
        }
    }
    if let Some(md) = props.and_then(|m| m.get("metadata")) {
        let md_path = path.child("properties").key("metadata");
        if check_metadata && md.type_str() != "object" {
            errs.push(FieldError::invalid(
                md_path.child("type"),
                BadValue::Str(md.type_str().into()),
                "must be object",
            ));
        }
        if lvl == Level::Root && !restricts_only_names(md) {
            errs.push(FieldError::forbidden(
                md_path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }

    if s.is_embedded_resource()
        && !s.preserves_unknown_fields()
        && props.is_none_or(|p| p.is_empty())
    {
        errs.push(FieldError::required(
            path.child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// Whether a root `metadata` schema says nothing beyond its type (and a default,
/// which API validation rejects separately) and schemas for `name`/`generateName`.
fn restricts_only_names(md: &JSONSchemaProps) -> bool {
    let props_ok = match &md.properties {
        None => true,
        Some(p) => {
            let has_name = p.contains_key("name");
            let has_generate = p.contains_key("generateName");
            p.is_empty()
                || (has_name && has_generate && p.len() == 2)
                || ((has_name || has_generate) && p.len() == 1)
        }
    };
    // Everything the structural form keeps, except type, default and properties.
    let rest = JSONSchemaProps {
        type_: None,
        default: None,
        properties: None,
        // Not part of the structural form: dropped by the conversion.
        external_docs: None,
        example: None,
        // Zero values that are not "set" in the structural form.
        nullable: md.nullable.filter(|n| *n),
        x_kubernetes_embedded_resource: md.x_kubernetes_embedded_resource.filter(|n| *n),
        x_kubernetes_int_or_string: md.x_kubernetes_int_or_string.filter(|n| *n),
        enum_: md.enum_.clone().filter(|e| !e.is_empty()),
        all_of: md.all_of.clone().filter(|e| !e.is_empty()),
        any_of: md.any_of.clone().filter(|e| !e.is_empty()),
        one_of: md.one_of.clone().filter(|e| !e.is_empty()),
        ..md.clone()
    };
    props_ok && rest == JSONSchemaProps::default()
}

/// `anyOf: [{type: integer}, {type: string}]` and nothing else in the two branches.
fn is_int_or_string_any_of(s: &JSONSchemaProps) -> bool {
    match s.any_of.as_deref() {
        Some([a, b]) => is_bare_type(a, "integer") && is_bare_type(b, "string"),
        _ => false,
    }
}

fn is_bare_type(s: &JSONSchemaProps, ty: &str) -> bool {
    let bare = JSONSchemaProps {
        type_: Some(ty.to_string()),
        external_docs: s.external_docs.clone(),
        example: s.example.clone(),
        ..Default::default()
    };
    *s == bare
}

/// Checks the junctors (and the regular expression) of a node.
fn value_validation(
    v: &JSONSchemaProps,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    lvl: Level,
    path: &Path,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    // anyOf (unless skipped), allOf (the first one's anyOf skipped when asked), oneOf.
    let any_of = v.any_of.iter().flatten().filter(|_| !skip_any_of);
    let branches = [
        ("anyOf", any_of.collect::<Vec<_>>(), false),
        (
            "allOf",
            v.all_of.iter().flatten().collect(),
            skip_first_all_of_any_of,
        ),
        ("oneOf", v.one_of.iter().flatten().collect(), false),
    ];
    for (name, list, skip_first) in branches {
        for (i, s) in list.into_iter().enumerate() {
            let skip = skip_first && i == 0;
            nested(s, skip, false, lvl, &path.child(name).index(i), opts, errs);
        }
    }
    if let Some(not) = v.not.as_deref() {
        nested(not, false, false, lvl, &path.child("not"), opts, errs);
    }
    if let Some(p) = v.pattern.as_deref().filter(|p| !p.is_empty())
        && let Err(msg) = crate::engine::regex_go::compile(p)
    {
        errs.push(FieldError::invalid(
            path.child("pattern"),
            BadValue::Str(p.into()),
            format!("must be a valid regular expression, but isn't: {msg}"),
        ));
    }
}

/// A schema under a junctor: only value validations are allowed.
fn nested(
    v: &JSONSchemaProps,
    skip_any_of: bool,
    skip_all_of_any_of: bool,
    lvl: Level,
    path: &Path,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    value_validation(v, skip_any_of, skip_all_of_any_of, lvl, path, opts, errs);
    if let Some(items) = v.items_schema() {
        nested(items, false, false, lvl, &path.child("items"), opts, errs);
    }
    for (k, p) in v.properties.iter().flatten() {
        nested(
            p,
            false,
            false,
            Level::Field,
            &path.child("properties").key(k),
            opts,
            errs,
        );
    }
    let forbid = |errs: &mut ErrorList, name: &str, detail: &str| {
        errs.push(FieldError::forbidden(path.child(name), detail));
    };
    if !v.type_str().is_empty() {
        forbid(errs, "type", "must be empty to be structural");
    }
    if v.additional_properties.is_some() {
        if opts.allow_nested_additional_properties {
            if let Some(ap) = v.additional_properties_schema() {
                nested(
                    ap,
                    false,
                    false,
                    lvl,
                    &path.child("additionalProperties"),
                    opts,
                    errs,
                );
            }
        } else {
            forbid(
                errs,
                "additionalProperties",
                "must be undefined to be structural",
            );
        }
    }
    let (empty, undefined, off) = (
        "must be empty to be structural",
        "must be undefined to be structural",
        "must be false to be structural",
    );
    for (set, name, detail) in [
        (v.default.is_some(), "default", undefined),
        (
            v.title.as_deref().is_some_and(|t| !t.is_empty()),
            "title",
            empty,
        ),
        (
            v.description.as_deref().is_some_and(|t| !t.is_empty()),
            "description",
            empty,
        ),
        (v.is_nullable(), "nullable", off),
        (
            v.preserves_unknown_fields(),
            "x-kubernetes-preserve-unknown-fields",
            off,
        ),
        (
            v.is_embedded_resource(),
            "x-kubernetes-embedded-resource",
            off,
        ),
        (v.is_int_or_string(), "x-kubernetes-int-or-string", off),
        (
            v.x_kubernetes_list_map_keys
                .as_ref()
                .is_some_and(|k| !k.is_empty()),
            "x-kubernetes-list-map-keys",
            empty,
        ),
        (
            v.x_kubernetes_list_type.is_some(),
            "x-kubernetes-list-type",
            undefined,
        ),
        (
            v.x_kubernetes_map_type.is_some(),
            "x-kubernetes-map-type",
            undefined,
        ),
        (
            v.x_kubernetes_validations
                .as_ref()
                .is_some_and(|r| !r.is_empty()),
            "x-kubernetes-validations",
            empty,
        ),
    ] {
        if set {
            forbid(errs, name, detail);
        }
    }
    if v.properties
        .as_ref()
        .is_some_and(|p| p.contains_key("metadata"))
    {
        errs.push(FieldError::forbidden(
            path.child("properties").key("metadata"),
            "must not be specified in a nested context",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(schema: serde_json::Value) -> Vec<String> {
        crate::check::check_strings(schema, validate_structural)
    }

    #[test]
    fn int_or_string_exceptions_may_carry_types() {
        let any_of = serde_json::json!({"type": "object", "properties": {"port": {
            "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}]}}});
        assert!(errors(any_of).is_empty());
        let all_of = serde_json::json!({"type": "object", "properties": {"port": {
            "x-kubernetes-int-or-string": true,
            "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"maximum": 3}]}}});
        assert!(errors(all_of).is_empty());
        let other = serde_json::json!({"type": "object", "properties": {"port": {
            "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "boolean"}]}}});
        assert_eq!(
            errors(other),
            [
                "s.properties[port].anyOf[0].type: Forbidden: must be empty to be structural",
                "s.properties[port].anyOf[1].type: Forbidden: must be empty to be structural",
            ]
        );
    }

    #[test]
    fn embedded_resources_and_metadata() {
        let got = errors(serde_json::json!({"type": "object", "properties": {
            "e": {"x-kubernetes-embedded-resource": true, "additionalProperties": {"type": "string"},
                  "properties": {"kind": {"type": "integer"}}},
            "n": {"type": "object", "properties": {"metadata": {"type": "object"}}},
            "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "object"}}}}}));
        assert_eq!(
            got,
            [
                "s.properties[e].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set",
                "s.properties[e].properties[kind].type: Invalid value: \"integer\": must be string",
                "s.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true",
                "s.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
            ]
        );
        assert!(errors(serde_json::json!({"type": "object", "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}, "generateName": {"type": "string"}}}}}))
        .is_empty());
    }

    #[test]
    fn invalid_patterns_use_go_wording() {
        assert_eq!(
            errors(serde_json::json!({"type": "object", "pattern": "a[b"})),
            [
                "s.pattern: Invalid value: \"a[b\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[b`"
            ]
        );
    }

    #[test]
    fn unrepresentable_schemas_are_named() {
        let s: JSONSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object", "properties": {"a": {"items": [{"type": "string"}]}}}))
        .unwrap();
        assert_eq!(
            conversion_error(&s).as_deref(),
            Some("OpenAPIV3Schema 'items' must be a schema, but is an array")
        );
        let s: JSONSchemaProps =
            serde_json::from_value(serde_json::json!({"anyOf": [{"$ref": "#/x"}]})).unwrap();
        assert_eq!(
            conversion_error(&s).as_deref(),
            Some("OpenAPIV3Schema '$ref' is not supported")
        );
    }
}
