//! One `schema` (`validateCustomResourceDefinitionValidation` upstream): root
//! restrictions when `/status` is enabled, `nullable` at the root, then the
//! structural rules, the defaults, and the OpenAPI-level rules.

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::model::{CustomResourceValidation, JSONSchemaProps};

use super::CheckOptions;
use crate::depth::schema::{MAX_SCHEMA_DEPTH, schema_depth, with_schema_stack};

/// Root keywords allowed when the status subresource is enabled (Go field names,
/// as upstream prints them).
const ALLOWED_AT_ROOT_WITH_STATUS: &str = "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]";

/// Checks `validation` (a version's `schema`, or the internal top-level
/// `validation`) found at `path`, e.g. `spec.versions[0].schema`.
pub fn validate_validation(
    validation: Option<&CustomResourceValidation>,
    status_enabled: bool,
    opts: &CheckOptions,
    path: &Path,
) -> ErrorList {
    let schema = validation.and_then(|v| v.open_api_v3_schema.as_ref());
    validate_schema(schema, status_enabled, opts, path)
}

/// Like [`validate_validation`], for the `openAPIV3Schema` itself.
pub fn validate_schema(
    schema: Option<&JSONSchemaProps>,
    status_enabled: bool,
    opts: &CheckOptions,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(schema) = schema else {
        return errs;
    };
    let root = path.child("openAPIV3Schema");
    // The checks below recurse once per level: deep schemas run on a stack sized
    // for them. Deeper than a CRD body can carry, a schema can only come from code;
    // the API server never sees one, so the refusal is ours and says so.
    let depth = schema_depth(schema, MAX_SCHEMA_DEPTH);
    if depth > MAX_SCHEMA_DEPTH {
        errs.push(FieldError::forbidden(
            root,
            format!(
                "nests deeper than {MAX_SCHEMA_DEPTH} levels, more than a \
                 CustomResourceDefinition's JSON can hold (a crd-toolkit limit)"
            ),
        ));
        return errs;
    }
    with_schema_stack(depth, || {
        errs.extend(validate_schema_here(schema, status_enabled, opts, root));
    });
    errs
}

fn validate_schema_here(
    schema: &JSONSchemaProps,
    status_enabled: bool,
    opts: &CheckOptions,
    root: Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if status_enabled && let Some(e) = status_root_error(schema, &root) {
        errs.push(e);
    }
    if schema.is_nullable() {
        errs.push(FieldError::forbidden(
            root.child("nullable"),
            "nullable cannot be true at the root",
        ));
    }
    // Conversion failures overlap with the OpenAPI-level errors, so like upstream
    // they are only shown when nothing else was found.
    let mut conversion_errs = ErrorList::new();
    if opts.require_structural_schema {
        if let Some(msg) = super::structural::conversion_error(schema) {
            conversion_errs.push(FieldError::invalid(
                root.clone(),
                BadValue::Str(String::new()),
                msg,
            ));
        } else {
            let structural = super::structural::validate_structural(schema, &root, opts);
            if !structural.is_empty() {
                errs.extend(structural);
            } else {
                errs.extend(super::defaults::validate_defaults(schema, &root, opts));
            }
        }
    }
    errs.extend(super::openapi::validate_openapi_schema(schema, &root, opts));
    #[cfg(feature = "cel")]
    errs.extend(super::cel_rules::cel_rule_errors(schema, &root, opts));
    if errs.is_empty() {
        errs.extend(conversion_errs);
    }
    errs
}

/// With `/status` enabled only some keywords may be used at the root (upstream
/// walks the Go struct fields in order and reports the first offender).
fn status_root_error(s: &JSONSchemaProps, root: &Path) -> Option<FieldError> {
    // (Go field name order, is set, allowed)
    let fields: [(&str, bool, bool); 44] = [
        ("id", s.id.as_deref().is_some_and(|v| !v.is_empty()), false),
        (
            "$schema",
            s.schema.as_deref().is_some_and(|v| !v.is_empty()),
            false,
        ),
        ("$ref", s.ref_path.is_some(), false),
        (
            "description",
            s.description.as_deref().is_some_and(|v| !v.is_empty()),
            true,
        ),
        ("type", !s.type_str().is_empty(), true),
        ("nullable", s.is_nullable(), false),
        (
            "format",
            s.format.as_deref().is_some_and(|v| !v.is_empty()),
            true,
        ),
        (
            "title",
            s.title.as_deref().is_some_and(|v| !v.is_empty()),
            true,
        ),
        ("default", s.default.is_some(), false),
        ("maximum", s.maximum.is_some(), true),
        ("exclusiveMaximum", s.exclusive_maximum == Some(true), true),
        ("minimum", s.minimum.is_some(), true),
        ("exclusiveMinimum", s.exclusive_minimum == Some(true), true),
        ("maxLength", s.max_length.is_some(), true),
        ("minLength", s.min_length.is_some(), true),
        (
            "pattern",
            s.pattern.as_deref().is_some_and(|v| !v.is_empty()),
            true,
        ),
        ("maxItems", s.max_items.is_some(), true),
        ("minItems", s.min_items.is_some(), true),
        ("uniqueItems", s.unique_items == Some(true), true),
        ("multipleOf", s.multiple_of.is_some(), true),
        ("enum", s.enum_.is_some(), false),
        ("maxProperties", s.max_properties.is_some(), false),
        ("minProperties", s.min_properties.is_some(), false),
        ("required", s.required.is_some(), true),
        ("items", s.items.is_some(), true),
        ("allOf", s.all_of.is_some(), false),
        ("oneOf", s.one_of.is_some(), false),
        ("anyOf", s.any_of.is_some(), false),
        ("not", s.not.is_some(), false),
        ("properties", s.properties.is_some(), true),
        (
            "additionalProperties",
            s.additional_properties.is_some(),
            false,
        ),
        ("patternProperties", s.pattern_properties.is_some(), false),
        ("dependencies", s.dependencies.is_some(), false),
        ("additionalItems", s.additional_items.is_some(), false),
        ("definitions", s.definitions.is_some(), false),
        ("externalDocs", s.external_docs.is_some(), true),
        ("example", s.example.is_some(), true),
        (
            "x-kubernetes-preserve-unknown-fields",
            s.x_kubernetes_preserve_unknown_fields.is_some(),
            true,
        ),
        (
            "x-kubernetes-embedded-resource",
            s.is_embedded_resource(),
            false,
        ),
        ("x-kubernetes-int-or-string", s.is_int_or_string(), false),
        (
            "x-kubernetes-list-map-keys",
            s.x_kubernetes_list_map_keys.is_some(),
            false,
        ),
        (
            "x-kubernetes-list-type",
            s.x_kubernetes_list_type.is_some(),
            false,
        ),
        (
            "x-kubernetes-map-type",
            s.x_kubernetes_map_type.is_some(),
            false,
        ),
        (
            "x-kubernetes-validations",
            s.x_kubernetes_validations.is_some(),
            true,
        ),
    ];
    for (name, is_set, allowed) in fields {
        if !is_set {
            continue;
        }
        if name == "type" {
            if s.type_str() != "object" {
                return Some(FieldError::invalid(
                    root.child("type"),
                    BadValue::Str(s.type_str().into()),
                    r#"only "object" is allowed as the type at the root of the schema if the status subresource is enabled"#,
                ));
            }
            continue;
        }
        if !allowed {
            // The server prints the whole schema as the value; the offending keyword
            // is the useful part.
            return Some(FieldError::invalid(
                root.clone(),
                BadValue::Str(name.into()),
                format!(
                    "only {ALLOWED_AT_ROOT_WITH_STATUS} fields are allowed at the root of the schema if the status subresource is enabled"
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_subresource_restricts_the_root() {
        let s: JSONSchemaProps = serde_json::from_value(
            serde_json::json!({"type": "object", "nullable": true, "description": "d"}),
        )
        .unwrap();
        let got =
            validate_schema(Some(&s), true, &CheckOptions::default(), &Path::new("v")).strings();
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got[0].starts_with(
                "v.openAPIV3Schema: Invalid value: \"nullable\": only [Description Type"
            ),
            "{got:?}"
        );
        assert_eq!(
            got[1],
            "v.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root"
        );
        // Without /status the same root is only refused for nullable.
        let got =
            validate_schema(Some(&s), false, &CheckOptions::default(), &Path::new("v")).strings();
        assert_eq!(
            got,
            ["v.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root"]
        );
    }

    /// `levels` nested object schemas around a string.
    fn nested(levels: usize) -> JSONSchemaProps {
        let mut s = JSONSchemaProps {
            type_: Some("string".into()),
            max_length: Some(3),
            ..Default::default()
        };
        for _ in 1..levels {
            let mut parent = JSONSchemaProps {
                type_: Some("object".into()),
                ..Default::default()
            };
            parent.properties = Some([("a".to_string(), Box::new(s))].into());
            s = parent;
        }
        s
    }

    #[test]
    fn schemas_nest_as_deep_as_a_crd_body_allows() {
        // On this 2 MiB test thread: the checks size their own stack.
        let s = nested(MAX_SCHEMA_DEPTH);
        let got = validate_schema(Some(&s), false, &CheckOptions::v1_create(), &Path::new("v"));
        assert_eq!(got.strings(), Vec::<String>::new());
        crate::depth::schema::with_schema_stack(MAX_SCHEMA_DEPTH, move || drop(s));
    }

    #[test]
    fn deeper_schemas_are_refused_without_recursion() {
        // Only code can build one: a CRD body holds at most 10,000 JSON levels.
        let s = nested(MAX_SCHEMA_DEPTH + 1);
        let got = validate_schema(Some(&s), false, &CheckOptions::v1_create(), &Path::new("v"));
        assert_eq!(
            got.strings(),
            [format!(
                "v.openAPIV3Schema: Forbidden: nests deeper than {MAX_SCHEMA_DEPTH} levels, more \
                 than a CustomResourceDefinition's JSON can hold (a crd-toolkit limit)"
            )]
        );
        crate::depth::schema::with_schema_stack(MAX_SCHEMA_DEPTH + 1, move || drop(s));
    }

    #[test]
    fn unrepresentable_schema_is_reported_only_alone() {
        let s: JSONSchemaProps =
            serde_json::from_value(serde_json::json!({"type": "object", "$schema": "http://x"}))
                .unwrap();
        let got =
            validate_schema(Some(&s), false, &CheckOptions::v1_create(), &Path::new("v")).strings();
        assert_eq!(
            got,
            ["v.openAPIV3Schema: Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported"]
        );
    }
}
