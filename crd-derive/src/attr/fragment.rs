//! Compile-time checking of schema fragments written as `json!({...})`
//! (`all_of`, `any_of`, `one_of`, `not`): every key must be a CRD schema keyword with a
//! value of the right JSON kind, so a typo fails the build instead of the API server.

use proc_macro2::Span;
use serde_derive_internals::Ctxt;

use super::value::{Json, Num};

#[derive(Clone, Copy)]
enum K {
    Str,
    Int,
    Num,
    Bool,
    Any,
    StrList,
    AnyList,
    Schema,
    Schemas,
    SchemaMap,
    SchemaOrBool,
    SchemaOrSchemas,
    Rules,
    Docs,
}

const KEYS: &[(&str, K)] = &[
    ("description", K::Str),
    ("type", K::Str),
    ("format", K::Str),
    ("title", K::Str),
    ("default", K::Any),
    ("example", K::Any),
    ("maximum", K::Num),
    ("minimum", K::Num),
    ("exclusiveMaximum", K::Bool),
    ("exclusiveMinimum", K::Bool),
    ("multipleOf", K::Num),
    ("maxLength", K::Int),
    ("minLength", K::Int),
    ("pattern", K::Str),
    ("maxItems", K::Int),
    ("minItems", K::Int),
    ("uniqueItems", K::Bool),
    ("enum", K::AnyList),
    ("maxProperties", K::Int),
    ("minProperties", K::Int),
    ("required", K::StrList),
    ("items", K::SchemaOrSchemas),
    ("allOf", K::Schemas),
    ("oneOf", K::Schemas),
    ("anyOf", K::Schemas),
    ("not", K::Schema),
    ("properties", K::SchemaMap),
    ("additionalProperties", K::SchemaOrBool),
    ("nullable", K::Bool),
    ("externalDocs", K::Docs),
    ("x-kubernetes-preserve-unknown-fields", K::Bool),
    ("x-kubernetes-embedded-resource", K::Bool),
    ("x-kubernetes-int-or-string", K::Bool),
    ("x-kubernetes-list-map-keys", K::StrList),
    ("x-kubernetes-list-type", K::Str),
    ("x-kubernetes-map-type", K::Str),
    ("x-kubernetes-validations", K::Rules),
    ("id", K::Str),
    ("$schema", K::Str),
    ("$ref", K::Str),
    ("patternProperties", K::SchemaMap),
    ("dependencies", K::Any),
    ("additionalItems", K::SchemaOrBool),
    ("definitions", K::SchemaMap),
    ("deprecated", K::Any),
    ("discriminator", K::Any),
    ("readOnly", K::Any),
    ("writeOnly", K::Any),
    ("xml", K::Any),
];

/// Checks an `items` value: one schema or a list of schemas.
pub fn check_items(cx: &Ctxt, v: &Json, span: Span) -> bool {
    let mut errors = Vec::new();
    check_kind(K::SchemaOrSchemas, v, ".items_schema", &mut errors);
    report(cx, errors, span)
}

/// Checks an `additionalProperties` value: a boolean or a schema.
pub fn check_additional(cx: &Ctxt, v: &Json, span: Span) -> bool {
    let mut errors = Vec::new();
    check_kind(K::SchemaOrBool, v, ".additional_properties", &mut errors);
    report(cx, errors, span)
}

fn report(cx: &Ctxt, errors: Vec<String>, span: Span) -> bool {
    for e in &errors {
        cx.syn_error(syn::Error::new(span, e));
    }
    errors.is_empty()
}

/// Checks a fragment, reporting every problem at `span`; true when it is valid.
pub fn check_fragment(cx: &Ctxt, v: &Json, span: Span) -> bool {
    let mut errors = Vec::new();
    schema(v, "", &mut errors);
    report(cx, errors, span)
}

fn schema(v: &Json, path: &str, errors: &mut Vec<String>) {
    let Json::Object(entries) = v else {
        errors.push(format!(
            "schema fragment{} must be a JSON object, found {}",
            at(path),
            v.kind()
        ));
        return;
    };
    for (key, value) in entries {
        let p = format!("{path}.{key}");
        match KEYS.iter().find(|(k, _)| k == key) {
            None => errors.push(format!("unknown schema keyword {key:?}{}", at(path))),
            Some((_, kind)) => check_kind(*kind, value, &p, errors),
        }
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at {}", &path[1..])
    }
}

fn check_kind(kind: K, v: &Json, p: &str, errors: &mut Vec<String>) {
    let ok = match (kind, v) {
        (K::Str, Json::Str(_))
        | (K::Int, Json::Num(Num::Int(_)))
        | (K::Num, Json::Num(_))
        | (K::Bool, Json::Bool(_))
        | (K::Any, _)
        | (K::AnyList, Json::Array(_))
        | (K::SchemaOrBool, Json::Bool(_)) => true,
        (K::StrList, Json::Array(items)) => items.iter().all(|i| matches!(i, Json::Str(_))),
        (K::Schema | K::SchemaOrBool | K::SchemaOrSchemas, Json::Object(_)) => {
            schema(v, p, errors);
            true
        }
        (K::Schemas | K::SchemaOrSchemas, Json::Array(items)) => {
            for (i, s) in items.iter().enumerate() {
                schema(s, &format!("{p}[{i}]"), errors);
            }
            true
        }
        (K::SchemaMap, Json::Object(entries)) => {
            for (k, s) in entries {
                schema(s, &format!("{p}.{k}"), errors);
            }
            true
        }
        (K::Rules, Json::Array(items)) => items.iter().all(|r| match r {
            Json::Object(e) => e.iter().all(|(k, v)| match k.as_str() {
                "rule" | "message" | "messageExpression" | "reason" | "fieldPath" => {
                    matches!(v, Json::Str(_))
                }
                "optionalOldSelf" => matches!(v, Json::Bool(_)),
                _ => false,
            }),
            _ => false,
        }),
        (K::Docs, Json::Object(e)) => e
            .iter()
            .all(|(k, v)| matches!(k.as_str(), "url" | "description") && matches!(v, Json::Str(_))),
        _ => false,
    };
    if !ok {
        errors.push(format!(
            "schema keyword {:?} has a value of the wrong kind",
            &p[1..]
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::value::parse_json;
    use quote::quote;

    fn errors(ts: proc_macro2::TokenStream) -> Vec<String> {
        let mut e = Vec::new();
        schema(&parse_json(ts).unwrap(), "", &mut e);
        e
    }

    #[test]
    fn fragments_are_checked_recursively() {
        assert!(
            errors(quote!({"required": ["a"], "properties": {"a": {"minLength": 1}}})).is_empty()
        );
        assert_eq!(
            errors(quote!({"properties": {"a": {"minLenght": 1}}})),
            ["unknown schema keyword \"minLenght\" at properties.a"]
        );
        assert_eq!(
            errors(quote!({"required": "a"})),
            ["schema keyword \"required\" has a value of the wrong kind"]
        );
    }
}
