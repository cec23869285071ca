//! OpenAPI-level schema rules (`ValidateCustomResourceDefinitionOpenAPISchema`
//! upstream): keywords Kubernetes does not support, `uniqueItems`,
//! `additionalProperties` next to `properties`, defaults where they are not
//! allowed, embedded resources inside resource metadata, and the non-CEL checks of
//! `x-kubernetes-validations`. List and map type rules are in [`super::listtype`].

use std::borrow::Cow;

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{
    ChildRef, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrStringArray,
};

use super::CheckOptions;

/// The OpenAPI v3 types Kubernetes accepts (sorted, as printed in errors).
pub const OPENAPI_V3_TYPES: [&str; 6] =
    ["array", "boolean", "integer", "number", "object", "string"];

/// Reasons an `x-kubernetes-validations` rule may declare (sorted).
const SUPPORTED_REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// Context that changes while descending (`specStandardValidatorV3` upstream).
#[derive(Clone)]
struct Ctx {
    allow_defaults: bool,
    disallow_defaults_reason: Cow<'static, str>,
    inside_resource_meta: bool,
}

impl Ctx {
    fn forbid_defaults(&self, reason: impl Into<Cow<'static, str>>) -> Ctx {
        Ctx {
            allow_defaults: false,
            disallow_defaults_reason: reason.into(),
            ..self.clone()
        }
    }
}

/// Checks a whole `openAPIV3Schema` at `path`.
pub fn validate_openapi_schema(s: &JSONSchemaProps, path: &Path, opts: &CheckOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    let ctx = Ctx {
        allow_defaults: opts.allow_defaults,
        disallow_defaults_reason: Cow::Borrowed(""),
        inside_resource_meta: false,
    };
    walk(s, path, &ctx, true, opts, &mut errs);
    errs
}

/// Only the `type` rule of `validate_openapi_schema`: every node whose `type` is not
/// an OpenAPI v3 type, over the nodes the whole check visits. Cheap enough to run
/// before anything that must understand every `type` (it allocates only for errors).
pub fn validate_property_types(s: &JSONSchemaProps, path: &Path) -> ErrorList {
    fn visit<'a>(
        s: &'a JSONSchemaProps,
        trail: &mut Vec<ChildRef<'a>>,
        root: &Path,
        errs: &mut ErrorList,
    ) {
        let ty = s.type_str();
        if !ty.is_empty() && !OPENAPI_V3_TYPES.contains(&ty) {
            let path = trail.iter().fold(root.clone(), |p, how| how.path_under(&p));
            errs.push(FieldError::not_supported(
                path.child("type"),
                BadValue::Str(ty.into()),
                &OPENAPI_V3_TYPES,
            ));
        }
        s.for_each_child(&mut |how, child| {
            // The whole check does not descend into these (they are refused as such).
            if !matches!(
                how,
                ChildRef::PatternProperty(_) | ChildRef::AdditionalItems
            ) {
                trail.push(how);
                visit(child, trail, root, errs);
                trail.pop();
            }
        });
    }
    let mut errs = ErrorList::new();
    visit(s, &mut Vec::new(), path, &mut errs);
    errs
}

fn walk(
    s: &JSONSchemaProps,
    path: &Path,
    ctx: &Ctx,
    is_root: bool,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    keywords(s, path, ctx, opts, errs);

    if s.unique_items == Some(true) {
        errs.push(FieldError::forbidden(
            path.child("uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    if let Some(ap) = s.additional_properties.as_deref() {
        use crate::model::JSONSchemaPropsOrBool as B;
        if s.properties.as_ref().is_some_and(|p| !p.is_empty()) && !matches!(ap, B::Bool(true)) {
            errs.push(FieldError::forbidden(
                path.child("additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            ));
        }
        if let B::Schema(ap) = ap {
            // Pruning a default inside a metadata map is ambiguous without a value.
            let sub = if ctx.inside_resource_meta {
                ctx.forbid_defaults("inside additionalProperties applying to object metadata")
            } else {
                ctx.clone()
            };
            walk(
                ap,
                &path.child("additionalProperties"),
                &sub,
                false,
                opts,
                errs,
            );
        }
    }
    for (name, p) in s.properties.iter().flatten() {
        let mut sub = Cow::Borrowed(ctx);
        if (is_root || s.is_embedded_resource())
            && matches!(name.as_str(), "metadata" | "kind" | "apiVersion")
        {
            let mut c = ctx.clone();
            c.inside_resource_meta = true;
            if is_root {
                c = c.forbid_defaults(format!("in top-level {name}"));
            }
            sub = Cow::Owned(c);
        }
        walk(
            p,
            &path.child("properties").key(name),
            &sub,
            false,
            opts,
            errs,
        );
    }
    if let Some(not) = s.not.as_deref() {
        walk(not, &path.child("not"), ctx, false, opts, errs);
    }
    for (kw, list) in [
        ("allOf", &s.all_of),
        ("oneOf", &s.one_of),
        ("anyOf", &s.any_of),
    ] {
        for (i, j) in list.iter().flatten().enumerate() {
            walk(j, &path.child(kw).index(i), ctx, false, opts, errs);
        }
    }
    for (name, d) in s.definitions.iter().flatten() {
        walk(
            d,
            &path.child("definitions").key(name),
            ctx,
            false,
            opts,
            errs,
        );
    }
    match s.items.as_deref() {
        Some(JSONSchemaPropsOrArray::Schema(i)) => {
            walk(i, &path.child("items"), ctx, false, opts, errs)
        }
        Some(JSONSchemaPropsOrArray::Schemas(list)) => {
            for (i, j) in list.iter().enumerate() {
                walk(j, &path.child("items").index(i), ctx, false, opts, errs);
            }
        }
        None => {}
    }
    for (name, d) in s.dependencies.iter().flatten() {
        if let JSONSchemaPropsOrStringArray::Schema(d) = d {
            walk(
                d,
                &path.child("dependencies").key(name),
                ctx,
                false,
                opts,
                errs,
            );
        }
    }
    if s.x_kubernetes_preserve_unknown_fields == Some(false) {
        errs.push(FieldError::invalid(
            path.child("x-kubernetes-preserve-unknown-fields"),
            BadValue::Bool(false),
            "must be true or undefined",
        ));
    }
    super::listtype::validate_list_and_map_types(s, path, opts, errs);
    validation_rules(s, path, errs);
}

/// Keywords that are unsupported or not allowed here (`specStandardValidatorV3.validate`).
fn keywords(
    s: &JSONSchemaProps,
    path: &Path,
    ctx: &Ctx,
    opts: &CheckOptions,
    errs: &mut ErrorList,
) {
    let ty = s.type_str();
    if opts.require_valid_property_type && !ty.is_empty() && !OPENAPI_V3_TYPES.contains(&ty) {
        errs.push(FieldError::not_supported(
            path.child("type"),
            BadValue::Str(ty.into()),
            &OPENAPI_V3_TYPES,
        ));
    }
    if s.default.is_some() && !ctx.allow_defaults {
        let mut detail = String::from("must not be set");
        if !ctx.disallow_defaults_reason.is_empty() {
            detail.push(' ');
            detail.push_str(&ctx.disallow_defaults_reason);
        }
        errs.push(FieldError::forbidden(path.child("default"), detail));
    }
    let forbid = |errs: &mut ErrorList, name: &str, detail: &str| {
        errs.push(FieldError::forbidden(path.child(name), detail));
    };
    if s.id.as_deref().is_some_and(|v| !v.is_empty()) {
        forbid(errs, "id", "id is not supported");
    }
    if s.additional_items.is_some() {
        forbid(errs, "additionalItems", "additionalItems is not supported");
    }
    if s.pattern_properties.as_ref().is_some_and(|p| !p.is_empty()) {
        forbid(
            errs,
            "patternProperties",
            "patternProperties is not supported",
        );
    }
    if s.definitions.as_ref().is_some_and(|p| !p.is_empty()) {
        forbid(errs, "definitions", "definitions is not supported");
    }
    if s.dependencies.is_some() {
        forbid(errs, "dependencies", "dependencies is not supported");
    }
    if s.ref_path.is_some() {
        forbid(errs, "$ref", "$ref is not supported");
    }
    for (set, name) in [
        (&s.deprecated, "deprecated"),
        (&s.discriminator, "discriminator"),
        (&s.read_only, "readOnly"),
        (&s.write_only, "writeOnly"),
        (&s.xml, "xml"),
    ] {
        // Not part of Kubernetes' schema dialect at all: the API server would drop
        // them (or reject them under strict field validation).
        if set.is_some() {
            forbid(errs, name, &format!("{name} is not supported"));
        }
    }
    if ty == "null" {
        forbid(
            errs,
            "type",
            "type cannot be set to null, use nullable as an alternative",
        );
    }
    if matches!(s.items.as_deref(), Some(JSONSchemaPropsOrArray::Schemas(v)) if !v.is_empty()) {
        forbid(
            errs,
            "items",
            "items must be a schema object and not an array",
        );
    }
    if ctx.inside_resource_meta && s.is_embedded_resource() {
        forbid(
            errs,
            "x-kubernetes-embedded-resource",
            "must not be used inside of resource meta",
        );
    }
}

fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// The shape of `x-kubernetes-validations` entries. Compiling the CEL rules (and
/// estimating their cost, checking `fieldPath` against the schema) is CEL's job.
fn validation_rules(s: &JSONSchemaProps, path: &Path, errs: &mut ErrorList) {
    for (i, rule) in s.x_kubernetes_validations.iter().flatten().enumerate() {
        let p = path.child("x-kubernetes-validations").index(i);
        let trimmed_rule = rule.rule.trim();
        let message = rule.message.as_deref().unwrap_or("");
        let trimmed_msg = message.trim();
        if trimmed_rule.is_empty() {
            errs.push(FieldError::required(
                p.child("rule"),
                "rule is not specified",
            ));
        } else if !message.is_empty() && trimmed_msg.is_empty() {
            errs.push(FieldError::invalid(
                p.child("message"),
                BadValue::Str(message.into()),
                "message must be non-empty if specified",
            ));
        } else if has_newlines(trimmed_msg) {
            errs.push(FieldError::invalid(
                p.child("message"),
                BadValue::Str(message.into()),
                "message must not contain line breaks",
            ));
        } else if has_newlines(trimmed_rule) && trimmed_msg.is_empty() {
            errs.push(FieldError::required(
                p.child("message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        if let Some(me) = rule.message_expression.as_deref()
            && !me.is_empty()
            && me.trim().is_empty()
        {
            errs.push(FieldError::required(
                p.child("messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if let Some(reason) = rule.reason.as_deref()
            && !SUPPORTED_REASONS.contains(&reason)
        {
            errs.push(FieldError::not_supported(
                p.child("reason"),
                BadValue::Str(reason.into()),
                &SUPPORTED_REASONS,
            ));
        }
        if let Some(fp) = rule.field_path.as_deref() {
            if !fp.is_empty() && fp.trim().is_empty() {
                errs.push(FieldError::invalid(
                    p.child("fieldPath"),
                    BadValue::Str(fp.into()),
                    "fieldPath must be non-empty if specified",
                ));
            }
            if has_newlines(fp) {
                errs.push(FieldError::invalid(
                    p.child("fieldPath"),
                    BadValue::Str(fp.into()),
                    "fieldPath must not contain line breaks",
                ));
            }
            // Upstream only resolves the path when the node converts to a structural schema.
            if !fp.is_empty()
                && super::structural::conversion_error(s).is_none()
                && crate::jsonpath::resolve_field_path(fp, s).is_err()
            {
                errs.push(FieldError::invalid(
                    p.child("fieldPath"),
                    BadValue::Str(fp.into()),
                    "fieldPath must be a valid path",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(schema: serde_json::Value) -> Vec<String> {
        crate::check::check_strings(schema, validate_openapi_schema)
    }

    #[test]
    fn forbidden_keywords() {
        let got = errors(serde_json::json!({
            "type": "object",
            "uniqueItems": true,
            "readOnly": true,
            "properties": {"a": {"type": "object", "additionalProperties": false, "properties": {"b": {"type": "string"}}}},
            "definitions": {"d": {"type": "string"}},
            "patternProperties": {"^x": {"type": "string"}}
        }));
        assert_eq!(
            got,
            [
                "s.patternProperties: Forbidden: patternProperties is not supported",
                "s.definitions: Forbidden: definitions is not supported",
                "s.readOnly: Forbidden: readOnly is not supported",
                "s.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
                "s.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
            ]
        );
    }

    #[test]
    fn defaults_in_resource_metadata() {
        let got = errors(serde_json::json!({"type": "object", "properties": {
            "metadata": {"type": "object", "default": {}},
            "e": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                "metadata": {"type": "object", "properties": {"labels": {"type": "object",
                    "additionalProperties": {"type": "string", "default": "x"}}}}}}}}));
        assert_eq!(
            got,
            [
                "s.properties[e].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata",
                "s.properties[metadata].default: Forbidden: must not be set in top-level metadata",
            ]
        );
    }

    #[test]
    fn validation_rule_shapes() {
        let got = errors(
            serde_json::json!({"type": "object", "x-kubernetes-validations": [
                {"rule": " "},
                {"rule": "a\n&& b"},
                {"rule": "self.x", "reason": "Teapot"}
            ]}),
        );
        assert_eq!(
            got,
            [
                "s.x-kubernetes-validations[0].rule: Required value: rule is not specified",
                "s.x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks",
                "s.x-kubernetes-validations[2].reason: Unsupported value: \"Teapot\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
            ]
        );
    }

    #[test]
    fn property_types_alone_match_the_whole_check() {
        let s: JSONSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": "strin"},
                "b": {"type": "array", "items": {"type": "int"}},
                "c": {"type": "object", "additionalProperties": {"type": "map"}},
                "d": {"allOf": [{"type": "string"}, {"type": "any"}], "not": {"type": "null"}},
                "e": {"type": "array", "items": [{"type": "string"}, {"type": "tuple"}]},
                "f": {"definitions": {"x": {"type": "ref"}}},
                "g": {"type": "object", "dependencies": {"x": {"type": "dep"}}},
                "h": {"type": ""}
            }
        }))
        .unwrap();
        let path = Path::new("s");
        let mut alone = validate_property_types(&s, &path).strings();
        let mut whole: Vec<String> = validate_openapi_schema(&s, &path, &CheckOptions::v1_create())
            .strings()
            .into_iter()
            .filter(|e| e.contains(".type: Unsupported value"))
            .collect();
        assert_eq!(alone.len(), 8, "{alone:#?}");
        assert!(alone.contains(&r#"s.properties[b].items.type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string""#.to_string()), "{alone:#?}");
        alone.sort();
        whole.sort();
        assert_eq!(alone, whole);
    }
}
